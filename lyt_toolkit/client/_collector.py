"""Pausing Python's cycle collector while a pull builds its frames.

A pull allocates thousands of containers a page (the parsed JSON) while the
values of earlier pages are still alive, and the cycle collector's passes keep
rescanning them: about a tenth of a large pull's time. Parsed JSON holds no
cycles, so the collector is paused for the pull and resumed after it, as it
was (a caller who had disabled it finds it still disabled). Pulls running at
the same time share one pause; the collector resumes when the last one ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

_lock = threading.Lock()
_pulls = 0
_resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cycle collector paused (see the module doc)."""
    global _pulls, _resume
    with _lock:
        if _pulls == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pulls += 1
    try:
        yield
    finally:
        with _lock:
            _pulls -= 1
            if _pulls == 0 and _resume:
                gc.enable()
