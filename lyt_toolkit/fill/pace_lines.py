"""A paced work's progress as plain lines, where its bar cannot be seen (a log, a pipe).

A ``lyt`` command whose stderr is no terminal (``nohup``, cron, CI: ``_progress.lines``)
shows a paced work's figures, the ones its ``PaceBar`` redraws once a second, as lines
written only at the moments that matter: once the work knows what it has to do (``started``),
as it begins to wait for a window's reset, as it goes on in the next one (said as it ends, if
it ends before the next redraw; said, then the wait, when the window's share went by between
two redraws), and while the service refuses its calls (429) and it retries,
once every ``EVERY`` seconds at most. A work that runs on says it is alive: ``still running``
once ``EVERY`` seconds went by since its last line, and ``started`` once they went by since
it began even if it does not know yet what it has to do (its lists still walked). Each line
is this machine's time, the work's name, what happens and the bar's figures. A work run as
several bars one after another (a saved plan's chunks, ``pace_work``) shares one
``PaceLines``: it starts once, each bar told it ``follows``, and says what the work itself
tells it (``say``: the chunk it goes on with).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

__all__ = ["EVERY", "PaceLines"]

State = Literal["running", "waiting", "refused"]

EVERY = 60.0
"""Seconds at least between two lines saying the service still refuses the work's calls, or
that it is still running; a refusal keeps the work ``refused`` that long."""

_ENTERED: dict[State, str] = {
    "waiting": "waiting for the next window",
    "refused": "refused by the service (429 Too Many Requests), retrying",
}
_GOING_ON: dict[State | None, str] = {
    None: "started",
    "waiting": "a new window began, going on",
    "refused": "answered again, going on",
}


class PaceLines:
    """The lines of the paced work named ``desc`` (see the module), written to stderr."""

    def __init__(self, desc: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.desc = desc
        self._clock = clock
        self._state: State | None = None
        self._said_at = 0.0
        self._began_at = clock()
        self._refusals = 0
        self._refused_at: float | None = None
        self._window = 0
        self._windows_before = 0
        """The windows the work went through before its current bar's first."""
        self._lock = threading.Lock()
        """Held while a line is decided and written: the bar's redraw thread (``see``) and
        the work (``say``) write to one stream."""

    def follows(self) -> None:
        """The work's next bar starts, in the window its last one ended in: its windows are
        counted on from there."""
        with self._lock:
            self._windows_before = self._window

    def see(
        self,
        figures: str,
        *,
        refusals: int,
        waiting: bool,
        known: bool,
        ending: bool = False,
        window: int = 0,
    ) -> None:
        """The work stands at ``figures`` (the bar's), ``refusals`` of its calls refused so
        far, ``waiting`` for a window's reset or not, in its ``window``-th window: a line when
        that changed (its start once ``known``: what it has to do and its share; that it went
        on, then that it waits again, when it waits in a later window than its last line
        said), or when the service still refuses it ``EVERY`` seconds after the last line said
        so. As the work is ``ending``, only that it went on after its last line said it waits
        (the rest done within a redraw's second)."""
        with self._lock:
            self._see(figures, refusals, waiting, known, ending, window)

    def _see(
        self, figures: str, refusals: int, waiting: bool, known: bool, ending: bool, window: int
    ) -> None:
        """``see``, under the lock."""
        if ending and not (self._state == "waiting" and not waiting):
            return
        window += self._windows_before
        if self._state == "waiting" and waiting and window > self._window:
            self._say("running", _GOING_ON["waiting"], figures)
        self._window = window
        now = self._clock()
        if refusals > self._refusals:
            self._refusals, self._refused_at = refusals, now
        refused = self._refused_at is not None and now - self._refused_at < EVERY
        state: State = "refused" if refused else "waiting" if waiting else "running"
        if state == self._state:
            if state == "waiting" or now - self._said_at < EVERY:
                return
            text = _ENTERED[state] if state == "refused" else "still running"
        elif state == "running":
            if self._state is None and not known and now - self._began_at < EVERY:
                return
            text = _GOING_ON[self._state]
        else:  # the first line may say so
            text = _ENTERED[state] if self._state is not None else f"started, {_ENTERED[state]}"
        self._say(state, text, figures)

    def say(self, text: str, figures: str) -> None:
        """A line saying ``text`` with ``figures``, the work's state as it was; a work not
        started yet says so first (its bar's first redraw may come after this line)."""
        with self._lock:
            state = self._state
            if state is None:
                state = "running"
                self._say(state, _GOING_ON[None], figures)
            self._say(state, text, figures)

    def _say(self, state: State, text: str, figures: str) -> None:
        """The line saying ``text`` with ``figures``, the work now ``state``."""
        self._state, self._said_at = state, self._clock()
        line = f"{datetime.now(UTC):%H:%M:%S} UTC {self.desc}: {text}: {figures}\n"
        sys.stderr.write(line)  # one write: ``print`` writes the end of line apart
        sys.stderr.flush()
