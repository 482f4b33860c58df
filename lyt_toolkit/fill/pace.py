"""What a paced work shows while it runs: calls done and to do, the window, the expected end.

A paced work (a checkpointed pull, a plan executed with ``paced=True``) keeps to its share of
every budget window and waits across resets, so it may run for hours. ``PaceBar`` redraws once a
second: the calls sent (and, a pull's, the answers its checkpoint gives back instead: every one
it holds, counted from the start, not as each is read back), the calls
still to do (a pull's once the lists are walked, at least: bucket lists are known only as
members are read, and its expected end says it does not count them till then), the calls
sent earlier in this window (by a resumed work's earlier runs, or
by a plan's re-read and parts before this one: they count against the same share), the calls
this window still allows the work, the time to the next window and, from those, when the work
should end (each later window giving the work its share of a whole window, as a refusal's ways
count them). It redraws from a task of the pull's loop (``async with``) or from a thread of its
own (``with``: a plan's items run on a thread pool). Where the bar cannot be seen and the
command asked for lines instead (``_progress.lines``: a ``lyt`` command writing to a log), the
same figures go to ``PaceLines``, which writes one at the moments that matter
(``fill.pace_lines``); a bar of a work run as several bars (``fill.pace_work``) shows the
whole work, on the work's one bar, its lines the work's, and of the calls sent earlier in
its window only those not the work's own there; none of them is the token request its run
heard the service with (``fill.pace_run``); a callable progress with a ``paced`` method
(``_progress.PacedProgress``: a panel's status) is told them at each redraw.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from .._progress import Progress, ProgressBar, lines, paced_line
from .._shares import share_of
from ..client.allowance import Allowance
from .pace_lines import PaceLines
from .pace_run import current_run
from .pace_work import PacedWork, current_work

__all__ = ["PaceBar", "expected_end"]

REDRAW = 1.0
"""Seconds between redraws."""
HOUR = 3600.0


def expected_end(
    to_do: int, left: int, per_window: int, until_reset: float, window: float, now: datetime
) -> datetime:
    """When ``to_do`` more calls end, ``left`` of them allowed in this window (which resets
    in ``until_reset`` s) and ``per_window`` in each later one of ``window`` s; calls
    themselves taken as instant."""
    if to_do <= left:
        return now
    windows = math.ceil((to_do - left) / max(per_window, 1))
    return now + timedelta(seconds=until_reset + (windows - 1) * window)


class PaceBar:
    """The progress of one paced work (see the module), redrawn while it runs: the calls
    it sends under ``allowance``, ``planned()`` of them in all (None while not known; a
    pull's counts those its checkpoint answers too), and ``recalled()`` answers given back
    instead of calls (a pull's checkpoint: all it holds, from the start)."""

    def __init__(
        self,
        progress: Progress,
        client: Any,
        allowance: Allowance,
        planned: Callable[[], int | None],
        *,
        recalled: Callable[[], int] = lambda: 0,
        tick: Callable[[], None] = lambda: None,
        desc: str = "paced pull",
        unplanned: Callable[[], str | None] = lambda: None,
        replaying: Callable[[], bool] = lambda: False,
    ) -> None:
        self.tick = tick
        """Called at each redraw (the pull records its start once it is known, a plan what
        its runs spent of the window)."""
        self.unplanned = unplanned
        """The calls ``planned()`` leaves out while they are not known (a pull's bucket
        lists, until its members are read), named; None when it counts them all. Its
        expected end says it does not count them."""
        self.replaying = replaying
        """Whether the work's total is not settled yet, its checkpoint still giving back
        what its earlier runs read (a resumed pull): its lines say it started once it is
        (or ``EVERY`` seconds after it began), not with a total that leaves out calls its
        answers are about to count."""
        self.client = client
        self.allowance = allowance
        self.recalled = recalled
        work = current_work()  # a bar of a work run as several: the whole work's figures
        self._work = work
        self._run = current_run()
        self.planned = planned if work is None else work.planned
        desc = desc if work is None else work.desc
        # A callable ``progress`` gets the work's own counts (a pull's rows, a plan's items);
        # the calls show only as a bar (a work's one, kept open across its bars).
        shared = work.bar() if progress is True and work is not None else None
        self._own_bar = shared is None
        self.bar = (
            ProgressBar(progress is True, desc=desc, unit="call") if shared is None else shared
        )
        self.lines = _lines(desc, work) if progress is True and lines() else None
        """Where the bar cannot be seen: its lines (see the module)."""
        self.told = paced_line(progress)
        """A callable ``progress`` that takes the line too (a panel's status)."""
        self._start = client.quota.calls_used if work is None else work.start
        self._opened = client.quota.calls_used
        """The client's calls sent before this bar: of them, those of the work's earlier bars
        sent in this bar's window are in the allowance's ``carried`` and the work's ``sent``
        both (``PacedWork.sent_in``), not sent earlier by another run."""
        self._refused = client.quota.refusals if work is None else work.refusals
        self._task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self._ended = threading.Event()
        self._resets: list[float] = []

    async def __aenter__(self) -> PaceBar:
        self.allowance.shown = True  # its waits for a window show on this bar
        self._task = asyncio.ensure_future(self._redraw())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.allowance.shown = False
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._close()

    def __enter__(self) -> PaceBar:
        self.allowance.shown = True
        self._thread = threading.Thread(target=self._redrawn, name="lyt-pace", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.allowance.shown = False
        self._ended.set()
        if self._thread is not None:
            self._thread.join()
        self.tick()
        self._close()

    def _close(self) -> None:
        self.draw(ending=True)
        if self._own_bar:
            self.bar.close()
        if self._work is None:
            return
        allowance = self.allowance  # where the work's calls of this bar went
        began = self.client.quota.calls_used - allowance.sent_in_window
        self._work.ended_in(allowance.window_end, began)

    async def _redraw(self) -> None:
        while True:
            self.tick()
            self.draw()
            await asyncio.sleep(REDRAW)

    def _redrawn(self) -> None:
        """The thread's redraws, until the work ends."""
        while True:
            self.tick()
            self.draw()
            if self._ended.wait(REDRAW):
                return

    def draw(self, *, ending: bool = False) -> None:
        """Redraw the bar from the quota, the allowance and the work's counts as they stand,
        and its lines (``ending``: only that it went on, see ``PaceLines.see``)."""
        quota, allowance = self.client.quota, self.allowance
        sent = quota.calls_used - self._start
        recalled = self.recalled()
        done = sent + recalled
        planned = self.planned()
        total = None if planned is None else max(planned, done)
        parts = [f"{sent:,} sent"]
        if recalled:
            parts.append(f"{recalled:,} from the checkpoint")
        refused = quota.refusals - self._refused
        if refused:
            parts.append(f"{refused:,} refused (429) and retried")
        left = allowance.left
        resets = quota.resets_at
        carried = self._carried()
        if carried:
            # its earlier runs', or a plan's earlier parts and re-read in this same run
            parts.append(f"{carried:,} sent earlier in this window")
        if left is not None:
            share = f" of its share of {allowance.calls:,}" if allowance.calls else ""
            parts.append(f"{left:,} left this window{share}")  # no share: the window refused
        # The reset as a delay the quota measured against the answers' own Date: resets_at is
        # on the service's clock, which this machine's need not match (a sandbox's fixed one).
        to_reset = quota.seconds_to_reset()
        presumed = allowance.presumed_wait() if to_reset is None else None
        until = max(0.0, to_reset or presumed or 0.0)  # presumed: the last run's window's end
        if resets is not None and to_reset is not None:
            parts.append(f"next window in {_duration(until)}")
            window = self._window_length(resets.timestamp())
            if total is not None and left is not None and allowance.calls:
                end = expected_end(
                    total - done, left, self._per_window(), until, window, datetime.now(UTC)
                )
                unplanned = self.unplanned()
                leaves = "" if unplanned is None else f", not counting {unplanned}"
                parts.append(f"end about {end:%H:%M} UTC{leaves}")
        note = ", ".join(parts)
        self.bar.set(done, total=total, note=note)
        line = f"{_calls(done, total)}; {note}"
        if self.told is not None:
            self.told(line)
        if self.lines is not None:
            self.lines.see(
                line,
                refusals=refused,
                waiting=left == 0 and until > 0 and (total is None or done < total),
                # no budget (an unlimited plan): no share to know, nothing to wait for
                known=total is not None
                and (left is not None or quota.limit is None)
                and not self.replaying(),
                ending=ending,
                window=len(allowance.past_windows),
            )

    def _carried(self) -> int:
        """The calls of this window counted against the share that another run sent (its
        earlier runs', or a plan's parts and re-read before this bar): not the work's own
        there (among those sent), nor those its run heard the service with (``pace_run``)."""
        allowance = self.allowance
        carried = allowance.carried
        if carried and self._work is not None:
            carried -= self._work.sent_in(allowance.window_end, self._opened)
        if carried and self._run is not None:
            carried -= self._run.heard_in(allowance.window_end)
        return max(0, carried)

    def _per_window(self) -> int:
        """The calls each later window gives the work: its share of a whole window (this
        one's share is of what the window had left for it, which other traffic may have
        spent), or this window's share while the budget is unknown."""
        allowance, limit = self.allowance, self.client.quota.limit
        if limit is None:
            return allowance.calls or 0
        return share_of(limit, allowance.share)

    def _window_length(self, reset: float) -> float:
        """A window's length: between the last two resets seen, else an hour."""
        if not self._resets or abs(self._resets[-1] - reset) > 1:
            self._resets.append(reset)
        if len(self._resets) >= 2:
            return max(1.0, self._resets[-1] - self._resets[-2])
        return HOUR


def _lines(desc: str, work: PacedWork | None) -> PaceLines | None:
    """The lines of a bar named ``desc``: its own, or, a bar of ``work``, the work's (told
    it follows its last bar)."""
    if work is None:
        return PaceLines(desc)
    if work.lines is not None:
        work.lines.follows()
    return work.lines


def _calls(done: int, total: int | None) -> str:
    """``12 of 47 calls``, or ``12 calls done`` while the total is not known."""
    if total is None:
        return f"{done:,} call{'' if done == 1 else 's'} done"
    return f"{done:,} of {total:,} call{'' if total == 1 else 's'}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
