"""A paced pull started (or resumed) in a window the project's other traffic already spent
waits for the reset, over real HTTP: its first call is refused 429, it sends nothing more
until the window resets, then pulls within its share of the new window. An unpaced pull
raises ``QuotaExhaustedError``, saying when to come back on the service's clock.

The sandbox's clock runs here (the demo program without its fixed ``now``), set a few seconds
before the end of a minute's window: the reset comes by itself, as the service's does. The
client's ``max_wait`` of 1 s stands for the default 60 s against an hour's window: the reset
(``Retry-After``) is beyond it.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit import AsyncLoyaltyClient, LoyaltyClient, ProgramSnapshot
from lyt_toolkit.errors import QuotaExhaustedError, StoppedError
from lyt_toolkit.frames.registry import FRAME_NAMES
from lyt_toolkit.sandbox import Sandbox

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

ClientFor = Callable[..., LoyaltyClient]

PLAN = "60/minute"
"""Half of it, the default share, holds the demo program's pull (26 calls and a token)."""
MINUTE = "2026-01-15T12:00"
RESET = datetime(2026, 1, 15, 12, 1, tzinfo=UTC)
"""The end of the window ``MINUTE``, on the sandbox's clock."""


def _spent_by_others(sb: Sandbox, make_client: ClientFor, resets_in: int) -> None:
    """The window of ``MINUTE`` spent by another client of the project, ``resets_in``
    seconds before its end (the clock runs on from there)."""
    sb.set_clock(f"{MINUTE}:00Z")
    sb.set_plan(PLAN)
    with make_client(sb) as other:
        while other.quota.remaining != 0:
            other.programs.list(limit=1)
    sb.set_clock(f"{MINUTE}:{60 - resets_in:02d}Z")  # the same window: still spent
    assert sb.plan()["remaining"] == 0


def test_a_paced_pull_in_a_window_others_spent_waits_for_the_reset_then_keeps_to_its_share(
    running: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    _spent_by_others(running, make_client, resets_in=4)
    with make_client(running, max_wait=1) as client:
        paced = ProgramSnapshot.pull(client, progress=False, checkpoint=tmp_path / "checkpoint")
        sent = client.quota.calls_used
    window = running.plan()
    assert window["resets_at"] == "2026-01-15T12:02:00.000Z"  # counted in the next window
    # The token request refused (the sandbox counts no 429), then nothing until the reset:
    # every call the sandbox let through was counted in the new window, within the share.
    assert window["cycle_used"] == 60 + window["used"]
    assert sent == 1 + window["used"]
    assert window["used"] <= 30
    assert paced.calls is not None and paced.calls.windows == (1, window["used"])
    running.set_plan("unlimited")
    with make_client(running) as client:
        unpaced = ProgramSnapshot.pull(client, progress=False)
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(paced, name), getattr(unpaced, name), obj=name)


def test_a_client_closed_while_a_paced_pull_waits_for_the_reset_ends_the_wait_at_once(
    running: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    _spent_by_others(running, make_client, resets_in=30)
    client = make_client(running, max_wait=1)
    raised: list[BaseException] = []

    def pull() -> None:
        try:
            ProgramSnapshot.pull(client, progress=False, checkpoint=tmp_path / "checkpoint")
        except BaseException as exc:  # handed to the test's thread
            raised.append(exc)

    puller = threading.Thread(target=pull, daemon=True)
    puller.start()
    deadline = time.monotonic() + 30
    while client.quota.calls_used < 1 or client.quota.type is None:  # the 429 read
        assert time.monotonic() < deadline, "the pull sent nothing"
        time.sleep(0.02)
    time.sleep(0.5)
    assert puller.is_alive() and not raised, raised  # it waits, not raises
    closed_at = time.monotonic()
    client.close()
    puller.join(5)
    assert not puller.is_alive(), "the pull still waits for the reset"
    assert time.monotonic() - closed_at < 2
    assert len(raised) == 1 and isinstance(raised[0], StoppedError), raised
    assert client.quota.calls_used == 1  # the refused call, nothing after it


def test_an_unpaced_pull_in_a_window_others_spent_says_when_to_come_back_on_the_services_clock(
    running: Sandbox, make_client: ClientFor
) -> None:
    """The reset and the time to come back are one instant, the sandbox's (a day in January),
    whatever this machine's date."""
    # 30 s, not 4: nothing waits for the reset here, and a loaded machine taking seconds to
    # send the pull's first call must still find the window spent.
    _spent_by_others(running, make_client, resets_in=30)
    with (
        make_client(running, max_wait=1) as client,
        pytest.raises(QuotaExhaustedError) as caught,
    ):
        ProgramSnapshot.pull(client, progress=False)
    refused = caught.value
    # The pull's lists go together: after the service's 429 to the first call the others are
    # refused unsent, yet the refusal raised is the service's, whichever failed first.
    assert refused.sent and refused.retry_at == RESET and client.quota.calls_used == 1
    assert _text(refused) == COME_BACK, str(refused)


def test_the_quota_keeps_the_services_refusal_for_the_calls_before_it_only(
    running: Sandbox, make_client: ClientFor
) -> None:
    """``Quota.refusal_after(calls)``: the error made of the service's 429 (sent), not of a
    call refused unsent after it, asked from any count before the call that heard it."""
    _spent_by_others(running, make_client, resets_in=30)
    with make_client(running, max_wait=1) as client:
        assert client.quota.refusal_after(0) is None  # nothing heard yet
        with pytest.raises(QuotaExhaustedError) as first:
            client.programs.list(limit=1)  # its token request hears the 429
        with pytest.raises(QuotaExhaustedError) as unsent:
            client.programs.list(limit=1)
        heard = client.quota.refusal_after(0)
    assert first.value.sent and not unsent.value.sent
    assert heard is first.value and client.quota.refusal_after(1) is None


COME_BACK = (
    "429 too_many_requests: Too many requests (api_calls: the 60/minute plan's budget of 60"
    " calls per minute is spent; the next call may be made at 2026-01-15T12:01:00.000Z)"
    " [POST /oauth/token] request_id=ID. The service asks to wait N s before retrying"
    " (Retry-After): come back after 2026-01-15 12:01:00 UTC (the service's clock); the call"
    " budget (api_calls, 60 per window) resets at 2026-01-15 12:01:00 UTC, in N s, beyond"
    " max_wait (1 s); this client has sent 1 call"
)
"""The unpaced pull's refusal: the service's 429 to its token request, as the client words it
(its request's id: ``ID``; the seconds to the reset, counted when it answered: ``N``)."""


def _text(refused: QuotaExhaustedError) -> str:
    """``refused`` as said, its request's id ``ID``, the seconds to the reset ``N``."""
    text = re.sub(r"request_id=\w+", "request_id=ID", str(refused))
    return re.sub(r"\b(wait|in) \d+ s\b", r"\1 N s", text)


class _SlowToUnwind:
    """A list group of an async client whose walk, refused by the service itself (its 429,
    ``sent``), is slow to unwind: it fails only once cancelled, as a part still closing its
    read-ahead does when the pull's other lists, refused unsent meanwhile, fail first."""

    def __init__(self, group: Any) -> None:
        self._group = group

    def __getattr__(self, name: str) -> Any:
        return getattr(self._group, name)

    def pages(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        return self._held(self._group.pages(*args, **kwargs))

    def plain_pages(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        return self._held(self._group.plain_pages(*args, **kwargs))

    @staticmethod
    async def _held(pages: AsyncIterator[Any]) -> AsyncIterator[Any]:
        try:
            async for page in pages:
                yield page
        except QuotaExhaustedError as refused:
            if refused.sent:
                await asyncio.Event().wait()  # until cancelled: the others fail first
            raise


def test_an_unpaced_pulls_refusal_is_the_services_429_though_a_list_refused_unsent_fails_first(
    running: Sandbox, make_client: ClientFor
) -> None:
    _spent_by_others(running, make_client, resets_in=30)
    keys = running.credentials.as_client_kwargs()

    async def pull() -> QuotaExhaustedError:
        async with AsyncLoyaltyClient(
            base_url=running.base_url, env_file=None, max_wait=1, **keys
        ) as client:
            for group in ("programs", "rewards", "benefits", "card_definitions", "tier_structures"):
                vars(client)[group] = _SlowToUnwind(getattr(client, group))
            with pytest.raises(QuotaExhaustedError) as caught:
                await ProgramSnapshot.apull(client, progress=False)
            assert client.quota.calls_used == 1
            return caught.value

    refused = asyncio.run(pull())
    assert refused.sent, str(refused)  # the service's, not a list's refused unsent
    assert _text(refused) == COME_BACK, str(refused)
