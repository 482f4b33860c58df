"""Quick store work from ``async`` handlers, without a thread hop unless the store is busy.

FastAPI runs a plain ``def`` endpoint or dependency in its thread pool: two thread
switches per call, a good share of a small answer's CPU. A read taking a fraction of a
millisecond (or a small write to a store in memory, which waits for no disk) may as well
run on the event loop, except while another thread holds the store (a long write, such as
an activation's): waiting there would stall every connection, so then it goes to the
thread pool as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool

from .store import Store

P = ParamSpec("P")
T = TypeVar("T")


async def read_store(store: Store, read: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``read(*args, **kwargs)``, quick work on ``store``: on the event loop when no other
    thread holds the store, else in the thread pool."""
    with store.held_if_free() as free:
        if free:
            return read(*args, **kwargs)
    return await run_in_threadpool(read, *args, **kwargs)


async def write_store(store: Store, write: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``write(*args, **kwargs)``, a small write to ``store``: as ``read_store`` when the
    store is in memory, else in the thread pool (a file's commit waits for the disk)."""
    if store.in_memory:
        return await read_store(store, write, *args, **kwargs)
    return await run_in_threadpool(write, *args, **kwargs)
