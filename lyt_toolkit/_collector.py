"""Bulk work without Python's cycle collector (``collector_paused``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Bulk work without Python's cycle collector, which would otherwise rescan every
    object built so far, again and again, while a large program is parsed and loaded
    (most of the load time), or while the modules serving it are imported. JSON
    documents hold no cycles; afterwards it is on or off as it was before, whatever
    happened in between.

    The ``lyt`` commands import their modules under it too: start-up builds some
    300,000 objects that live as long as the process, and a collection amid the imports
    rescans them all (about 0.1 s of CPU of a command's start, pandas and pydantic
    loaded); the work after it runs with the collector as it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        else:
            gc.disable()
