"""A sync client seen as an async one: each of its calls runs in a worker thread.

The snapshot pull is written once, against async resource groups (``pages``,
``plain_pages``, ``get``), so that a level's requests run together. Given the caller's
sync ``LoyaltyClient``, it runs on this view of it: every call still goes through that
client (its connection pool, proxies and certificates, ``rate=``, its token and its
``quota``, which therefore counts the pull's calls), from ``asyncio.to_thread`` workers.
A read-ahead waiting for a request to be written is told so from the worker thread
through the event loop (``sent``). A task cancelled (Ctrl-C, an error elsewhere in the pull)
stops its call in the worker thread: a wait there ends at once and nothing more is sent
(``_stop``), so no thread is left sleeping for a window's reset, holding the process; a call
still queued for a thread as its task is asked to cancel is not sent either.

The calls run on a pool of the pull's own (``threaded``), of at least as many threads as the
pull has requests in flight (its ``concurrency``): asyncio's default pool has
``min(32, cpu + 4)`` (6 on two cores), which held a pull of 8 to 6 calls at once and queued
its frame building behind them.

A level of many calls of one kind (a member read each, a card's bucket list each) is handed
over whole (``ThreadedClient.each``): each of ``concurrency`` threads takes the level's next
call once its last is done, as an analyst's threads would, its stop and notice set up once
for all its calls. A call in a thread of its own each (``_in_thread``) went from the event
loop to a thread and back, the loop woken twice per call: about 0.3 ms of CPU per call
(``benchmarks/scale.py pull``), and fewer calls in flight than ``concurrency`` asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from typing import Any, TypeVar

from .._stop import Stop, stopping
from .sent import sent_notice, telling

__all__ = ["ThreadedClient", "ThreadedGroup", "threaded"]

T = TypeVar("T")

_END = object()

_DEFAULT_WORKERS = min(32, (os.cpu_count() or 1) + 4)
"""The threads of asyncio's default pool: the pull's pool has as many at least, so its lists
walk as many pages at once as they did there."""


class _Cancelled(Stop):
    """A task's stop, set once the task is asked to cancel: at once, before the loop gets
    to the task (``Task.cancelling``), so a worker thread freed by another task's stop does
    not take up this task's call and send it (a Ctrl-C cancels every read of a level in one
    go, the reads still queued for a thread among them)."""

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        super().__init__()
        self._task = task

    def is_set(self) -> bool:
        return super().is_set() or (self._task is not None and self._task.cancelling() > 0)


async def _in_thread(pool: Executor, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in a worker thread of ``pool`` (in this task's context, as
    ``asyncio.to_thread`` runs it), stopped when this task is cancelled; a request-written
    notice reaches this task."""
    told = _told()
    cancelled = _Cancelled(asyncio.current_task())

    def run() -> T:
        with stopping(cancelled, _STOPPED), told():
            return call(*args)

    try:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool, partial(contextvars.copy_context().run, run))
    except asyncio.CancelledError:
        cancelled.set()
        raise


async def _each(pool: Executor, calls: Sequence[Callable[[], T]], workers: int) -> list[T]:
    """Each of ``calls`` in a worker thread of ``pool``, in their order, on ``workers`` threads
    at once (fewer for fewer calls), each thread taking the next call once its last is done;
    their results in that order, handed back once every thread is done. One stop for them all
    (``_Cancelled``): set when this task is asked to cancel, or by the first call to fail,
    whose error is raised; then the calls under way stop waiting and send nothing more, and no
    thread takes another."""
    results: list[Any] = [None] * len(calls)
    turns = iter(enumerate(calls))
    taking = threading.Lock()
    failed: list[BaseException] = []
    told = _told()
    cancelled = _Cancelled(asyncio.current_task())

    def work() -> None:
        with stopping(cancelled, _STOPPED), told():
            while not cancelled.is_set():
                with taking:
                    turn = next(turns, None)
                if turn is None:
                    return
                index, call = turn
                try:
                    results[index] = call()
                except BaseException as error:
                    with taking:
                        failed.append(error)
                    cancelled.set()
                    raise

    loop = asyncio.get_running_loop()
    threads = [
        loop.run_in_executor(pool, contextvars.copy_context().run, work)
        for _ in range(min(workers, len(calls)))
    ]
    try:
        await asyncio.gather(*threads)
    except asyncio.CancelledError:
        cancelled.set()
        raise
    except BaseException:
        if failed:
            raise failed[0] from None  # the first to fail, not a call its stop stopped
        raise
    return results


_STOPPED = "the pull it was made for was stopped"


def _told() -> Callable[[], AbstractContextManager[None]]:
    """The block a worker thread runs this task's calls in: telling this task's read-ahead
    (through the event loop) once a request is written, if one waits for it (``sent``)."""
    notice = sent_notice()
    if notice is None:
        return nullcontext
    return partial(telling, _through_loop(notice))


def _through_loop(notice: Callable[[], None]) -> Callable[[], None]:
    """``notice`` called from a worker thread, run on this thread's event loop."""
    loop = asyncio.get_running_loop()

    def told() -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (Ctrl-C): no one waits
            loop.call_soon_threadsafe(notice)

    return told


class ThreadedGroup:
    """One resource group of a sync client, with the async group's read methods."""

    def __init__(self, group: Any, pool: Executor) -> None:
        self._group = group
        self._pool = pool

    async def get(self, *ids: str) -> Any:
        """The sync group's ``get(*ids)``, in a worker thread."""
        return await _in_thread(self._pool, self._group.get, *ids)

    def pages(self, *ids: str, **query: Any) -> AsyncIterator[Any]:
        """The sync group's ``pages(*ids, **query)``, each page fetched in a worker thread."""
        return _pages(self._pool, self._group.pages(*ids, **query))

    def plain_pages(self, *ids: str, **query: Any) -> AsyncIterator[Any]:
        """The sync group's ``plain_pages(*ids, **query)``, likewise."""
        return _pages(self._pool, self._group.plain_pages(*ids, **query))

    async def token(self) -> Any:
        """The sync ``oauth`` group's ``token()``: a new token, in a worker thread."""
        return await _in_thread(self._pool, self._group.token)


async def _pages(pool: Executor, walk: Iterator[Any]) -> AsyncIterator[Any]:
    try:
        while (page := await _in_thread(pool, next, walk, _END)) is not _END:
            yield page
    finally:
        close = getattr(walk, "close", None)
        if close is not None:
            with contextlib.suppress(ValueError):  # still running in its thread: left to end
                close()


@contextlib.asynccontextmanager
async def threaded(client: Any, calls: int) -> AsyncIterator[ThreadedClient]:
    """``client`` (a sync one) seen as an async one, its calls run on a pool of its own of
    ``calls`` threads at least (a pull's ``concurrency``); the pool's threads are waited for
    at the end (without holding up the event loop), as ``asyncio.run`` waits for its own."""
    pool = ThreadPoolExecutor(max(calls, _DEFAULT_WORKERS), thread_name_prefix="lyt-pull")
    try:
        yield ThreadedClient(client, pool, calls)
    finally:
        pool.shutdown(wait=False)
        await asyncio.to_thread(pool.shutdown)


class ThreadedClient:
    """The caller's sync client with async resource groups (``ThreadedGroup``), its calls run
    on ``pool``, ``at_once`` at a time in a level handed over whole (``each``); its budget,
    address and clock are the client's own."""

    def __init__(self, client: Any, pool: Executor, at_once: int = 1) -> None:
        self.client = client
        self._pool = pool
        self._at_once = at_once
        self._groups: dict[str, ThreadedGroup] = {}

    def __getattr__(self, name: str) -> ThreadedGroup:
        if name.startswith("_"):
            raise AttributeError(name)
        group = self._groups.get(name)
        if group is None:
            group = self._groups[name] = ThreadedGroup(getattr(self.client, name), self._pool)
        return group

    def recording(self, recorder: Any) -> Any:
        """The client's ``recording(recorder)`` block."""
        return self.client.recording(recorder)

    @property
    def quota(self) -> Any:
        """The client's call budget (``Quota``)."""
        return self.client.quota

    @property
    def base_url(self) -> str:
        """The client's service address."""
        return str(self.client.base_url)

    @property
    def holds_token(self) -> bool:
        """Whether the client holds a usable bearer token."""
        return bool(self.client.holds_token)

    @property
    def _service_holds(self) -> str | None:
        """What the service last said it holds (None until an answer says)."""
        return self.client._service_holds

    async def each(self, calls: Sequence[Callable[[], T]]) -> list[T]:
        """Each of ``calls`` (sync calls of the client) in the pool's threads, ``at_once`` (the
        pull's ``concurrency``) at a time, each thread taking the next once its last is done;
        their results in order. Stopped as a whole: the task cancelled, or the first call
        failing, whose error is raised (``_each``)."""
        return await _each(self._pool, calls, self._at_once)

    async def fetch_token(self, *, fresh: bool = False) -> None:
        """The client's ``fetch_token(fresh=...)``, in a worker thread."""
        await _in_thread(self._pool, lambda: self.client.fetch_token(fresh=fresh))

    def service_time(self) -> float | None:
        """The service's clock now, from the client's token (None without one)."""
        return self.client.service_time()

    def token_issued_at(self) -> float | None:
        """When the service issued the client's token (None without one)."""
        return self.client.token_issued_at()
