"""A SIGTERM taken as a Ctrl-C reaches a pull's event loop as asyncio's own Ctrl-C does.

In the foreground, a Ctrl-C (and ``lyt``'s SIGTERM, which calls the SIGINT handler of the
moment: ``cli._sigterm``) reaches a pull running on an event loop of the main thread through
asyncio's SIGINT handler, which cancels the work's task: it stops at its next await, each
part's clean-up run (a level's worker threads told to take no more calls). A background job
has Ctrl-C ignored, so asyncio installs no handler, and the SIGTERM raised
``KeyboardInterrupt`` wherever the main thread was: inside a task's own code, which then
ends without being cancelled, so what a part does on cancellation is skipped (a level's
threads went on sending its calls, unrecorded, the process waiting for them at its exit).

So work run on an event loop of the main thread is registered here while it runs
(``interruptible``), and the SIGTERM handler asks it to stop (``interrupt``): its task is
cancelled as asyncio's handler would, and the work raises ``KeyboardInterrupt`` once it
has stopped. Main thread only: signal handlers run there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["interrupt", "interruptible"]

_works: list[Callable[[], bool]] = []
"""The ``stop`` of each work running on the main thread, the innermost last."""


@contextmanager
def interruptible(stop: Callable[[], bool]) -> Iterator[None]:
    """In the block, ``interrupt`` calls ``stop`` (on the main thread; elsewhere nothing is
    registered): it cancels the work at its next await and says whether it could (False
    once the work is over)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _works.append(stop)
    try:
        yield
    finally:
        _works.remove(stop)


def interrupt() -> bool:
    """Ask the innermost work registered to stop, as a Ctrl-C would; whether one took it (else
    the caller raises ``KeyboardInterrupt`` itself)."""
    return bool(_works) and _works[-1]()
