"""A share of the call budget for one piece of work: calls beyond it are refused unsent.

The service gives a project one budget per window for all of its traffic (the checkout,
the member app, this toolkit). A long piece of work, such as a snapshot pull, takes an
``Allowance``: a share of the calls left in the window when it starts (``share`` of
``Quota.remaining``). While the allowance is held, every call the client is about to send
is counted against it, and the call that would go beyond it is not sent:
``AllowanceSpent`` is raised instead. The work decides before each of its stages whether
the stage fits (``left``); the allowance is the guarantee that it never sends more, even
where its count was a bound.

The share is of what the window holds for the work, not of a figure read once: the other
traffic spends the same window. After each answer and before each call, the lowest count
an answer of the window reported plus every call the work has sent (those in flight
included) is at least what the window had at the start less what other traffic spent
since: the rest of the start is ``others``, the other traffic's calls the service has
certainly counted. The allowance is ``share`` of the start less ``others``, so it shrinks as
other traffic spends, and the work may be stopped partway through a stage; it is counted
afresh each time, and never above its start (other traffic gives no calls back). The same
rule corrects a stale start: a client whose last answer is old takes a share of that
answer's count, and the first answer the work receives sets it right. ``others`` is a lower
bound: the service counts a call when it receives it, so the count may or may not hold the
work's calls in flight, and they are taken as counted. Calls in flight therefore never make
a quiet window look spent; ``others`` errs low by at most the calls in flight, so the share
may be of up to that many calls more than the window really holds (a few, at most the
work's concurrency).

With the budget unknown when the work starts (no answer has carried the limit headers
yet), the allowance is set from the first answer that does: ``share`` of what that answer
left plus what the work had sent by then; likewise when a new window begins while the work
goes on (the window reset, or the plan changed). A service that never sends the headers
leaves the allowance unknown and nothing is refused.

A paced allowance (``paced=True``, a checkpointed pull) is ``share`` of every window
instead: each window gives a new share of what it has left, and within the window the share
follows other traffic by the same rule (``others`` counted against the calls the work sent
in this window). When this window's share is spent, or has shrunk to what the work already
sent in it, the next call waits for the window to reset (``Quota.ready``) instead of being
sent: other traffic slows a paced work, and never stops it nor takes the window beyond the
work's share of what that traffic left. Its share of a whole window must hold a token request
and the call it serves (``paced_floor``): a smaller one is refused as it is taken, or, the
budget not known then, before the call after the answer that tells it (``Quota``). Calls are
booked as they are let start (by their start's number), until their first request is
counted or they end before it is sent (handed back), so concurrent calls never take the
window beyond its share. A booking is only the allowance's that made it, and is let go once;
one made as a window ends is carried into the next window's share, where its call is sent. A
call already let start when the share shrinks still goes (at most the work's concurrency,
the bound ``others`` errs by). A call's first request is the one booked; any other it sends
(a retry, the token request and the call again after a 401) goes only while the share holds
it beside the calls booked (``fits``), else the call waits for the reset and is sent again in
the next window, as a call finding the window spent does.

A paced work may hold calls back (``holding_back``): a saved plan's re-read of a chunk holds back
the chunk's writes, so its reads go only while this window's share holds the writes beside
them, else they wait for the next window, where nothing is held back (a chunk larger than a
share never waits for ever); its objects are then read in the window they are written in.

A new window may count calls the work sent before it began: those still in flight as it
begins (the service counts a call when it receives it), and the one whose answer told of it.
A paced allowance counts them as sent in the new window (its count of what the window left
takes them off, as the service may have counted them there), until an answer of the window
before says it counted one (``counted_before``): taken off the window's count and not
counted as sent in it, they would be neither the work's nor left, spent as if by other
traffic, and the work would send beyond its share of the window.

A paced work may run again in the same window (a pull resumed after Ctrl-C): the share is
then the one its first run in the window took, not a new one of what that run left. Given
``earlier``, the allowance asks it, once it knows the window (its end and budget, from the
first answer), what the work's earlier runs did in it (``WindowCalls``): their calls count
against the share as this run's do (``carried``), and the share is of what the window held
for the work when the first of them heard of it (``held``: the calls it had left then plus
those the work had sent in it), less ``others``; without ``held``, of what this run finds left
plus every call sent in it. Only the run's first window is asked: the earlier runs ended
before this one began. ``earlier`` may answer None while their record is not open yet; it is
asked again before the next call.

The first call of a run resumed in that window (its token request) goes out before any answer
has named the window, so it cannot be counted there by what an answer tells. Given
``recorded``, the allowance counts it against the window the work's last run was in, while
this machine's clock says that window may not be over (before ``WindowCalls.here``, its end as
measured by that run): the share of what it held for the work, less what the runs sent there
(``presumed``). When they spent it, the call waits for that end instead of going, as a call
beyond the share waits for the reset. That end is recorded only when the service's clock
agreed with this machine's as the window was heard (``quota.CLOCK_AGREES``): a sandbox's fixed
or moved clock gives no ``here``, and a run again there sends its one call to learn the window
(a move it could not foresee never makes it wait). A running sandbox clock moved on after the
record was made is the one case left: its new window is learnt only at the recorded end.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._shares import share_of
from .._text import counted
from ..errors import LytError, PullBudgetError, WayForward

if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "DEFAULT_SHARE",
    "Allowance",
    "AllowanceSpent",
    "CycleSpent",
    "Earlier",
    "PacingEnded",
    "Recorded",
    "WindowCalls",
    "checked_share",
]

DEFAULT_SHARE = 0.5
"""The share of the calls left in the window a client's own budgeted reads take unless told
otherwise (a program-wide bucket frame, a tier what-if), as a pull's
(``snapshot.defaults.DEFAULT_SHARE``, which loads no client): the rest stays for the
project's other traffic."""


@dataclass(frozen=True)
class WindowCalls:
    """What a paced work spent of one budget window: the window (``ends``: its end, Unix
    seconds on the service's clock, as ``X-Rate-Limit-Retry`` names it; ``limit``: its
    budget), the calls the work sent in it (``sent``) and what the window held for the work
    when the work first heard of it (``held``: the calls left then plus those the work had
    sent in it; None when not known)."""

    ends: float
    limit: int | None
    sent: int
    held: int | None = None
    here: float | None = None
    """The window's end on this machine's clock (Unix seconds, ``time.time``), as the run
    that saw it measured it (``X-Rate-Limit-Retry`` less ``Date``); None when not known, or
    when the service's clock did not agree with this machine's then (``quota.CLOCK_AGREES``:
    a sandbox's fixed or moved clock), so a run again learns the window from its first call."""


Earlier = Callable[[float, int | None], WindowCalls | None]
"""What a paced work's earlier runs spent of the window ending at ``ends`` under the budget
``limit`` (``WindowCalls``); None while their record cannot be read yet."""
Recorded = Callable[[], WindowCalls | None]
"""The window a paced work's last run was in, as its record holds it (what its runs spent
there, ``here`` its end on this machine's clock); None when there is none, or while the
record cannot be read yet."""


def _share_held(window: WindowCalls, share: float) -> int:
    """``share`` of what ``window`` held for the work (0 when not known)."""
    return 0 if window.held is None else share_of(window.held, share)


def checked_share(share: float) -> float:
    """``share`` as a fraction of the budget left: above 0 and at most 1, else a
    ``ValueError`` naming ``budget_share``."""
    if isinstance(share, bool) or not isinstance(share, int | float):
        raise ValueError(f"budget_share: must be a number above 0 and at most 1, got {share!r}")
    if not (math.isfinite(share) and 0 < share <= 1):
        raise ValueError(f"budget_share: must be above 0 and at most 1, got {share!r}")
    return float(share)


class AllowanceSpent(LytError):
    """A call not sent: the work's share of the call budget is used up (``allowance``)."""

    def __init__(self, allowance: Allowance) -> None:
        self.allowance = allowance
        calls = allowance.calls or 0
        others = allowance.others
        since = (
            f" (other traffic has spent at least {counted(others, 'call')} of the window since"
            " it started)"
            if others
            else ""
        )
        # its earlier runs', or a plan's re-read and earlier parts in this same run (as a
        # paced bar says them, fill.pace)
        earlier = (
            f", {allowance.carried:,} of them sent earlier in this window"
            if allowance.carried
            else ""
        )
        super().__init__(
            f"not sent: this work's share ({allowance.share:g}) of the call budget, "
            f"{counted(calls, 'call')}{earlier}, is used up{since}"
        )


class CycleSpent(AllowanceSpent):
    """A call of a paced work not sent: the service's last answer said the project's billing
    cycle budget is spent (``Quota.cycle_reached``). A paced work may run for days; past the
    cycle's budget each of its calls would add to what the project overdraws."""

    def __init__(self, allowance: Allowance) -> None:
        self.allowance = allowance
        LytError.__init__(
            self,
            "not sent: the project's billing-cycle budget is spent (the service lets calls"
            " through with a reminder; weeks of it lead to throttling), and this paced work"
            " stops there",
        )


class PacingEnded(LytError):
    """A call not sent: it was waiting for the next window of a paced allowance, and the work
    that held the allowance ended meanwhile (Ctrl-C, an error elsewhere in the pull)."""


class Allowance:
    """``share`` of the calls left in the window, from the moment it is taken.

    ``calls`` is the allowance in calls (None while the budget is unknown): ``share`` of
    ``available``, the calls the window holds for the work (``window_left`` less ``others``);
    ``spent`` the calls the client has sent since, ``left`` what remains of it (None while
    unknown). ``where`` tells the current window's end and budget (``Quota``'s); a paced
    allowance asks ``earlier`` what the work's earlier runs spent of its first window (see the
    module).
    Held by ``Quota.allowance``; thread-safe through the quota's lock.
    """

    def __init__(
        self,
        share: float,
        used: Callable[[], int],
        remaining: int | None,
        window: int = 0,
        *,
        paced: bool = False,
        where: Callable[[], tuple[float | None, int | None, float | None]] = lambda: (
            None,
            None,
            None,
        ),
        earlier: Earlier | None = None,
        recorded: Recorded | None = None,
        wall: Callable[[], float] = time.time,
        numbered: int = 0,
    ) -> None:
        self.share = checked_share(share)
        self.paced = paced
        self.window_left: int | None = None
        """The calls left in the window when the allowance was set (a paced one resumed in
        a window: what it held for the work when its first run there heard of it)."""
        self.others = 0
        """Calls of ``window_left`` the project's other traffic has spent since, at least, as
        the last answer tells: those the service has certainly counted."""
        self._used = used
        self._numbered = numbered
        """The number of the client's last call taken before the allowance (``Quota.take``):
        the work's calls are numbered after it."""
        self._straddling: set[int] = set()
        """Paced: the numbers of the work's calls sent before the current window began that
        it may have counted (see the module), counted as sent in it until an answer of the
        window before says otherwise."""
        self._start = used()
        self._window_start = self._start
        self._window = window
        self._where = where
        self._earlier = earlier if paced else None
        self._recorded = recorded if self._earlier is not None else None
        self._record: WindowCalls | None = None
        """Paced: what ``recorded`` said, once it said something."""
        self._wall = wall
        self.calls: int | None = None
        self._booked: set[int] = set()
        """Paced: the calls let start (``Quota.ready``), by their start's number, whose first
        request is not counted yet (``Quota.take``) nor handed back: carried into a new window
        (they are sent in it), never into another allowance."""
        self.shown = False
        """Paced: whether the work shows its own progress, which says when the next window
        begins (``PaceBar``); a wait for a window shows a bar of its own otherwise."""
        self.held_back = 0
        """Paced: calls the work holds back in this window (``holding_back``)."""
        self.past_windows: list[int] = []
        """Paced: the calls sent in each window before the current one."""
        self.carried = 0
        """Paced: the calls the work's earlier runs sent in the current window (``earlier``),
        counted against its share as this run's are."""
        self.window_end: float | None = None
        """Paced: the end of the window the share is of (Unix seconds, the service's clock),
        once an answer named it; ``window_limit`` its budget."""
        self.window_limit: int | None = None
        self.window_here: float | None = None
        """Paced: ``window_end`` on this machine's clock (``WindowCalls.here``)."""
        self.paced_under: int | None = None
        """Paced: the budget (calls a window) its share was last found to pace under, as a
        call was let start (``Quota.ready``; None before): a share the service's plan
        changed too small names it (``PacedShareTooSmall.was``)."""
        self._seen = 0
        """Paced: the calls the current window held for the work as this run first heard of
        it (left then, plus those this run had sent in it)."""
        if remaining is not None:
            if paced:
                self.follow(remaining, window)
            else:
                self._set(remaining, window)

    @property
    def booked(self) -> int:
        """Paced: how many calls let start are not sent nor handed back yet."""
        return len(self._booked)

    def _set(self, window_left: int, window: int) -> None:
        self.window_left = window_left
        self.others = 0
        self._window = window
        self.calls = share_of(window_left, self.share)

    @property
    def available(self) -> int | None:
        """The calls the window holds for the work, those it spent included:
        ``window_left`` less ``others``; None while the budget is unknown."""
        return None if self.window_left is None else self.window_left - self.others

    @property
    def spent(self) -> int:
        """Calls the client has sent since the allowance was taken."""
        return self._used() - self._start

    @property
    def in_window(self) -> int:
        """Calls counted against the share: those sent in the current window (paced, its
        earlier runs' ``carried`` included), or since the allowance was taken."""
        return self._used() - self._window_start + self.carried

    @property
    def sent_in_window(self) -> int:
        """Calls this run sent in the current window (paced), or since the allowance was
        taken."""
        return self._used() - self._window_start

    @property
    def left(self) -> int | None:
        """Calls the allowance still holds (a paced one: in this window, or in the window its
        last run was in while that may not be over, ``presumed``); None while the budget is
        unknown."""
        if self.calls is None:
            presumed = self.presumed()
            if presumed is None:
                return None
            return max(0, _share_held(presumed, self.share) - presumed.sent - self.sent_in_window)
        return max(0, self.calls - self.in_window)

    def presumed(self) -> WindowCalls | None:
        """Paced, before an answer named the window this run is in: the window the work's
        last run was in (``recorded``) while this machine's clock says it may not be over
        (before its ``here``); its share then holds this run's calls, counted after what its
        runs sent there, so the call that would learn the window is not sent beyond it.
        None otherwise (no record, or one that does not say its end here)."""
        if self._recorded is None or self.calls is not None:
            return None
        if self._record is None:
            self._record = self._recorded()
        record = self._record
        if record is None or record.here is None or record.held is None:
            return None
        return record if self._wall() < record.here else None

    def presumed_wait(self) -> float | None:
        """Paced: seconds until the ``presumed`` window ends on this machine's clock; None
        when none is presumed."""
        presumed = self.presumed()
        return None if presumed is None or presumed.here is None else presumed.here - self._wall()

    def admit(
        self,
        remaining: int | None,
        window: int = 0,
        *,
        reported: int | None,
        in_flight: Collection[int] = (),
        booked: bool = True,
    ) -> bool:
        """Before the client's next request goes out, with ``remaining`` calls left in the
        ``window``-th window the client has seen (the ``reported`` count less the calls
        ``in_flight``, by number): follow the window (``track``) and raise ``AllowanceSpent``
        when the request would go beyond the allowance. A paced allowance refuses nothing
        here: a call's first request was ``booked`` when ``Quota.ready`` let it start (its
        booking ends once every allowance let it go, ``unbook``), and any other (a retry, the
        token request after a 401) goes only when it ``fits``; False when it does not (it
        waits for the reset, ``Quota.take``)."""
        self.track(remaining, window, reported=reported, in_flight=in_flight)
        if self.paced:
            return booked or self.fits()
        if self.calls is not None and self.spent >= self.calls:
            raise AllowanceSpent(self)
        return True

    def track(
        self,
        remaining: int | None,
        window: int,
        *,
        reported: int | None,
        in_flight: Collection[int] = (),
    ) -> None:
        """With ``remaining`` calls left in the ``window``-th window (an answer just read, or
        a call about to go or to be let start), the ``reported`` count less the calls
        ``in_flight`` (by number; an answer's own call among them): set the allowance from
        ``remaining`` if the budget just became known or a new window began (the calls in
        flight taken as not yet counted: the share errs low; for a paced allowance a new
        share, the work's calls ``in_flight`` counted in it, ``follow``), else count
        ``others`` from ``reported`` (the calls in flight taken as counted: ``others`` errs
        low) and take the share of what the window holds (a paced one: of this window)."""
        if self.paced:
            self.follow(remaining, window, in_flight)
        elif remaining is not None and (self.window_left is None or window != self._window):
            self._set(remaining + self.spent, window)
            return
        if reported is not None and self.window_left is not None and self.calls is not None:
            self._count_others(self.window_left, reported + self.in_window)

    def _count_others(self, window_left: int, holds: int) -> None:
        """The window holds at most ``holds`` calls for the work (the lowest count reported
        plus every call the work sent in it, those not counted yet included): other traffic
        spent the rest of ``window_left`` at least, and the share is of ``window_left`` less
        that, never more than of ``window_left``."""
        others = max(0, window_left - holds)
        if others != self.others:
            self.others = others
            self.calls = share_of(window_left - others, self.share)

    def follow(self, remaining: int | None, window: int, in_flight: Collection[int] = ()) -> None:
        """Paced: start a new share when the ``window``-th window began (unknown until an
        answer of it says what it has left), the work's calls ``in_flight`` counted as sent
        in it (see the module), set it once known, and count in it what the work's earlier
        runs sent there (``carry``)."""
        if window != self._window and self.calls is not None:
            self._straddling = {number for number in in_flight if number > self._numbered}
            straddling = min(len(self._straddling), self.sent_in_window)
            self.past_windows.append(self.sent_in_window - straddling)
            self._window_start = self._used() - straddling
            self.calls = self.window_left = None
            self.others = self.carried = self.held_back = 0
            self.window_end = self.window_limit = self.window_here = None
            self._earlier = self._recorded = None  # the earlier runs ended before this one began
        self._window = window  # the calls sent while the budget was unknown count in it
        if remaining is not None and self.calls is None:
            self._seen = remaining + self.sent_in_window
            self._set(self._seen, window)
        if self.calls is not None:
            self.carry()

    def counted_before(self, number: int) -> None:
        """Paced: the answer to call ``number`` came for the window before this one: a call
        of the work in flight as this window began is counted there, not in this one."""
        if number in self._straddling:
            self._straddling.discard(number)
            self._window_start += 1
            self.past_windows[-1] += 1

    def carry(self) -> None:
        """Paced: name the window the share is of (its end and budget, once an answer told
        them) and, the first time ``earlier`` can say, take the calls the work's earlier runs
        sent in it as sent (``carried``) and the share of what it held for the work then."""
        if self.window_end is None:
            self.window_end, self.window_limit, self.window_here = self._where()
        if self._earlier is None or self.window_end is None:
            return
        before = self._earlier(self.window_end, self.window_limit)
        if before is None:
            return  # their record is not open yet: asked again before the next call
        self._earlier = self._recorded = None
        self.carried = before.sent
        self._set(self._seen + before.sent if before.held is None else before.held, self._window)

    @property
    def this_window(self) -> WindowCalls | None:
        """Paced: what the work (its earlier runs included) has spent of the current window,
        once an answer named it; None before."""
        if self.window_end is None:
            return None
        return WindowCalls(
            self.window_end, self.window_limit, self.in_window, self.window_left, self.window_here
        )

    def fits(self) -> bool:
        """Paced: whether one more call fits this window's share, or the ``presumed`` one's,
        beside the calls let start and not sent yet (``booked``)."""
        if self.calls is not None:
            return self.in_window + self.booked + self.held_back < self.calls
        left = self.left
        return left is None or self.booked + self.held_back < left

    @contextlib.contextmanager
    def holding_back(self, calls: int) -> Iterator[None]:
        """Paced: while in the block, ``calls`` more of this window's share are held back (a
        call goes only when it ``fits`` beside them), until a new window begins."""
        self.held_back = calls
        try:
            yield
        finally:
            self.held_back = 0

    def book(self, start: int) -> None:
        """Paced: a call that ``fits`` is let start, its start numbered ``start``: counted
        against the share until it sends its first request or ends before (``unbook``)."""
        self._booked.add(start)

    def unbook(self, start: int | None) -> None:
        """Paced: the call let start as ``start`` (None: the earliest booked) has sent its
        first request, or ended before it: no longer booked. A start this allowance did not
        book, or has let go already, changes nothing."""
        if start is None:
            start = min(self._booked, default=0)
        self._booked.discard(start)

    @property
    def windows(self) -> list[int]:
        """Paced: the calls this run sent in each window so far, the current one last."""
        return [*self.past_windows, self.sent_in_window]

    def rest(self, planned: int | None) -> int:
        """The calls a work stopped partway still needs at least: the ``planned`` calls (in
        all, None when not known) less those sent, one at least."""
        return 1 if planned is None else max(1, planned - self.spent)

    def refusal(
        self,
        stage: str,
        needed: int,
        ways: tuple[WayForward, ...],
        *,
        limit: int | None,
        resets_at: datetime | None,
        during: bool = False,
        projected: tuple[int, int] | None = None,
        remaining: int | None = None,
        expected: int | None = None,
        interval: tuple[int, int] | None = None,
        not_projected: str | None = None,
        cost_first: str | None = None,
        census: tuple[int, int] | None = None,
        lists_counted: int | None = None,
    ) -> PullBudgetError:
        """The stop before ``stage`` (or ``during`` it), the rest needing ``needed`` calls at
        least, with what is left of this allowance (or, told before the stages ahead of
        ``stage`` are sent, the ``remaining`` they would leave) and the window's ``limit``
        and ``resets_at`` (the quota's); ``projected``, ``expected``, ``interval``,
        ``not_projected``, ``cost_first``, ``census`` and ``lists_counted``: as
        ``PullBudgetError`` has them."""
        return PullBudgetError(
            stage,
            needed=needed,
            remaining=(self.left or 0) if remaining is None else remaining,
            share=self.share,
            window_left=self.window_left,
            sent=self.spent,
            ways=ways,
            limit=limit,
            resets_at=resets_at,
            others=self.others,
            during=during,
            earlier=self.carried,
            projected=projected,
            expected=expected,
            interval=interval,
            not_projected=not_projected,
            cost_first=cost_first,
            census=census,
            lists_counted=lists_counted,
        )

    def __repr__(self) -> str:
        return f"Allowance(share={self.share:g}, calls={self.calls}, spent={self.spent})"
