"""A client closed while its calls wait (a 429's ``Retry-After``): every wait ends at once, the
call raises ``StoppedError`` and nothing more is sent; sync and async alike."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

import httpx
import pytest
from interrupting import until
from shared_tls import TLS

from lyt_toolkit._stop import stopping
from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.errors import StoppedError
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_kwargs

RETRY_AFTER = 25
"""Seconds every answer asks to wait: within the default retry budget and timeout, so a
call waits it out in one sleep (as for a window's reset that other traffic brought on)."""

AT_ONCE = RETRY_AFTER / 2
"""Seconds a wait ended "at once" takes at most: well before the wait's end, however loaded
the machine."""


def _waiting(sb: Sandbox, log: pytest.LogCaptureFixture) -> int:
    """The calls the sandbox counted, once the client's DEBUG log (``log``) says a call was
    answered 429: its ``Retry-After`` wait comes next, and ends at once if the client is
    closed before it begins."""
    until(lambda: any(" -> 429 " in r.getMessage() for r in log.records), "answered 429")
    used: int = sb.plan()["used"]
    return used


def test_closing_a_client_ends_the_retry_wait_of_a_call_in_another_thread_at_once(
    fresh: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lyt_toolkit.client")
    fresh.set_faults(rate_limit=1.0, retry_after=RETRY_AFTER)
    client = LoyaltyClient(**client_kwargs(fresh))
    raised: list[BaseException] = []

    def read() -> None:
        try:
            client.rewards.list(limit=1)
        except BaseException as exc:  # handed to the test's thread
            raised.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    used = _waiting(fresh, caplog)
    closed_at = time.monotonic()
    client.close()
    reader.join(AT_ONCE)
    assert not reader.is_alive(), "the call still waits for its retry"
    assert time.monotonic() - closed_at < AT_ONCE
    assert len(raised) == 1 and isinstance(raised[0], StoppedError)
    assert str(raised[0]) == "not sent: the client was closed"
    time.sleep(0.3)
    assert fresh.plan()["used"] == used  # nothing sent after the close


def test_closing_an_async_client_ends_the_retry_wait_of_a_task_at_once(
    fresh: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lyt_toolkit.client")
    fresh.set_faults(rate_limit=1.0, retry_after=RETRY_AFTER)

    async def main() -> tuple[float, int]:
        async with AsyncLoyaltyClient(**client_kwargs(fresh)) as client:
            read = asyncio.ensure_future(client.rewards.list(limit=1))
            used = await asyncio.to_thread(_waiting, fresh, caplog)
            closed_at = time.monotonic()
            await client.aclose()
            with pytest.raises(StoppedError, match=r"^not sent: the client was closed$"):
                await asyncio.wait_for(read, AT_ONCE)
            return time.monotonic() - closed_at, used

    took, used = asyncio.run(main())
    assert took < AT_ONCE
    time.sleep(0.3)
    assert fresh.plan()["used"] == used  # nothing sent after the close


def test_a_client_closed_sends_its_next_calls_over_the_pool_its_caller_owns(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Closing stops the waits under way, not the calls made after it (their pool is open)."""
    with httpx.Client(verify=TLS) as http:
        client = make_client(fresh, http_client=http)
        client.close()
        assert len(client.rewards.list(limit=1).data) == 1


def test_a_call_stopped_before_it_is_sent_is_not_counted(fresh: Sandbox) -> None:
    """A call whose work was stopped before it went out (the calls a pull's worker threads
    start after a Ctrl-C meet a stop already set) raises ``StoppedError`` and is not
    counted: the client says what the service counted."""
    stop = threading.Event()
    with LoyaltyClient(**client_kwargs(fresh)) as client:
        client.rewards.list(limit=1)
        used = client.quota.calls_used
        stop.set()
        with stopping(stop, "the test stopped it"), pytest.raises(StoppedError):
            client.rewards.list(limit=1)
        assert client.quota.calls_used == used == fresh.plan()["used"]
        client.rewards.list(limit=1)  # the next call, not stopped, is counted
        assert client.quota.calls_used == used + 1 == fresh.plan()["used"]
