"""The calls a paced run sent as it heard the service: its own, never sent earlier by another.

A paced run of a plan (``execute``, ``apply`` with ``paced=True``) first hears the service
(``actions.paced.hearing``: the token request of a client holding none, which tells the
budget) on a paced allowance of its own, noted in the plan's log as the window's calls; then
its work takes another, which counts what the log says the window already holds against the
same share (``Allowance.carried``): that token request among them. A bar says sent earlier in
the window only the calls another run sent there (``fill.pace``), so it takes off those the
run heard the service with in that window (``heard_in``): a run started from a client that
holds no token said its own token request was "1 sent earlier in this window". They are
counted apart, as the plan's cost, counted once the token is held, counts them: not among
the work's calls sent, still among those its share of the window has spent. A check made
before the run (``check_apply``: ``lyt apply``'s, an ``EditPanel``'s Apply's) hears the
service as its part: one run holds both, the run passed on (``paced_run(run)``) where the
apply goes on in another thread. Another run's calls (an earlier Apply's) stay sent earlier.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

from .window_ledger import same_window

if TYPE_CHECKING:
    from ..client.allowance import Allowance

__all__ = ["PacedRun", "current_run", "paced_run"]


class PacedRun:
    """The calls one paced run sent hearing the service, in the last window they went in."""

    def __init__(self) -> None:
        self._heard: tuple[float, int] | None = None
        """That window's end (the service's clock) and the calls sent there."""

    def heard(self, allowance: Allowance) -> None:
        """The run's hearing of the service ended on ``allowance``: its calls of the window
        it ended in are the run's own there (a later hearing of the same window adds its)."""
        end = allowance.window_end
        if end is None:
            return
        sent = allowance.sent_in_window
        if self._heard is not None and same_window(self._heard[0], end):
            sent += self._heard[1]
        self._heard = (end, sent)

    def heard_in(self, end: float | None) -> int:
        """The calls the run sent hearing the service in the window ending at ``end``."""
        if end is None or self._heard is None or not same_window(self._heard[0], end):
            return 0
        return self._heard[1]


_RUN: ContextVar[PacedRun | None] = ContextVar("lyt_paced_run", default=None)


@contextlib.contextmanager
def paced_run(run: PacedRun | None = None) -> Iterator[PacedRun]:
    """Inside the block, one paced run (see the module): ``run`` (one begun in another
    thread: a panel's check, before its apply in the background), else the one the block is
    in, else a new one."""
    if run is None:
        run = _RUN.get()
        if run is not None:
            yield run
            return
        run = PacedRun()
    token = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(token)


def current_run() -> PacedRun | None:
    """The ``paced_run`` the block is in, if any."""
    return _RUN.get()
