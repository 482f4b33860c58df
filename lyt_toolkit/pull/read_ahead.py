"""Pipelined walks: the next pages are on their way while the caller works on the current one.

``read_ahead``/``aread_ahead`` take any walk of pages (``client.rewards.pages()`` and the
like) and fetch ahead of the caller: the next page by default, or up to ``depth`` pages
for a caller that takes several at once. A page is handed over once the next page's
request is written (``sent``), so the server works while the caller does.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Generator,
    Iterable,
    Iterator,
)
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from .._stop import StoppablePool
from .sent import telling

P = TypeVar("P")

__all__ = ["SEND_WAIT", "aread_ahead", "read_ahead"]

_END = object()


def read_ahead(pages: Iterable[P], depth: int = 1) -> Generator[P, None, None]:
    """Yield the pages of ``pages``, fetching the next ones in a thread while the caller
    works on the current one: up to ``depth`` pages ahead, one request at a time (a
    caller that takes several pages at once keeps the fetching going meanwhile).
    Stopping early waits for the page already being requested, and no more (one waiting to
    be requested again, a retry, is not: ``_stop``).

    Each page is handed over once the next page's request is written (or after
    ``SEND_WAIT`` at most), so the server works while the caller does (see ``_sent``).
    """
    with StoppablePool(1, "the read-ahead was stopped", "lyt-read-ahead") as pool:
        source = iter(pages)
        coming = collections.deque(_fetch_next(pool, source) for _ in range(max(depth, 1)))
        try:
            while (page := coming.popleft()[0].result()) is not _END:
                coming.append(_fetch_next(pool, source))
                coming[0][1].wait(SEND_WAIT)
                yield page
        finally:
            for future, _ in coming:  # those not started yet are never sent
                future.cancel()


SEND_WAIT = 0.05
"""Seconds a read-ahead waits at most for the next request to go out before handing on a
page (a connection being opened, a retry's back-off)."""


def _fetch_next(
    pool: ThreadPoolExecutor, source: Iterator[P]
) -> tuple[Future[Any], threading.Event]:
    """The next page of ``source`` (``_END`` after the last), fetched in ``pool``, and the
    event set once its request is written (or the fetch is over)."""
    sent = threading.Event()

    def fetch() -> Any:
        try:
            with telling(sent.set):
                return next(source, _END)
        finally:
            sent.set()

    return pool.submit(fetch), sent


async def aread_ahead(pages: AsyncIterable[P], depth: int = 1) -> AsyncGenerator[P, None]:
    """Async twin of ``read_ahead``: the next page is a task, and each page is handed over
    once that task's request is written (or after ``SEND_WAIT``); stopping early cancels
    it. With ``depth`` above 1, one task fetches page after page into a queue of that
    many while the caller works; stopping early cancels it too."""
    if depth > 1:
        async for page in _queued(aiter(pages), depth):
            yield page
        return
    source = aiter(pages)
    coming, _ = _anext_page(source)
    try:
        while (page := await coming) is not _END:
            coming, sent = _anext_page(source)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(sent.wait(), SEND_WAIT)
            yield page
    finally:
        if not coming.done():
            coming.cancel()
            await asyncio.gather(coming, return_exceptions=True)


async def _queued(source: AsyncIterator[P], depth: int) -> AsyncIterator[P]:
    """The pages of ``source``, fetched by a task of their own up to ``depth`` ahead."""
    arrived: asyncio.Queue[Any] = asyncio.Queue(depth)

    async def fetch() -> None:
        try:
            async for page in source:
                await arrived.put(page)
        except Exception as exc:  # handed to the caller after the pages before it
            await arrived.put(_Failed(exc))
        await arrived.put(_END)

    fetching = asyncio.ensure_future(fetch())
    try:
        while (page := await arrived.get()) is not _END:
            if isinstance(page, _Failed):
                raise page.error
            yield page
    finally:
        fetching.cancel()
        await asyncio.gather(fetching, return_exceptions=True)


class _Failed:
    """A fetch's error, queued behind the pages fetched before it."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _anext_page(source: AsyncIterator[P]) -> tuple[asyncio.Future[Any], asyncio.Event]:
    """The task fetching the next page of ``source`` (``_END`` after the last), and the
    event set once its request is written (or the task is over)."""
    sent = asyncio.Event()
    with telling(sent.set):  # the task copies this context
        coming = asyncio.ensure_future(anext(source, _END))
    coming.add_done_callback(lambda _: sent.set())
    return coming, sent
