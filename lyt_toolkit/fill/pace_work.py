"""One paced work shown across the bars it runs one after another (a saved plan applied
paced: each chunk's re-read, then its writes, each paced on its own allowance).

Inside ``paced_work``, every ``PaceBar`` opened shows the whole work: its name, its calls
sent since the work began out of all it plans, on one bar where one can be seen (``bar``,
closed as the work ends, not a bar a chunk), and, where a ``lyt`` command writes lines
(``_progress.lines``), one set of lines for it all (``PaceLines``): ``started`` once, a line
per chunk naming it (``chunk``), and the waits and going on of any of its bars; not a fresh
``started`` for each bar, which read as a restart in a log. Beside its one bar, no bar of
the items its chunks send (``items_progress``): its calls count each write. Of the calls a
window's record counts, a bar says sent earlier in the window only those not the work's own
there (``sent_in``): its bars say where they ended (``ended_in``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

from .._progress import Progress, ProgressBar, lines
from .._text import counted
from .pace_lines import PaceLines
from .window_ledger import same_window

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["PacedWork", "current_work", "items_progress", "paced_work"]


class PacedWork:
    """The paced work named ``desc`` of ``client``'s calls from now, ``planned()`` in all."""

    def __init__(self, client: LoyaltyClient, desc: str, planned: Callable[[], int]) -> None:
        self.desc = desc
        self.planned = planned
        self.start = client.quota.calls_used
        self.refusals = client.quota.refusals
        """The client's calls sent and refused (429) as the work began: its counts from."""
        self.lines = PaceLines(desc) if lines() else None
        """Its lines, where a ``lyt`` command asked for them; None elsewhere."""
        self._quota = client.quota
        self._chunks = 0
        self._bar: ProgressBar | None = None
        self._window: tuple[float, int] | None = None
        """The window the work's last bar ended in (its end, the service's clock) and the
        client's count of calls sent as the work's first call there went."""

    def bar(self) -> ProgressBar:
        """The work's one bar, opened by its first ``PaceBar`` that shows one."""
        if self._bar is None:
            self._bar = ProgressBar(True, desc=self.desc, unit="call")
        return self._bar

    def ended_in(self, end: float | None, began: int) -> None:
        """A bar of the work ended in the window ending at ``end`` (None: not known), its
        calls there from the client's ``began``-th sent on."""
        if end is None:
            return
        began = max(began, self.start)
        if self._window is not None and same_window(self._window[0], end):
            began = min(began, self._window[1])
        self._window = (end, began)

    def sent_in(self, end: float | None, until: int) -> int:
        """The calls the work sent in the window ending at ``end`` before the client's
        ``until``-th call, as its bars ended there (0: none ended there)."""
        if end is None or self._window is None or not same_window(self._window[0], end):
            return 0
        return max(0, until - self._window[1])

    def close(self) -> None:
        """Close the work's bar, if one was opened."""
        if self._bar is not None:
            self._bar.close()

    def chunk(self, call: str, reads: int, writes: int, left: int) -> None:
        """The line naming the next chunk of the ``call``'s writes: ``reads`` calls re-read
        its objects, then ``writes`` of the ``left`` still to send go."""
        self._chunks += 1
        if self.lines is None:
            return
        sent = self._quota.calls_used - self.start
        total = max(self.planned(), sent)
        self.lines.say(
            f"chunk {self._chunks} ({call}): re-reading {counted(reads, 'call')}, then"
            f" {writes} of the {counted(left, 'write')} left",
            f"{sent:,} of {counted(total, 'call')}",
        )


_WORK: ContextVar[PacedWork | None] = ContextVar("lyt_paced_work", default=None)


@contextlib.contextmanager
def paced_work(client: LoyaltyClient, desc: str, planned: Callable[[], int]) -> Iterator[PacedWork]:
    """Inside the block, the bars opened show the one ``PacedWork`` (see the module)."""
    work = PacedWork(client, desc, planned)
    token = _WORK.set(work)
    try:
        yield work
    finally:
        _WORK.reset(token)
        work.close()


def current_work() -> PacedWork | None:
    """The ``paced_work`` the bars opened here show, if any."""
    return _WORK.get()


def items_progress(progress: Progress) -> Progress:
    """The progress of a plan's items run here: inside a ``paced_work``, ``True`` shows no
    bar of theirs (the work's one bar counts each write among its calls, not a bar a chunk);
    else, and a callable (a panel's), as it is."""
    return False if progress is True and current_work() is not None else progress
