"""One progress helper for pulls, plans and widgets.

Every long job reports through a ``ProgressBar``: ``advance(rows, pages=n)`` as
work lands, ``close()`` at the end. What the user sees depends on ``progress``:

- ``True``: a bar where one can be seen (see :func:`display`): a widget bar in
  a Jupyter kernel, text on a terminal's stderr, nothing when output goes
  anywhere else (a pipe, a file, CI logs);
- a callable ``(done, total)``: the caller draws it (the widgets do); one with a
  ``paced(line)`` method too (``PacedProgress``) also gets a paced work's line once a second
  (its calls, its window, its expected end: ``fill.pace.PaceBar``);
- ``False`` or ``None``: nothing.

The environment variable ``LYT_PROGRESS`` overrides the choice for ``True``:
``off`` (no bars anywhere, e.g. CI or notebook tests), ``text``, ``widget`` or
``auto`` (the default). Bars that count pages too show them after the rows,
e.g. ``rewards: 1,200 rows [00:01, 950 rows/s, 12 pages]``; a bar of a known total shows
``1,234/20,000`` (tqdm's own bars, their counts grouped by a ``bar_format``:
``BAR_FORMATS``). A text bar whose stderr is no terminal (``LYT_PROGRESS=text ... 2>
pull.log``) is written as plain lines a log can hold (``LineBar``): a bar's line at most
once a second, and its last count as it closes.

A bar with ``lazy=True`` appears only once ``show()`` is called, so a pull that
fits in one page stays silent. Safe to advance from several threads.

A paced work (``fill.pace.PaceBar``) may run for hours. Where its bar cannot be seen and the
command running it asked for them (``plain_lines()``: the ``lyt`` commands), it writes plain
lines to stderr instead (:func:`lines`), so a log says a waiting run is waiting;
``LYT_PROGRESS=off`` silences them too.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

__all__ = [
    "LineBar",
    "PacedProgress",
    "Progress",
    "ProgressBar",
    "display",
    "lines",
    "offset",
    "paced_line",
    "plain_lines",
]

Progress = bool | Callable[[int, int], None] | None
"""``True`` for a bar where one can be seen, a callable ``(done, total)`` for a custom one,
else none."""

Display = Literal["widget", "text"] | None


class PacedProgress(Protocol):
    """A callable progress that is told a paced work's line too (see the module)."""

    def __call__(self, done: int, total: int) -> None: ...

    def paced(self, line: str) -> None:
        """``line``: the paced work's calls sent and to do, its window, its expected end."""


def paced_line(progress: Progress) -> Callable[[str], None] | None:
    """Where ``progress`` takes a paced work's line (its ``paced`` method), or None."""
    return getattr(progress, "paced", None) if callable(progress) else None


class _Offset:
    """``progress`` told ``(done + n, total)`` for a part's ``(n, of)``, its paced lines too."""

    def __init__(self, progress: Callable[[int, int], None], done: int, total: int) -> None:
        self._progress, self._done, self._total = progress, done, total
        self.paced = paced_line(progress)

    def __call__(self, n: int, of: int) -> None:
        self._progress(self._done + n, self._total)


def offset(progress: Progress, done: int, total: int) -> Progress:
    """``progress`` over a whole of ``total`` items as one part's, ``done`` items before it
    (a callable's counts offset, its paced lines kept; ``True``, ``False`` as they are)."""
    return _Offset(progress, done, total) if callable(progress) else progress


ENV_VAR = "LYT_PROGRESS"
SILENT = ("off", "none", "0", "false")
"""The values of ``LYT_PROGRESS`` that show no progress at all."""
REFRESH_SECONDS = 0.1
"""The least time between two redraws of a bar."""
LINE_SECONDS = 1.0
"""The least time between two lines of one ``LineBar``."""

BAR_FORMATS = {
    "total": "{l_bar}{bar}| {n:,}/{total:,} [{elapsed}<{remaining}, {rate_fmt}{postfix}]",
    "text": "{desc}: {n:,}{unit} [{elapsed}, {rate_fmt}{postfix}]",
    "widget": "{l_bar}{bar}| {n:,}{unit} [{elapsed}, {rate_fmt}{postfix}]",
}
"""tqdm's default bars with their counts grouped (its format dict's ``n`` and ``total``, which
its ``n_fmt`` and ``total_fmt`` write bare): within a known ``total`` (``cards reads:  6%|▌
| 1,234/20,000 [...]``), else, the total unknown or passed (tqdm then drops it), the count
alone, on a terminal (``text``: ``1,200 rows [...]``) or beside a widget's bar."""

_lines_asked = 0
"""How many ``plain_lines()`` blocks are open."""


def in_jupyter_kernel() -> bool:
    """True inside a Jupyter kernel (notebook, lab, VS Code), not a terminal IPython."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    shell = get_ipython() if get_ipython is not None else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def display() -> Display:
    """How a bar asked for with ``progress=True`` is shown here, or ``None`` for not at all."""
    choice = _choice()
    if choice in SILENT:
        return None
    if choice in ("widget", "text"):
        return "widget" if choice == "widget" else "text"
    if in_jupyter_kernel():
        return "widget"
    stderr = sys.stderr
    return "text" if stderr is not None and stderr.isatty() else None


def lines() -> bool:
    """Whether a paced work asked to show its progress writes plain lines to stderr: a
    ``plain_lines()`` block asked for them, no bar can be seen here (:func:`display`) and
    ``LYT_PROGRESS`` does not silence them."""
    return _lines_asked > 0 and display() is None and _choice() not in SILENT


@contextlib.contextmanager
def plain_lines() -> Iterator[None]:
    """Inside the block, a paced work whose bar cannot be seen writes plain lines instead
    (:func:`lines`); a command line tool's commands run in one."""
    global _lines_asked
    _lines_asked += 1
    try:
        yield
    finally:
        _lines_asked -= 1


def _choice() -> str:
    return os.environ.get(ENV_VAR, "auto").strip().lower()


def _tqdm_class(kind: Literal["widget", "text"]) -> Any:
    if kind == "widget":
        from tqdm.notebook import tqdm as widget_bar

        return widget_bar
    from tqdm.std import tqdm as text_bar

    stderr = sys.stderr
    return text_bar if stderr is not None and stderr.isatty() else LineBar


class LineBar:
    """A text bar as plain lines, for a stderr that is no terminal (a log): no carriage
    return, no cursor movement, one whole line per write, each with this machine's UTC time
    (``12:00:01 UTC cards reads: 600 of 1,500 calls (40 %)``, its note after ``; ``). Takes
    the part of ``tqdm``'s interface ``ProgressBar`` uses."""

    def __init__(
        self,
        *,
        desc: str,
        unit: str,
        total: int | None,
        initial: int = 0,
        file: Any = None,
        **_tqdm_only: object,
    ) -> None:
        self.desc, self.total, self.n = desc, total, initial
        self._unit = unit.strip()
        self._file = file if file is not None else sys.stderr
        self._note = ""
        self._said: tuple[int, str] | None = None
        self._said_at = time.monotonic()  # a bar done within its first second: one line

    def set_postfix_str(self, note: str, refresh: bool = True) -> None:
        """Show ``note`` after the count from the next line on (now, if ``refresh``)."""
        self._note = note
        if refresh:
            self._line()

    def update(self, n: int = 1) -> None:
        """``n`` more done; a line if the bar's last was a second ago or more."""
        self.n += n
        self._line()

    def close(self) -> None:
        """The bar's last count, unless its last line said it."""
        self._line(last=True)

    def _line(self, *, last: bool = False) -> None:
        now = time.monotonic()
        if (self.n, self._note) == self._said or (not last and now - self._said_at < LINE_SECONDS):
            return
        self._said, self._said_at = (self.n, self._note), now
        unit = self._unit.removesuffix("s")
        unit += "" if (self.total or self.n) == 1 else "s"
        if self.total:
            count = f"{self.n:,} of {self.total:,} {unit} ({100 * self.n // self.total} %)"
        else:
            count = f"{self.n:,} {unit}"
        note = f"; {self._note}" if self._note else ""
        self._file.write(f"{datetime.now(UTC):%H:%M:%S} UTC {self.desc}: {count}{note}\n")
        self._file.flush()


class ProgressBar:
    """Counts rows (and pages) done towards ``total`` (``None`` when unknown) and shows them."""

    def __init__(
        self,
        progress: Progress,
        *,
        desc: str,
        unit: str = "item",
        total: int | None = None,
        lazy: bool = False,
    ) -> None:
        self.desc = desc
        self.unit = unit
        self.total = total
        self.done = 0
        self.pages = 0
        self._lock = threading.Lock()
        self._callback = progress if callable(progress) else None
        self._display = display() if progress is True else None
        self._tqdm: Any = None
        if not lazy:
            self.show()
        if self._callback is not None:
            self._callback(0, total or 0)

    def show(self) -> None:
        """Open the bar, if one was asked for, can be seen here and is not open yet."""
        with self._lock:
            if self._display is None or self._tqdm is not None:
                return
            self._tqdm = _tqdm_class(self._display)(
                desc=self.desc,
                unit=f" {self.unit}s" if self.total is None else self.unit,
                total=self.total,
                initial=self.done,
                bar_format=self._format(),
                leave=False,
                mininterval=REFRESH_SECONDS,
                miniters=1,  # time alone paces the redraws
                file=sys.stderr,
            )
            if self.pages:
                self._tqdm.set_postfix_str(self._pages_text(), refresh=False)

    def advance(self, count: int = 1, *, pages: int = 0) -> None:
        """Record ``count`` more units (rows, items) done, which arrived in ``pages`` pages."""
        if count <= 0 and pages <= 0:
            return
        with self._lock:
            self.done += max(count, 0)
            self.pages += max(pages, 0)
            if self._tqdm is not None:
                self._tqdm.bar_format = self._format()
                if pages > 0:  # a page without rows redraws here, the others in update
                    self._tqdm.set_postfix_str(self._pages_text(), refresh=count <= 0)
                self._tqdm.update(max(count, 0))
            if self._callback is not None and count > 0:
                self._callback(self.done, self.total if self.total is not None else self.done)

    def set(self, done: int, *, total: int | None = None, note: str | None = None) -> None:
        """Show ``done`` units of ``total`` (kept when None), with ``note`` beside them."""
        with self._lock:
            if total is not None:
                self.total = total
            step, self.done = done - self.done, done
            if self._tqdm is not None:
                if total is not None and self._tqdm.total != total:
                    self._tqdm.total = total
                self._tqdm.bar_format = self._format()
                if note is not None:
                    self._tqdm.set_postfix_str(note, refresh=False)
                self._tqdm.update(step)
            if self._callback is not None and step > 0:
                self._callback(self.done, self.total if self.total is not None else self.done)

    def _format(self) -> str:
        """The ``BAR_FORMATS`` of the count now: of the total while within it, else alone."""
        total = self.total
        if total and self.done <= total:
            return BAR_FORMATS["total"]
        return BAR_FORMATS["widget" if self._display == "widget" else "text"]

    def _pages_text(self) -> str:
        return f"{self.pages:,} page" + ("" if self.pages == 1 else "s")

    def close(self) -> None:
        """Close the bar; the counts stay readable."""
        with self._lock:
            if self._tqdm is not None:
                self._tqdm.close()
                self._tqdm = None

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
