"""The budget settings (``max_wait``, ``rate``) and the bookkeeping behind them, on a fake clock."""

from __future__ import annotations

import email.utils
import itertools

import httpx
import pytest

from lyt_toolkit.client import ClientConfig
from lyt_toolkit.client.allowance import AllowanceSpent, WindowCalls
from lyt_toolkit.client.config import Rate
from lyt_toolkit.client.quota import CLOCK_AGREES, POLL, POLL_FOR, Quota
from lyt_toolkit.errors import ConfigurationError

BASE = "https://{cluster}.example.com"


def resolve(**settings: object) -> ClientConfig:
    return ClientConfig.resolve(base_url=BASE, env={}, env_file=None, **settings)  # type: ignore[arg-type]


def test_defaults() -> None:
    config = resolve()
    assert config.max_wait == 60 and config.rate is None


def test_good_settings() -> None:
    assert resolve(max_wait=0).max_wait == 0
    config = resolve(max_wait=2.5, rate="5000/hour")
    assert config.max_wait == 2.5
    assert config.rate == Rate(5000, 3600) and config.rate.interval == 0.72
    assert str(resolve(rate=" 80 / minute ").rate) == "80/minute"


@pytest.mark.parametrize("value", [-1, float("nan"), float("inf"), "60", True])
def test_a_bad_max_wait_is_named(value: object) -> None:
    with pytest.raises(ConfigurationError, match="max_wait"):
        resolve(max_wait=value)


@pytest.mark.parametrize("value", ["fast", "0/hour", "5000/day", "5000", "-5/minute", 100])
def test_a_bad_rate_is_named(value: object) -> None:
    with pytest.raises(ConfigurationError, match="rate"):
        resolve(rate=value)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def answer(status: int = 200, /, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers=headers)


def let_start(quota: Quota) -> tuple[float, bool]:
    """``quota.ready()``, the call let start when it may (booked, as the client's own calls
    are: the next waits its spacing, a paced share counts it)."""
    wait, spent, _ = quota._ready()
    return wait, spent


def test_rate_spaces_starts_evenly_whatever_the_callers_do() -> None:
    clock = Clock()
    quota = Quota(max_wait=60, rate=Rate(120, 60), clock=clock)
    starts = []
    for _ in range(5):
        while (wait := let_start(quota))[0] > 0:
            assert wait[1] is False  # spacing, not a spent budget
            clock.now += wait[0]
        starts.append(clock.now)
    assert [b - a for a, b in itertools.pairwise(starts)] == [0.5] * 4


def test_a_spent_budget_waits_for_the_reset_then_refills() -> None:
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    wait, number = quota.take()
    assert (wait, number) == (0, 1)
    headers = {"X-Rate-Limit-Limit": "2", "X-Rate-Limit-Retry": "1000030"}
    quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": "1"}), number)
    assert quota.take() == (0, 2)
    assert quota.remaining == 0
    assert quota.take() == (30, 0)  # nothing counted
    assert quota.ready() == (30, True)
    assert quota.calls_used == 2
    clock.now += 30
    assert quota.take() == (0, 3)  # the window is over: refilled to the limit
    assert quota.remaining == 0  # less the two calls in flight
    quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": "0"}), 2)
    assert quota.remaining == 1  # call 2's late answer from the old window changes no count


def test_answers_overtaking_each_other_never_raise_the_count() -> None:
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    headers = {"X-Rate-Limit-Limit": "3", "X-Rate-Limit-Retry": "1003600"}
    _, first = quota.take()
    _, second = quota.take()
    # The service counted the second call first: its answer says 2 left, the first's 1.
    quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": "1"}), first)
    assert quota.remaining == 0  # the second call may not be counted yet
    assert quota.take() == (POLL, 0)  # its answer is due: wait for it, don't give up
    quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": "2"}), second)
    assert quota.remaining == 1  # the lowest count stands, never the higher late one
    assert quota.take() == (0, 3)
    assert quota.take() == (POLL, 0)
    clock.now += POLL_FOR  # an answer that never comes is not waited for forever
    wait, _ = quota.take()
    assert wait == pytest.approx(3600 - POLL_FOR)


def test_a_429_spends_the_budget_until_its_retry_after() -> None:
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock)
    _, number = quota.take()
    quota.observe(answer(429, **{"Retry-After": "12", "X-Rate-Limit-Type": "api_calls"}), number)
    assert quota.remaining == 0 and quota.type == "api_calls"
    assert quota.take() == (12, 0)


def test_headers_that_are_not_numbers_are_ignored() -> None:
    quota = Quota(max_wait=60)
    _, number = quota.take()
    quota.observe(answer(**{"X-Rate-Limit-Limit": "lots", "X-Rate-Limit-Remaining": "-3"}), number)
    assert (quota.limit, quota.remaining) == (None, None)
    assert quota.take() == (0, 2)


@pytest.mark.parametrize("skew", [0.0, 3600.0], ids=["clocks-agree", "service-an-hour-ahead"])
def test_past_resets_at_the_budget_is_never_a_stale_zero(skew: float) -> None:
    """``Date`` names a whole second, whose start is taken for the answer's instant: the reset
    may be up to a second early of the one held, and from then on the budget is unknown,
    not 0 (issue 33, item 10)."""
    clock = Clock()
    wall = lambda: 999_000.7 - skew + (clock.now - 1000)  # noqa: E731
    quota = Quota(max_wait=0, clock=clock, wall=wall)
    headers = {
        "X-Rate-Limit-Limit": "2",
        "X-Rate-Limit-Remaining": "0",
        "X-Rate-Limit-Retry": "999030",  # the window's end: 29.3 s after the answer
        "Date": email.utils.formatdate(999_000, usegmt=True),
    }
    _, number = quota.take()
    quota.observe(answer(**headers), number)
    assert quota.remaining == 0
    clock.now += 29.31  # just past resets_at on the service's clock
    assert quota.remaining in (None, 2)
    assert quota.take() == (0, 2)  # sent, not refused: its answer says
    assert quota.seconds_to_reset() in (None, pytest.approx(0.69))


def test_a_service_clock_a_fraction_of_a_second_behind_is_never_waited_for_too_short() -> None:
    """This machine's clock 0.6 s ahead of the service's, within the second ``Date`` names:
    the window the service ends 3 s after its answer is over 3 s after it here too, never
    sooner (a paced pull once resumed 0.6 s early, its calls counted in the old window)."""
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.6 + (clock.now - 1000))
    headers = {
        "X-Rate-Limit-Limit": "2",
        "X-Rate-Limit-Remaining": "0",
        "X-Rate-Limit-Retry": "999003",  # 3 s after the answer on the service's clock
        "Date": email.utils.formatdate(999_000, usegmt=True),  # the service: 999,000.0
    }
    _, number = quota.take()
    quota.observe(answer(**headers), number)
    wait, number = quota.take()
    assert number == 0 and wait >= 3.0
    clock.now += 2.9  # 2.9 s on: the service's window has 0.1 s to run
    assert quota.take()[1] == 0  # still waiting, nothing sent


def test_an_allowance_takes_calls_in_flight_as_counted_so_others_are_a_lower_bound() -> None:
    """Answers overtake each other: the lowest count may already hold calls still in flight,
    or not yet. The allowance counts as the other traffic's only what the service has
    certainly counted of it: a call in flight never shrinks it, and other traffic's calls
    show once the answers of the calls in flight are in."""
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    headers = {"X-Rate-Limit-Limit": "100", "X-Rate-Limit-Retry": "1003600"}

    def answered(number: int, remaining: int) -> None:
        quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": str(remaining)}), number)

    answered(quota.take()[1], 99)
    with quota.allowance(1.0) as allowance:
        assert (allowance.window_left, allowance.calls) == (99, 99)
        _, first = quota.take()
        _, second = quota.take()
        answered(first, 97)  # the service counted both; the second is still in flight
        assert (allowance.others, allowance.calls) == (0, 99)
        answered(second, 98)  # the late answer: the lowest count stands
        assert (allowance.others, allowance.calls, allowance.left) == (0, 99, 97)
        _, third = quota.take()
        answered(third, 90)  # other traffic spent 6 meanwhile
        assert (allowance.others, allowance.available, allowance.calls) == (6, 93, 93)
        _, fourth = quota.take()  # other traffic spends 1 more, then the service counts it
        _, fifth = quota.take()  # the fourth still in flight: 5 seen, not 7
        assert (allowance.others, allowance.calls) == (5, 94)
        answered(fourth, 88)  # the fifth, not counted yet, is taken as counted: 6 seen of 7
        assert (allowance.others, allowance.calls) == (6, 93)
        answered(fifth, 87)
        assert (allowance.others, allowance.calls, allowance.left) == (7, 92, 87)


def test_calls_in_flight_never_stop_a_work_that_fits_its_share_of_a_quiet_window() -> None:
    """The service counts a call when it receives it. With 8 calls in flight, the answer of the
    one received last may come first, its count already holding the 7 others: taken as
    other traffic's, they would shrink the share by half of 7 and stop a work that fits with
    2 calls to spare on a window nobody else spends."""
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    headers = {"X-Rate-Limit-Limit": "60", "X-Rate-Limit-Retry": "1003600"}
    service = itertools.count(59, -1)  # what the service has left once it counts a call

    def sent() -> tuple[int, int]:
        wait, number = quota.take()
        assert wait == 0
        return number, next(service)

    def answered(number: int, remaining: int) -> None:
        quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": str(remaining)}), number)

    answered(*sent())  # the token: 59 left
    needed = 27
    in_flight: list[tuple[int, int]] = []
    with quota.allowance(0.5) as allowance:
        assert allowance.calls == 29  # half of 59: 2 to spare
        while allowance.spent < needed or in_flight:
            while allowance.spent < needed and len(in_flight) < 8:
                in_flight.append(sent())
            answered(*in_flight.pop())  # the one the service received last answers first
    assert allowance.spent == needed and quota.remaining == 59 - needed
    assert (allowance.others, allowance.calls) == (0, 29)


def test_a_paced_share_shrinks_as_other_traffic_spends_and_its_calls_wait_for_the_reset() -> None:
    """Half of 59 is 29 calls when the pull starts; after its fifth call another client
    spends 40: half of what the window then holds for the pull (59 - 40 = 19) is 9, so the
    pull's tenth call waits for the reset rather than going (nothing raised: it only waits),
    and the next window gives a new share of what it has left."""
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    headers = {"X-Rate-Limit-Limit": "60", "X-Rate-Limit-Retry": "1003600"}
    service = itertools.count(59, -1)  # what the service has left once it counts a call

    def sent() -> None:
        assert quota.ready() == (0, False)
        _, number = quota.take()
        remaining = str(next(service))
        quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": remaining}), number)

    sent()  # the token: 59 left
    with quota.allowance(0.5, paced=True) as allowance:
        assert (allowance.window_left, allowance.calls) == (59, 29)
        for _ in range(5):
            sent()
        for _ in range(40):
            next(service)  # other traffic
        sent()
        assert (allowance.others, allowance.available, allowance.calls) == (40, 19, 9)
        sent()
        sent()
        assert let_start(quota) == (0, False)  # the ninth call, let start: booked
        assert quota.ready() == (3600, True)  # a tenth, started alongside, waits
        _, number = quota._take(True, None)  # the ninth goes, as booked
        quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": str(next(service))}), number)
        assert allowance.in_window == allowance.calls == 9
        assert quota.ready() == (3600, True)  # waits for the reset, however long
        assert quota.remaining == 10 >= (1 - 0.5) * 19  # what other traffic left, kept
        clock.now += 3600  # the window resets: a new share of the whole window
        assert quota.ready() == (0, False)
        assert (allowance.calls, allowance.others, allowance.windows) == (30, 0, [9, 0])


def _after_its_token() -> tuple[Clock, Quota, dict[str, str]]:
    """A quota on a fixed clock whose token request was answered 19 of 20 left, and the
    headers of that window (the same dictionary each answer of it is made from)."""
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    headers = {"X-Rate-Limit-Limit": "20", "X-Rate-Limit-Retry": "1003600"}
    _, number = quota.take()
    quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": "19"}), number)
    return clock, quota, headers


def _share_let_start(quota: Quota, headers: dict[str, str]) -> list[int]:
    """Under a 20-call window with 19 left after the token (``headers`` name it), a paced
    work's share of 9 let start and sent, 3 of them answered: the numbers of the other 6."""
    sent = []
    for _ in range(9):
        assert quota.ready() == (0, False)
        sent.append(quota.take()[1])
    for remaining, number in zip((18, 17, 16), sent[:3], strict=True):
        quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": str(remaining)}), number)
    return sent[3:]


def test_a_paced_works_calls_in_flight_as_the_next_window_begins_count_in_its_share() -> None:
    """The service counts a call when it receives it: 6 calls of a paced work in flight as
    its window ended are counted in the next, whose first answer says 19 left with 5 of them
    still on their way. Taken off that count but not counted as sent in the window, they were
    spent as if by other traffic: a share of 7 (half of 14) and 7 more calls, 13 of the
    window's 20 (its share: 10). Counted in it, 4 more go, then the work waits."""
    _, quota, headers = _after_its_token()
    with quota.allowance(0.5, paced=True) as allowance:
        in_flight = _share_let_start(quota, headers)
        assert quota.ready() == (3600, True)  # the share let start: the next call waits
        headers["X-Rate-Limit-Retry"] = "1007200"  # the service's next window counts them
        for remaining, number in zip(range(19, 13, -1), in_flight, strict=True):
            quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": str(remaining)}), number)
            assert (allowance.calls, allowance.in_window) == (10, 6)
        assert allowance.windows == [3, 6]
        for _ in range(4):
            assert quota.ready() == (0, False)
            quota.take()
        assert quota.ready() == (7200, True)


def test_a_paced_works_call_in_flight_the_window_before_counted_counts_there() -> None:
    """The window ends on this machine's clock with 6 of the work's calls in flight: counted in
    the next window's share until their answers tell; the 5 the window before counted (their
    answers name it) count there, leaving 9 of the new share of 10."""
    clock, quota, headers = _after_its_token()
    with quota.allowance(0.5, paced=True) as allowance:
        in_flight = _share_let_start(quota, headers)
        clock.now += 3600  # the reset, the 6 still in flight
        assert quota.ready() == (0, False)
        assert (allowance.calls, allowance.in_window) == (10, 6)
        for remaining, number in zip(range(15, 10, -1), in_flight, strict=False):
            quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": str(remaining)}), number)
        assert (allowance.calls, allowance.in_window) == (10, 1)
        headers["X-Rate-Limit-Retry"] = "1007200"
        quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": "19"}), in_flight[-1])
        assert (allowance.calls, allowance.in_window, allowance.left) == (10, 1, 9)
        assert allowance.windows == [8, 1]


def test_a_paced_share_resumed_in_its_window_counts_the_calls_its_earlier_runs_sent() -> None:
    """A paced work's first run heard of the window with 60 left (its share: 30) and sent 30
    there; a second run in the same window (59 left after its token) keeps to that share:
    the 30 count against it and its next call waits for the reset. ``earlier`` is asked once
    it can answer (None: its record not open yet), for the window the answers name only; the
    next window gives a whole new share."""
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    ends = 1003600.0
    headers = {"X-Rate-Limit-Limit": "120", "X-Rate-Limit-Retry": f"{ends:.0f}"}
    service = itertools.count(59, -1)  # the first run left 60 of 120: its token takes one
    asked: list[tuple[float, int | None]] = []
    record: list[WindowCalls] = []

    def earlier(at: float, limit: int | None) -> WindowCalls | None:
        asked.append((at, limit))
        return record[0] if record else None

    def sent() -> None:
        _, number = quota.take()
        remaining = str(next(service))
        date = email.utils.formatdate(999_000 + clock.now, usegmt=True)  # the clocks agree
        quota.observe(answer(**headers, Date=date, **{"X-Rate-Limit-Remaining": remaining}), number)

    with quota.allowance(0.5, paced=True, earlier=earlier) as allowance:
        sent()  # the token: 59 left, and the window named
        assert asked == [(ends, 120)] and allowance.carried == 0  # not open yet
        record.append(WindowCalls(ends, 120, sent=30, held=60))
        assert quota.ready() == (3600, True)  # asked again first: the 30 are its share
        assert (allowance.carried, allowance.calls, allowance.in_window) == (30, 30, 31)
        assert allowance.windows == [1]  # this run's own calls
        # its end on this machine's clock too, which here runs with the service's
        assert allowance.this_window == WindowCalls(ends, 120, sent=31, held=60, here=ends)
        spent = str(AllowanceSpent(allowance))
        # not "by its earlier runs": a plan's re-read and earlier parts count there too
        assert (
            "share (0.5) of the call budget, 30 calls, 30 of them sent earlier in this window,"
            in spent
        ), spent
        assert len(asked) == 2
        clock.now += 3600  # the next window: a whole share, nothing asked of it
        headers["X-Rate-Limit-Retry"] = f"{ends + 3600:.0f}"
        service = itertools.count(119, -1)
        assert quota.ready() == (0, False)
        sent()
        assert (allowance.carried, allowance.calls, allowance.in_window) == (0, 60, 1)
        assert len(asked) == 2 and allowance.windows == [1, 1]


@pytest.mark.parametrize(
    ("ahead", "reckoned"),
    [
        (0, True),
        (CLOCK_AGREES, True),
        (-CLOCK_AGREES, True),
        (CLOCK_AGREES + 1, False),
        (-CLOCK_AGREES - 2, False),
        (-30 * 86_400, False),  # a sandbox's fixed clock, a month behind
        (None, False),  # no Date
    ],
)
def test_a_windows_end_is_reckoned_here_only_while_the_services_clock_agrees(
    ahead: float | None, reckoned: bool
) -> None:
    """A paced work's window record says its end on this machine's clock (``here``) only when
    the answer's ``Date`` was within ``CLOCK_AGREES`` of it: a sandbox's fixed clock (a month
    behind) or one moved on starts windows this machine cannot foresee, and an answer without
    ``Date`` does not say the service's clock. The window is known either way."""
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    service = 1_000_000.0 + (ahead or 0)  # the service's clock as it answers
    headers = {"X-Rate-Limit-Limit": "120", "X-Rate-Limit-Remaining": "100"}
    headers["X-Rate-Limit-Retry"] = f"{service + 600:.0f}"
    if ahead is not None:
        headers["Date"] = email.utils.formatdate(service, usegmt=True)
    with quota.allowance(0.5, paced=True) as allowance:
        _, number = quota.take()
        quota.observe(answer(**headers), number)
        window = allowance.this_window
    assert window is not None and window.ends == service + 600
    assert window.here == (1_000_600.0 if reckoned else None)


def test_a_paced_run_again_counts_its_first_call_in_the_window_its_last_run_was_in() -> None:
    """Before any answer names the window, a paced work's first call (its token request) counts
    against the share of the window its last run was in (``recorded``), while this machine's
    clock is before that window's end there: spent (30 of the 60 it held), the call waits for
    that end, sending nothing; with one call left, that one starts and a second waits."""
    clock = Clock()

    def wall() -> float:
        return 999_000.0 + clock.now

    quota = Quota(max_wait=60, clock=clock, wall=wall)
    record = WindowCalls(1003600.0, 120, sent=30, held=60, here=wall() + 100)
    with quota.allowance(
        0.5, paced=True, earlier=lambda at, limit: record, recorded=lambda: record
    ) as allowance:
        assert quota.ready() == (100, True)  # nothing sent: it waits for the recorded end
        assert (allowance.left, quota.calls_used) == (0, 0)
        clock.now += 100  # past it here: the call goes, and its answer names the window
        assert quota.ready() == (0, False)
    record = WindowCalls(1003600.0, 120, sent=29, held=60, here=wall() + 100)
    with quota.allowance(
        0.5, paced=True, earlier=lambda at, limit: record, recorded=lambda: record
    ):
        assert let_start(quota) == (0, False)  # the share's last call
        assert quota.ready() == (100, True)


def test_a_resumed_paced_share_without_the_window_s_start_takes_what_is_left_plus_all_sent() -> (
    None
):
    """Without ``held`` (a record from before it was kept), the share is of what the window
    has left plus every call the work sent in it: 59 + 29 (this run's token went before it
    took the allowance)."""
    clock = Clock()
    quota = Quota(max_wait=60, clock=clock, wall=lambda: 999_000.0 + clock.now)
    headers = {"X-Rate-Limit-Limit": "120", "X-Rate-Limit-Retry": "1003600"}
    _, number = quota.take()
    quota.observe(answer(**headers, **{"X-Rate-Limit-Remaining": "59"}), number)

    def earlier(at: float, limit: int | None) -> WindowCalls:
        return WindowCalls(at, limit, sent=29)

    with quota.allowance(0.5, paced=True, earlier=earlier) as allowance:
        assert (allowance.window_left, allowance.calls, allowance.carried) == (88, 44, 29)
        assert allowance.in_window == 29  # the token went before the allowance was taken
