"""A paced work's share of the window holds every request it sends, over real HTTP: a retry
after a 503, and the token request and the call again after a 401, go only while the share
holds them; beyond it the call waits for the reset, and the window never counts more than the
share."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from interrupting import HANG, quiet_then_closed, until_async, window_used

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.client.allowance import Allowance, AllowanceSpent
from lyt_toolkit.client.config import RetryConfig
from lyt_toolkit.errors import APITimeoutError, ServerError, StoppedError, UnauthorizedError
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_kwargs

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

THREE_TRIES = RetryConfig(max_attempts=3, backoff_base=0.01, backoff_max=0.05, total_timeout=20)


def _paced_until_closed(
    client: LoyaltyClient, ended: list[BaseException], failed: type[Exception]
) -> Callable[[], None]:
    """A paced work at half of the window calling on until ``client`` is closed while it
    waits for the reset (the ``StoppedError`` kept in ``ended``), each call's ``failed``
    error passed over."""

    def paced() -> None:
        with client.quota.allowance(0.5, paced=True):
            for _ in range(100):
                try:
                    client.programs.list(limit=1)
                except failed:
                    continue
                except StoppedError as exc:
                    ended.append(exc)
                    return

    return paced


async def _until_one_waits(call: Callable[[], Awaitable[object]], held: Allowance) -> None:
    """``call`` made until one waits for the next window: each made while ``held``'s share
    had room for it is awaited (``HANG`` at most), the first made without room is given a
    second to go (it must not) and cancelled."""
    for _ in range(22):
        if held.fits():
            await asyncio.wait_for(call(), HANG)
            continue
        try:
            await asyncio.wait_for(call(), 1)
        except TimeoutError:
            return


def _sent_within_share(
    fresh: Sandbox, client: LoyaltyClient, failed: type[Exception], share: int
) -> None:
    """A paced work at half of the window (``_paced_until_closed``) sends ``share`` requests
    in all, none beyond, then waits for the reset until ``client`` is closed."""
    ended: list[BaseException] = []
    paced = _paced_until_closed(client, ended, failed)
    used = quiet_then_closed(fresh, client, paced, share, quiet=1.5)
    assert used == window_used(fresh) == share  # 3 + 3 + 3 + 1: none beyond the share
    assert client.quota.calls_used == used and len(ended) == 1


def test_a_paced_calls_retries_stay_within_its_share(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Every call answered 503, three tries each: the share's tenth call goes, its retry
    would be an eleventh and waits for the reset instead."""
    fresh.set_plan("22/hour")
    with make_client(fresh, retry=THREE_TRIES) as client:
        client.programs.list(limit=1)  # a token, then the call: 20 left, half of it 10
        fresh.set_faults(unavailable=1.0, retry_after=0, seed=1)
        _sent_within_share(fresh, client, ServerError, 2 + 10)


def test_a_paced_calls_token_request_after_a_401_stays_within_its_share(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """A token whose scope the calls refuse: each call is sent, refused 401, its token
    requested anew and sent again (three requests); the share's tenth request is a call's
    first, and its token request waits for the reset instead."""
    fresh.set_plan("21/hour")
    with make_client(fresh, scopes=["customers"], retry=THREE_TRIES) as client:
        client.fetch_token()  # 20 left, half of it 10
        _sent_within_share(fresh, client, UnauthorizedError, 1 + 10)


def test_concurrent_paced_calls_retried_at_the_edge_stay_within_the_share(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Eight threads of one paced work, half of their calls answered 503: the retries of
    the calls let start at the share's edge do not take the window beyond it."""
    fresh.set_plan("62/hour")
    with make_client(fresh, retry=THREE_TRIES) as client:
        client.programs.list(limit=1)  # a token, then the call: 60 left, half of it 30
        fresh.set_faults(unavailable=0.5, retry_after=0, seed=3)
        ended: list[BaseException] = []
        stopped = threading.Event()

        def thread() -> None:
            while not stopped.is_set():
                try:
                    client.programs.list(limit=1)
                except ServerError:
                    continue
                except StoppedError as exc:
                    ended.append(exc)
                    return

        def paced() -> None:
            with client.quota.allowance(0.5, paced=True):
                threads = [threading.Thread(target=thread) for _ in range(8)]
                for each in threads:
                    each.start()
                for each in threads:
                    each.join()

        used = quiet_then_closed(fresh, client, paced, 2 + 30, quiet=1.5)
        stopped.set()
        assert used == window_used(fresh) == 2 + 30
        assert len(ended) == 8


def test_a_paced_call_cancelled_before_its_first_request_leaves_the_share_as_it_was(
    fresh: Sandbox,
) -> None:
    """A paced call cancelled while it waited for the token another task requested sent
    nothing, yet its share counted it as let start until the window ended: the work's last
    call of the window waited an hour for the next. The work sends its whole share."""
    fresh.set_plan("22/hour")

    async def work() -> tuple[int, int | None]:
        async with AsyncLoyaltyClient(**client_kwargs(fresh)) as aclient:
            with aclient.quota.allowance(0.5, paced=True) as held:
                fresh.set_faults(delay_seconds=5.0)  # the first call's token request is slow
                first = asyncio.create_task(aclient.programs.list(limit=1))
                await until_async(lambda: window_used(fresh) == 1, "sent the token request")
                waiting = asyncio.create_task(aclient.programs.list(limit=1))
                await until_async(lambda: held.booked == 1, "let the call start")
                assert not first.done()  # the call let start waits for the first's token
                waiting.cancel()
                fresh.clear_faults()
                await first
                await _until_one_waits(lambda: aclient.programs.list(limit=1), held)
                return window_used(fresh), held.calls

    used, share = asyncio.run(work())
    assert share == 11  # half of the 22 the window held: the first's token request and 10
    assert used == share


TIMEOUT = 15.0
"""The client's timeout where a token request comes back too late; ``LATER`` of it the second
call's own token request has to go, the rest is for what happens before: each far beyond its
time on a loaded machine."""

LATER = 6.0
"""Seconds the second call starts after the first at least: its deadline's lead on the
first's."""

Waiting = asyncio.Task[Any]
Meanwhile = Callable[[AsyncLoyaltyClient, Allowance, Waiting], Awaitable[Waiting]]


def _held_start_sent_last(fresh: Sandbox, meanwhile: Meanwhile) -> tuple[int, int | None]:
    """A paced work at half of a 22-call window: its first call's token request goes out
    slow, a second call is let start and waits for that token, ``meanwhile`` runs (and gives
    the call that waits now), ``/v1`` calls (no token) go until one waits for the next
    window, then the token request comes back too late and the call waiting sends its own
    token request, its start booked. What the sandbox's window counts then, and the work's
    share of it."""

    fresh.set_plan("22/hour")

    async def work() -> tuple[int, int | None]:
        async with AsyncLoyaltyClient(**client_kwargs(fresh), timeout=TIMEOUT) as aclient:
            await aclient.promotion_tiers.list()  # the budget known: 21 left
            with aclient.quota.allowance(0.5, paced=True) as held:
                fresh.set_faults(delay_seconds=TIMEOUT + 2)  # the first's token request: late
                first = asyncio.create_task(aclient.programs.list(limit=1))
                await until_async(lambda: window_used(fresh) == 2, "sent the token request")
                fresh.clear_faults()
                await asyncio.sleep(LATER)
                second = asyncio.create_task(aclient.programs.list(limit=1))
                await until_async(lambda: held.booked == 1, "let the second call start")
                assert not first.done()  # the second waits for the first's token
                second = await meanwhile(aclient, held, second)
                await _until_one_waits(aclient.promotion_tiers.list, held)
                assert not first.done(), "all this took longer than the client's timeout"
                sent, before = aclient.quota.calls_used, window_used(fresh)
                with pytest.raises(APITimeoutError):
                    await first
                await until_async(  # the waiting call's own token request counted
                    lambda: (
                        aclient.quota.calls_used > sent
                        and window_used(fresh) == before + aclient.quota.calls_used - sent
                    ),
                    "sent the waiting call's token request",
                )
                with pytest.raises(TimeoutError):  # its token request sent, its call waits
                    await asyncio.wait_for(second, 2)
                return window_used(fresh), held.calls

    return asyncio.run(work())


def test_a_paced_call_let_start_as_a_window_ends_is_held_by_the_next_windows_share(
    fresh: Sandbox,
) -> None:
    """A call let start in one window sends its first request in the next: the next window's
    share holds it from the window's start. It was dropped there, and the work's other calls
    took the whole share before it went: one beyond it."""

    async def next_window(aclient: AsyncLoyaltyClient, held: Allowance, second: Waiting) -> Waiting:
        fresh.advance_clock(3600)
        await aclient.promotion_tiers.list()  # its answer tells of the new window
        return second

    used, share = _held_start_sent_last(fresh, next_window)
    assert share == 11  # half of the 20 left and the 2 in flight as it began
    # The work counts the late token request, in flight as the window began, in it too (the
    # service may have counted it there): the sandbox counted it in the window before.
    assert used + 1 == share


def test_a_paced_call_cancelled_in_the_next_window_hands_back_only_its_own_start(
    fresh: Sandbox,
) -> None:
    """A call let start in one window and cancelled in the next, while a call let start in
    the next waits: handed back there, it took the other call's booking, and the work's
    other calls took the whole share before that call went: one beyond it."""

    async def cancelled_there(
        aclient: AsyncLoyaltyClient, held: Allowance, second: Waiting
    ) -> Waiting:
        fresh.advance_clock(3600)
        await aclient.promotion_tiers.list()  # its answer tells of the new window
        booked = held.booked
        third: Waiting = asyncio.create_task(aclient.programs.list(limit=1))
        # let start in the new window, waiting for the token
        await until_async(lambda: held.booked == booked + 1, "let the third call start")
        second.cancel()
        await asyncio.wait([second], timeout=HANG)
        assert second.cancelled()
        return third

    used, share = _held_start_sent_last(fresh, cancelled_there)
    assert share == 11
    assert used + 1 == share  # as above: the late token request counted in both windows


def test_a_paced_call_another_allowance_refuses_hands_its_start_back_once(
    fresh: Sandbox,
) -> None:
    """A call a spent (not paced) allowance refuses inside ``Quota.take``, after the paced
    share let its booking go: handed back again, the share lost another call's booking and
    the work sent one beyond it."""

    async def refused(aclient: AsyncLoyaltyClient, held: Allowance, second: Waiting) -> Waiting:
        with aclient.quota.allowance(0.01), pytest.raises(AllowanceSpent):  # none of 20: spent
            await aclient.promotion_tiers.list()
        return second

    used, share = _held_start_sent_last(fresh, refused)
    assert share == 10  # half of the 21 left
    assert used == 1 + share  # the first /v1 call, then the work's share


def test_asking_whether_a_call_may_start_takes_nothing_of_a_paced_share(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """``client.quota.ready()`` asked while a paced work runs (a notebook showing whether a
    call may go now), no call following: the work still sends its whole share. Each answer
    used to book a call never sent, one call of every window's share for good."""
    fresh.set_plan("22/hour")
    with make_client(fresh) as client:
        client.programs.list(limit=1)  # a token, then the call: 20 left, half of it 10
        with client.quota.allowance(0.5, paced=True) as held:
            for _ in range(3):
                assert client.quota.ready() == (0, False)
            for _ in range(7):
                client.programs.list(limit=1)
            assert client.quota.ready() == (0, False)  # 3 calls of its share left
            for _ in range(3):
                client.programs.list(limit=1)
            assert not held.fits()
    assert window_used(fresh) == 2 + 10
