"""The project's call budget as this client knows it: read from every answer, kept by every call.

The service reports its hourly (or per-minute) budget on every answer:
``X-Rate-Limit-Limit`` (the window's budget), ``X-Rate-Limit-Remaining``,
``X-Rate-Limit-Retry`` (when the next call may be made, Unix epoch seconds) and,
once a limit is reached, ``Retry-After`` (seconds) and ``X-Rate-Limit-Type``.
A call over budget is refused with 429 and access stays blocked until the
window resets, so the client never sends a call it knows will be refused: it
waits for the reset when that is within ``max_wait``, else raises
``QuotaExhaustedError``.

Clocks: the reset is held on this machine's monotonic clock, as a delay from
the answer that announced it. ``Retry-After`` is such a delay already; the
epoch of ``X-Rate-Limit-Retry`` is turned into one against the answer's own
``Date`` header (the server's clock, to the second: the start of that second stands
for the answer's instant, so the wait is never short, even when this machine's clock
differs from the server's by a fraction of a second), and against this machine's
clock only when an answer has no ``Date``. A server clock ahead or behind this
machine's therefore does not move the wait. Read against a ``Date`` the reset may be
up to a second early of the one held: from then on
(``resets_at`` may have passed) ``remaining`` is unknown, and a call is sent when the
client may not wait (``max_wait``) and read afresh: the budget is never a stale 0.
The window's end on this machine's wall clock (what a paced work records of it,
``WindowCalls.here``) is reckoned only while the answers' ``Date`` is within
``CLOCK_AGREES`` of that clock: a sandbox's fixed or moved clock starts windows this
machine's cannot foresee, so there it is not known (None).

Windows: an answer's window is named by its ``X-Rate-Limit-Retry`` (the window's
end on the service's clock). An answer for the current window lowers ``remaining``;
one for a later window, or carrying a new ``limit`` (the plan changed), replaces the
count and the reset at once; only an answer for an earlier window is ignored (a paced
allowance counts its call there, not in the window its flight ran into). Once
the reset has passed on this machine's clock the window is refilled to ``limit``.
``resets_at`` is the service's own instant, so it reads as the service says.

The billing cycle: a project's plan also gives it calls per billing cycle (a month's, say);
past them the service lets calls through, each answer's ``X-Rate-Limit-Type`` reading
``api_calls_cycle`` (``cycle_reached``). No header counts the cycle's calls: ``cycle``
is the budget of the published plan whose hourly budget the answers report, or the one
the client was given (``cycle_calls``). A paced allowance sends nothing once the cycle is
reached (``CycleSpent``): a work paced over days stops rather than overdraw the cycle.

Every call sent is counted (``calls_used``); one stopped before it went out is not.
``remaining`` is never more than the service will allow: the lowest count any answer of
the current window reported, less every call still awaiting its answer (the service may or
may not have counted those yet). Answers that overtake each other therefore can only
make the count low for as long as calls are in flight, never high. When that
low count reaches 0 while answers are still due, the client waits for them
(``POLL`` at a time, ``POLL_FOR`` at most: a call abandoned in flight is never
answered) before deciding the budget is spent.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Literal, TypeVar

import httpx

from .._plans import CYCLE_REMINDER, Cycle, published_plan
from .._progress import Progress, ProgressBar
from .._text import counted, figure
from ..errors import QuotaExhaustedError, RateLimitError, api_error, time_after
from ._core import date_second, parse_retry_after
from .allowance import Allowance, AllowanceSpent, CycleSpent, Earlier, Recorded, WindowCalls
from .config import Rate
from .paced_floor import check_paced_share

__all__ = ["Quota"]

N = TypeVar("N", int, float)
Window = Literal["new", "current", "earlier"]

BAR_FROM = 1.0
"""Waits at least this long (seconds) show a progress bar."""
POLL = 0.05
"""Seconds between looks while a spent budget waits for the answers still on their way."""
POLL_FOR = 1.0
"""Seconds at most that such looks go on before the count is taken as it stands."""
BUDGET_REFUSAL = "api_calls"
"""``X-Rate-Limit-Type`` of a 429 refusing its call because the window's budget is spent."""
WINDOW_SLACK = 0.5
"""Seconds two answers' window ends (``X-Rate-Limit-Retry``) may differ and still name the
same window."""
CLOCK_AGREES = 300.0
"""Seconds an answer's ``Date`` (the service's clock) may stand from this machine's wall clock
as it is read, and the two clocks still be taken to run together. Only then is a window's end
reckoned on this machine's clock (``Quota._ends_here``, recorded as ``WindowCalls.here``): a
real service's clock runs with an NTP'd machine's, while a sandbox's fixed clock (far from
now) or one moved on starts windows this machine's clock cannot foresee."""


class Quota:
    """The call budget of the current window and this client's use of it; thread-safe.

    ``limit``, ``remaining``, ``resets_at`` and ``type`` are ``None`` until an
    answer carries the headers (a service or sandbox that sends none leaves them
    unknown, and the client then never waits). ``calls_used`` counts every request
    this client sent, token requests and retries included.
    """

    def __init__(
        self,
        *,
        max_wait: float,
        rate: Rate | None = None,
        cycle_calls: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.max_wait = max_wait
        self.rate = rate
        self.cycle_calls = cycle_calls
        self._clock = clock
        self._wall = wall
        self._lock = threading.Lock()
        self._limit: int | None = None
        self._reset: float | None = None
        """Monotonic time at which the window resets."""
        self._soonest: float | None = None
        """Monotonic time from which the window may have reset (``Date`` is to the second)."""
        self._ends: float | None = None
        """The current window's end on the service's clock (epoch seconds)."""
        self._ended: float | None = None
        """The end of the last window this client saw pass, on the service's clock."""
        self._agreed = False
        """Whether every answer of the current window that told its end had a ``Date`` within
        ``CLOCK_AGREES`` of this machine's clock (its end is then reckoned here too)."""
        self._type: str | None = None
        self._used = 0
        self._numbered = 0
        """The number of the latest call taken (``take``): calls not sent (``unsent``) keep
        theirs, so a number is never given twice."""
        self._reported: int | None = None
        """The lowest ``remaining`` an answer of the current window reported."""
        self._in_flight: set[int] = set()
        """Numbers of the calls sent and not yet answered."""
        self._starts = 0
        """The number of the latest call let start (``ready``): a paced share books it by it."""
        self._polling_since: float | None = None
        self._next_start = -math.inf
        self._allowances: list[Allowance] = []
        self._windows = 0
        """How many windows this client has seen begin (a reset, a new limit)."""
        self._reminded: int | None = None
        """The number of the latest call whose answer carried the billing cycle's reminder,
        until a call sent after it is answered without (a new cycle)."""
        self._refusals = 0
        self._refused: QuotaExhaustedError | None = None
        """The latest ``QuotaExhaustedError`` for the service's own 429 (``refused``): a pull
        refused unsent for the window it spent names it instead (``fill.pull``)."""

    def after_fork(self) -> None:
        """In a child just forked: a new lock (another thread may have held the old one),
        and none of the parent's calls in flight."""
        self._lock = threading.Lock()
        self._in_flight = set()

    @property
    def limit(self) -> int | None:
        """The budget of the current window (calls), as the service last reported it."""
        return self._limit

    @property
    def remaining(self) -> int | None:
        """Calls left in the window: the service's lowest count less the calls in flight."""
        with self._lock:
            return self._left()

    @property
    def type(self) -> str | None:
        """Which limit was reached (``api_calls``, ...), while the service says one is."""
        return self._type

    @property
    def cycle(self) -> Cycle | None:
        """The project's billing cycle budget: the client's ``cycle_calls``, else the
        published plan's whose hourly budget the answers report (None: neither known)."""
        if self.cycle_calls is not None:
            return Cycle(self.cycle_calls)
        plan = published_plan(self._limit)
        return None if plan is None else Cycle(plan.cycle, plan.name)

    @property
    def cycle_reached(self) -> bool:
        """Whether the service's answers say the billing cycle's budget is spent (it lets
        calls through, with this reminder): one did, and no call sent after it was answered
        without it."""
        return self._reminded is not None

    @property
    def calls_used(self) -> int:
        """Requests this client has sent."""
        return self._used

    @property
    def refusals(self) -> int:
        """Answers this client has read that refused their call (429), the budget's or
        another limit's."""
        return self._refusals

    def refusal_after(self, calls: int) -> QuotaExhaustedError | None:
        """The error made of the service's latest budget refusal (a 429 this client sent
        and read: its ``sent`` is true) when that call came after this client's first
        ``calls``; else None. Calls refused unsent in the window it spent each raise their
        own error; this is the one that spent it."""
        refused = self._refused
        return refused if refused is not None and refused.calls_used > calls else None

    @property
    def resets_at(self) -> datetime | None:
        """When the window resets (UTC, on the service's clock), if the service said and it
        has not passed yet."""
        with self._lock:
            self._roll()
            return _instant(self._ends)

    def seconds_to_reset(self) -> float | None:
        """Seconds until the window resets, or None when unknown (or passed)."""
        with self._lock:
            self._roll()
            return None if self._reset is None else self._reset - self._clock()

    def __repr__(self) -> str:
        at = self.resets_at
        when = "unknown" if at is None else f"{at:%Y-%m-%d %H:%M:%S} UTC"
        return (
            f"Quota(limit={self._limit}, remaining={self.remaining}, resets_at={when}, "
            f"type={self._type!r}, calls_used={self._used})"
        )

    @contextlib.contextmanager
    def allowance(
        self,
        share: float,
        *,
        paced: bool = False,
        earlier: Earlier | None = None,
        recorded: Recorded | None = None,
    ) -> Iterator[Allowance]:
        """Hold ``share`` of the calls left in the window for the work inside the block: a
        call beyond it is not sent (``AllowanceSpent``); with ``paced``, ``share`` of every
        window, a call beyond it waiting for the next window, the calls ``earlier`` says the
        work's earlier runs sent in the window it starts in counted against that window's
        share; ``recorded``, the window their last run was in, holds the calls sent before an
        answer names one. See ``lyt_toolkit.client.allowance``; a ``ValueError`` names
        ``budget_share`` when ``share`` is not above 0 and at most 1, or, paced, when its part
        of a whole window cannot hold a token request and the call it serves
        (``PacedShareTooSmall``: here when the budget is known, else before the call after the
        answer that tells it, ``ready``)."""
        with self._lock:
            held = Allowance(
                share,
                lambda: self._used,
                self._left(),
                self._windows,
                paced=paced,
                where=lambda: (self._ends, self._limit, self._ends_here()),
                earlier=earlier,
                recorded=recorded,
                wall=self._wall,
                numbered=self._numbered,
            )
            if paced:
                check_paced_share(share, self._limit)
            self._allowances.append(held)
        try:
            yield held
        finally:
            with self._lock:
                self._allowances.remove(held)

    def _ends_here(self) -> float | None:
        """The window's reset on this machine's wall clock (Unix seconds), if known and the
        service's clock agreed with this machine's as its answers told it (``CLOCK_AGREES``);
        else None."""
        if self._reset is None or not self._agreed:
            return None
        return self._wall() + self._reset - self._clock()

    def window_calls(self, held: Allowance) -> WindowCalls | None:
        """What the paced work holding ``held`` (its earlier runs included) has spent of the
        current window, read whole under the lock (``Allowance.this_window``)."""
        with self._lock:
            return held.this_window

    # -- what the drivers call ------------------------------------------------

    def observe(self, response: httpx.Response, sent: int) -> None:
        """Read the budget headers of the answer to call number ``sent`` (see ``take``).

        An answer for the current window lowers the count (the lowest stands) and
        brings the reset forward; a 429 of the window's budget (``spends_window``), an
        answer for a later window or one with a new limit replaces count and reset; one
        for an earlier window is ignored. A 429 of no budget (a proxy, a fault) is read as
        any answer, its ``Retry-After`` aside; one of another limit (``bulk_api_calls``)
        only ends the call's flight, its headers that limit's. An answer without the
        headers only ends the call's flight. Each allowance held follows the count
        (``Allowance.track``).
        """
        headers = dict(response.headers.items())  # one pass: each ``get`` scans them all
        refused = response.status_code == 429 and spends_window(headers)
        other_limit = response.status_code == 429 and not refused and "x-rate-limit-type" in headers
        limit = _whole(headers.get("x-rate-limit-limit"))
        remaining = _whole(headers.get("x-rate-limit-remaining"))
        answered, early = _answered_at(headers.get("date"), self._wall)
        agrees = _clocks_agree(headers.get("date"), self._wall)
        ends = _epoch(headers.get("x-rate-limit-retry"))
        wait = parse_retry_after(headers.get("retry-after")) if refused else None
        if wait is None and ends is not None:
            wait = max(0.0, ends - answered)  # up to ``early`` s long
        else:
            early = 0.0  # a 429's Retry-After is taken as said
        if ends is None and wait is not None:
            ends = answered + wait
        now = self._clock()
        with self._lock:
            self._in_flight.discard(sent)
            self._polling_since = None
            self._refusals += int(response.status_code == 429)
            if other_limit:  # its headers are that limit's
                return
            self._note_cycle(headers.get("x-rate-limit-type"), sent)
            if limit is None and remaining is None and not (refused and wait is not None):
                return
            self._roll()
            window = "new" if refused else self._window_of(limit, ends)
            if window == "earlier":  # a late answer from a window already over: its count is stale
                for held in self._allowances:
                    held.counted_before(sent)  # the call as well
                return
            if limit is not None:
                self._limit = limit
            if refused:
                remaining = 0
            reset = None if wait is None else now + wait
            soonest = None if wait is None else now + max(0.0, wait - early)
            if window == "new":
                if not (self._ends is None and self._ended is not None):
                    self._windows += 1  # not the window this client already rolled into
                self._reported, self._reset, self._soonest = remaining, reset, soonest
                self._ends, self._ended = ends, None
                self._agreed = agrees
            else:
                self._agreed = self._agreed and agrees
                if remaining is not None:
                    self._reported = _lowest(self._reported, remaining)
                self._reset = _lowest(self._reset, reset)  # the service's clock may have moved
                self._soonest = _lowest(self._soonest, soonest)
                self._ends = self._ends if ends is None else ends
            self._type = headers.get("x-rate-limit-type")
            if self._allowances:
                left, reported = self._counts()  # as this answer tells
                in_flight = self._in_flight | {sent}  # the call answered: counted in its window
                for held in self._allowances:
                    held.track(left, self._windows, reported=reported, in_flight=in_flight)

    def take(self) -> tuple[float, int]:
        """Count one request about to be sent: ``(0, its number)`` (for ``observe``), or the
        seconds until the window resets (nothing counted) and 0 when the budget is known to be
        spent, or when a paced allowance's share has no room for it. ``AllowanceSpent`` when
        the request would go beyond an allowance held (``allowance``), or a paced share with no
        reset known: nothing is counted and it is not sent. ``ready`` books no call, so each
        request counted here must fit a paced share (the client's own calls are booked as they
        start, and counted by ``_take``)."""
        return self._take(False, None)

    def _take(self, booked: bool, start: int | None) -> tuple[float, int]:
        """``take``; a ``booked`` request is the first of the call let start as ``start`` (None:
        the earliest booked), whose booking each allowance lets go once the request is counted
        (not before: another allowance may still refuse it, and the call is handed back)."""
        with self._lock:
            self._refuse_past_cycle()
            wait = self._spent_for()
            if wait > 0:
                return wait, 0
            if self._allowances:
                left, reported = self._counts()
                full = [
                    held
                    for held in self._allowances
                    if not held.admit(
                        left,
                        self._windows,
                        reported=reported,
                        in_flight=self._in_flight,
                        booked=booked,
                    )
                ]
                if full:
                    return self._share_wait(full), 0
            self._used += 1
            self._numbered += 1
            self._in_flight.add(self._numbered)
            if booked:
                for held in self._allowances:
                    held.unbook(start)
            return 0.0, self._numbered

    @property
    def pacing(self) -> bool:
        """Whether a paced allowance is held: waits for a window's reset are then taken
        however long (``max_wait`` does not bound them)."""
        return any(held.paced for held in self._allowances)

    @property
    def pace_shown(self) -> bool:
        """Whether a paced allowance held shows its work's own progress (``Allowance.shown``):
        a wait for a window then shows no bar of its own."""
        return any(held.paced and held.shown for held in self._allowances)

    def ready(self) -> tuple[float, bool]:
        """Seconds before a new call may start, and whether it is the budget's reset (the
        window spent, or a paced allowance's share of it) rather than the ``rate``'s
        spacing; ``(0, False)`` when one may start now. A look: nothing is booked, so asking
        without a call following takes nothing of a paced share nor of the spacing (the
        client books each of its calls as it lets it start). Raises what a call would meet:
        ``CycleSpent`` (a paced allowance held, the billing cycle spent) and
        ``PacedShareTooSmall`` (a paced allowance held cannot pace under the budget now: the
        project's plan changed since it was taken, its ``was`` the budget before)."""
        wait, spent, _ = self._ready(book=False)
        return wait, spent

    def _ready(self, *, book: bool = True) -> tuple[float, bool, int]:
        """``ready``, with the number of the start when the call may start now (0 when not,
        or not ``book``ed): the start is then booked, so the next waits its spacing and the
        paced shares count it by its number (``_take``, ``_unbook``). A paced share whose part
        of a whole window cannot hold a token request and the call it serves is refused
        (``PacedShareTooSmall``: the budget was not known as it was taken, or the plan
        changed)."""
        with self._lock:
            self._refuse_past_cycle()
            paced = [held for held in self._allowances if held.paced]
            for held in paced:
                check_paced_share(held.share, self._limit, held.paced_under)
                held.paced_under = self._limit  # the budget it paces under: named if it falls
            wait = self._spent_for()
            if wait > 0:
                return wait, True, 0
            left, reported = self._counts()
            for held in paced:
                held.track(left, self._windows, reported=reported, in_flight=self._in_flight)
            full = [held for held in paced if not held.fits()]
            if full:
                return self._share_wait(full), True, 0
            now = self._clock()
            if self.rate is not None and now < self._next_start:
                return self._next_start - now, False, 0
            if not book:
                return 0.0, False, 0
            if self.rate is not None:
                self._next_start = now + self.rate.interval
            self._starts += 1
            for held in paced:
                held.book(self._starts)
            return 0.0, False, self._starts

    def _unbook(self, start: int) -> None:
        """The call let start as ``start`` (``_ready``) ended before its first request was
        counted (``_take``): the paced shares that booked it no longer do."""
        with self._lock:
            for held in self._allowances:
                held.unbook(start)

    def _share_wait(self, full: list[Allowance]) -> float:
        """Seconds until the window whose paced shares ``full`` are spent resets (before an
        answer named it: until the window their last run was in ends, ``presumed``);
        ``AllowanceSpent`` when no reset is known: the share cannot be paced."""
        until = None if self._reset is None else self._reset - self._clock()
        if until is None:  # a window its last run was in, presumed not over
            presumed = [held.presumed_wait() for held in full]
            until = max((w for w in presumed if w is not None), default=None)
        if until is not None and until > 0:
            return until
        raise AllowanceSpent(full[0])

    def _note_cycle(self, kind: str | None, sent: int) -> None:
        """Follow the billing cycle's reminder: an answer carrying it marks the cycle spent;
        only the answer of a call sent after that one, without it, says a new cycle began (a
        late answer of a call sent before says nothing of it)."""
        if kind == CYCLE_REMINDER:
            self._reminded = max(self._reminded or 0, sent)
        elif self._reminded is not None and sent > self._reminded:
            self._reminded = None

    def _refuse_past_cycle(self) -> None:
        """``CycleSpent`` for a paced allowance held once the billing cycle is reached."""
        if self._reminded is not None:
            for held in self._allowances:
                if held.paced:
                    raise CycleSpent(held)

    def _window_of(self, limit: int | None, ends: float | None) -> Window:
        """Which window an answer is for: ``new`` (a later one, or a new limit: the plan
        changed), ``earlier`` (already over) or ``current``."""
        if limit is not None and self._limit is not None and limit != self._limit:
            return "new"
        if ends is None:
            return "current"
        known = self._ends if self._ends is not None else self._ended
        if known is None or ends > known + WINDOW_SLACK:
            return "new"
        if ends < known - WINDOW_SLACK or self._ends is None:
            return "earlier"
        return "current"

    def _roll(self) -> None:
        """Past the reset (on this machine's clock), refill the window to ``limit``; its end
        is unknown until an answer tells it."""
        if self._reset is not None and self._clock() >= self._reset:
            self._refill()

    def _refill(self) -> None:
        self._windows += 1
        self._reported = self._limit
        self._reset = self._soonest = None
        self._ended = self._ends if self._ends is not None else self._ended
        self._ends = None

    def _left(self) -> int | None:
        """The calls left, unknown (None) once the window may have reset."""
        counted = self._counted()
        if self._soonest is not None and self._clock() >= self._soonest:
            return None  # resets_at may have passed: the next answer tells
        return counted

    def _counts(self) -> tuple[int | None, int | None]:
        """The calls left (``_left``) and the lowest count reported in the window, the calls
        in flight not taken off it; both None when unknown."""
        left = self._left()
        return left, None if left is None else self._reported

    def _counted(self) -> int | None:
        """The calls left as counted in the window, whether or not it may have reset."""
        self._roll()
        if self._reported is None:
            return None
        return max(0, self._reported - len(self._in_flight))

    def _spent_for(self) -> float:
        """Seconds to wait while the budget is spent; 0 once a call may go.

        A count at 0 with answers still due first waits for them (``POLL`` at a
        time, ``POLL_FOR`` at most), unless the window ends within ``max_wait``
        anyway. Past the reset the window is refilled to ``limit`` (unknown
        budget: no waiting) and its end is unknown until an answer tells it. Once
        the window may have reset (``_left`` unknown) the client waits for the reset
        only within ``max_wait``, else sends: the answer says.
        """
        left = self._counted()
        if left is None or left > 0:
            return 0.0
        until_reset = None if self._reset is None else self._reset - self._clock()
        resets_soon = until_reset is not None and until_reset <= self.max_wait
        if self._left() is None and not resets_soon:
            return 0.0  # it may have reset already: the next answer tells
        if self._in_flight and not resets_soon and self._limit is not None:
            now = self._clock()
            if self._polling_since is None:
                self._polling_since = now
            if now - self._polling_since < POLL_FOR and self.max_wait >= POLL:
                return POLL
        if until_reset is not None and until_reset > 0:
            return until_reset
        self._polling_since = None
        self._refill()
        return 0.0

    def unanswered(self, sent: int) -> None:
        """Call number ``sent`` got no answer (a transport error, or abandoned): none is due."""
        with self._lock:
            self._in_flight.discard(sent)

    def unsent(self, taken: int) -> None:
        """Call number ``taken`` was stopped before it went out (``StoppedError``): it is
        not counted, neither in ``calls_used`` nor against an allowance held."""
        with self._lock:
            if taken in self._in_flight:
                self._in_flight.discard(taken)
                self._used -= 1

    # -- errors ---------------------------------------------------------------

    def exhausted(self, method: str, path: str, wait: float) -> QuotaExhaustedError:
        """The error for a call not sent because the window resets ``wait`` s from now."""
        used, at = self._used, self._reset_instant(wait)
        message = (
            f"not sent: the call budget ({self._describe_limit()}) is spent and its window "
            f"resets {_when(wait, at)}, beyond max_wait ({self.max_wait:g} s); this client has "
            f"sent {counted(used, 'call')}"
        )
        error = QuotaExhaustedError(
            429, message, calls_used=used, sent=False, retry_after=wait, method=method, path=path
        )
        error.retry_at = at
        return error

    def refused(self, error: RateLimitError) -> QuotaExhaustedError:
        """The error for a 429 whose ``Retry-After`` is beyond ``max_wait``."""
        used, wait = self._used, error.retry_after
        at = self._reset_instant(wait)
        advice = (
            f"the call budget ({self._describe_limit()}) resets {_when(wait, at)}, beyond "
            f"max_wait ({self.max_wait:g} s); this client has sent {counted(used, 'call')}"
        )
        hint = f"{error.hint}; {advice}" if error.hint else advice.capitalize()
        exhausted = api_error(
            QuotaExhaustedError,
            error.status,
            error,
            calls_used=used,
            sent=True,
            retry_after=wait,
            body=error.body,
            method=error.method,
            path=error.path,
            hint=hint,
        )
        exhausted.retry_at = at
        self._refused = exhausted
        return exhausted

    def _reset_instant(self, wait: float | None) -> datetime | None:
        """When the window resets on the service's clock, else ``wait`` s from now here."""
        return _instant(self._ends) or time_after(wait)

    def _describe_limit(self) -> str:
        kind = self._type or "api_calls"
        return kind if self._limit is None else f"{kind}, {figure(self._limit)} per window"


WINDOW_WAIT = "call budget spent, waiting for its window to reset"
REFUSAL_WAIT = "refused (429, not for the call budget), waiting as the service asked"


def waits(seconds: float, progress: Progress = True, desc: str = WINDOW_WAIT) -> Iterator[float]:
    """Pieces of at most a second adding up to ``seconds``; a long wait counts down on a bar
    (``desc``)."""
    if seconds < BAR_FROM:
        yield seconds
        return
    total = math.ceil(seconds)
    with ProgressBar(progress, desc=desc, unit="s", total=total) as bar:
        left = seconds
        while left > 0:
            piece = min(1.0, left)
            yield piece
            left -= piece
            bar.advance(1 if left > 0 else total - bar.done)


def spends_window(headers: Mapping[str, str]) -> bool:
    """Whether a 429's headers (names in lower case, or an ``httpx.Headers``) say the
    window's budget is spent: ``X-Rate-Limit-Type: api_calls``, or no type and
    ``X-Rate-Limit-Remaining: 0``. Another type (``bulk_api_calls``, ``webhook_calls``) is
    another limit, and a 429 with neither (a proxy, a per-IP limit, a fault) is of none:
    taken as the window's end, its short ``Retry-After`` would read as the whole budget
    back, and a work's share would start again on it."""
    kind = headers.get("x-rate-limit-type")
    if kind is not None:
        return kind.strip() == BUDGET_REFUSAL
    return _whole(headers.get("x-rate-limit-remaining")) == 0


def _whole(value: str | None) -> int | None:
    """A header's whole number, or None when absent or not one (a value is never trusted)."""
    try:
        number = int(value.strip()) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and number >= 0 else None


def _epoch(value: str | None) -> float | None:
    """A header's Unix epoch seconds, or None when absent or not a finite number."""
    try:
        at = float(value) if value is not None else math.nan
    except ValueError:
        return None
    return at if math.isfinite(at) else None


def _answered_at(date: str | None, wall: Callable[[], float]) -> tuple[float, float]:
    """When the server answered, on its clock, and how much later it may have been: the start
    of the second ``Date`` names (up to 1 s early, so a wait read against it is never short,
    however this machine's clock stands within that second); this machine's time without
    ``Date``."""
    second = date_second(date)
    if second is not None:
        return second, 1.0
    return wall(), 0.0


def _clocks_agree(date: str | None, wall: Callable[[], float]) -> bool:
    """Whether the second ``Date`` names is within ``CLOCK_AGREES`` of this machine's clock
    (``wall``) now; False without ``Date`` (the service's clock unknown)."""
    second = date_second(date)
    return second is not None and abs(wall() - second) <= CLOCK_AGREES


def _instant(epoch: float | None) -> datetime | None:
    """``epoch`` as a UTC datetime; None when unknown or beyond the calendar."""
    if epoch is None:
        return None
    try:
        return datetime.fromtimestamp(epoch, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _lowest(known: N | None, new: N | None) -> N | None:
    """The lower of two values, either of which may be unknown."""
    if known is None or new is None:
        return new if known is None else known
    return min(known, new)


def _when(seconds: float | None, at: datetime | None) -> str:
    if seconds is None:
        return "at a time the service did not say"
    instant = "much later" if at is None else f"at {at:%Y-%m-%d %H:%M:%S} UTC"
    return f"{instant}, in {seconds:,.0f} s"
