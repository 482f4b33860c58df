"""Bulk work without Python's cycle collector (``collector_paused``); a ``lyt`` process's
start-up imports without it, their objects frozen after (``start_up``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_freezing = False
"""Whether ``start_up`` freezes what the imports built: only in a ``lyt`` process of its
own (``freeze_start_up``), never in a notebook's or a test's that calls ``main``."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """Bulk work without Python's cycle collector, which would otherwise rescan every
    object built so far, again and again, while a large program is parsed and loaded
    (most of the load time), or while the modules serving it are imported. JSON
    documents hold no cycles; afterwards it is on or off as it was before, whatever
    happened in between.

    The ``lyt`` commands import their modules under it too (``start_up``): start-up builds
    some 300,000 objects that live as long as the process, and a collection amid the imports
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


def freeze_start_up() -> None:
    """Have ``start_up`` freeze the objects its imports built: called by ``lyt`` run as a
    process of its own (``main`` reading the process's arguments)."""
    global _freezing
    _freezing = True


@contextmanager
def start_up() -> Iterator[None]:
    """A command's start-up imports, with the collector paused (``collector_paused``); in a
    ``lyt`` process (``freeze_start_up``), the objects alive after them are then frozen
    (``gc.freeze``): they live as long as the process, and the collections of its work
    would otherwise scan them all once more (the first young collections after the pause
    examine every object it built: about 0.2 s of a command's CPU) and each full one again."""
    with collector_paused():
        yield
        if _freezing:  # before the collector is on again: its next collection would scan them
            gc.freeze()
