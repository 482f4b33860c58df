"""Walking paginated lists without the caller touching a cursor or a page number.

``walk``/``awalk`` fetch page after page, asking a ``next`` function for the
request of the following page until it says there is none. Cursor lists
(``/v2``) resend the same query (filters, junction, order, limit) with each
``cursor.next``, because the service binds a cursor to the query that made it;
they stop on a page without a next cursor or without data, and raise
``PaginationError`` if the service ever hands back a cursor it already gave or
a walk passes ``max_pages`` (a server handing out new cursors forever).
Numbered lists (``/v1`` promotion tiers) bring their own ``next``.

``read_ahead``/``aread_ahead`` pipeline a walk: the next page is on its way
while the caller works on the current one.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import PaginationError
from ._query import ListQuery
from ._sent import telling
from .config import DEFAULT_MAX_PAGES

if TYPE_CHECKING:
    from ..models import Page

P = TypeVar("P")
R = TypeVar("R")
T = TypeVar("T")

__all__ = [
    "aiter_items",
    "aiter_pages",
    "aread_ahead",
    "awalk",
    "iter_items",
    "iter_pages",
    "read_ahead",
    "walk",
]

_END = object()


def walk(fetch: Callable[[R], P], first: R, after: Callable[[P, R], R | None]) -> Iterator[P]:
    """Yield ``fetch(first)``, then the page of each request ``after`` names, until None."""
    request: R | None = first
    while request is not None:
        page = fetch(request)
        yield page
        request = after(page, request)


async def awalk(
    fetch: Callable[[R], Awaitable[P]], first: R, after: Callable[[P, R], R | None]
) -> AsyncIterator[P]:
    """Async twin of ``walk``."""
    request: R | None = first
    while request is not None:
        page = await fetch(request)
        yield page
        request = after(page, request)


def read_ahead(pages: Iterable[P], depth: int = 1) -> Iterator[P]:
    """Yield the pages of ``pages``, fetching the next ones in a thread while the caller
    works on the current one: up to ``depth`` pages ahead, one request at a time (a
    caller that takes several pages at once keeps the fetching going meanwhile).
    Stopping early waits for the page already being requested, and no more.

    Each page is handed over once the next page's request is written (or after
    ``SEND_WAIT`` at most), so the server works while the caller does (see ``_sent``).
    """
    with ThreadPoolExecutor(1, thread_name_prefix="lyt-read-ahead") as pool:
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


async def aread_ahead(pages: AsyncIterable[P], depth: int = 1) -> AsyncIterator[P]:
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


def _cursor_follower(max_pages: int) -> Callable[[Page[T], ListQuery], ListQuery | None]:
    """The ``after`` of one cursor walk: the same query at the next cursor, if any."""
    seen: set[str] = set()

    def after(page: Page[T], query: ListQuery) -> ListQuery | None:
        cursor = page.next_cursor
        if not cursor or page.empty:  # ``empty``: a plain page need not be parsed yet
            return None
        name = query.spec.name
        if cursor in seen or cursor == query.cursor:
            raise PaginationError(
                f"the {name} list returned a cursor a second time after "
                f"{len(seen) + 1} page(s); stopped rather than loop forever"
            )
        if len(seen) + 1 >= max_pages:
            raise PaginationError(
                f"the {name} list still had more after {max_pages} pages, the client's "
                "max_pages bound; stopped (a service handing out new cursors forever?). "
                "Narrow the query with filters or raise max_pages"
            )
        seen.add(cursor)
        return query.with_cursor(cursor)

    return after


def iter_pages(
    fetch: Callable[[ListQuery], Page[T]], query: ListQuery, max_pages: int = DEFAULT_MAX_PAGES
) -> Iterator[Page[T]]:
    """Yield every page of ``query``, starting from its cursor (if any), at most ``max_pages``."""
    return walk(fetch, query, _cursor_follower(max_pages))


def iter_items(
    fetch: Callable[[ListQuery], Page[T]], query: ListQuery, max_pages: int = DEFAULT_MAX_PAGES
) -> Iterator[T]:
    """Yield every item of every page of ``query``."""
    for page in iter_pages(fetch, query, max_pages):
        yield from page.data


def aiter_pages(
    fetch: Callable[[ListQuery], Awaitable[Page[T]]],
    query: ListQuery,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> AsyncIterator[Page[T]]:
    """Async twin of ``iter_pages``."""
    return awalk(fetch, query, _cursor_follower(max_pages))


async def aiter_items(
    fetch: Callable[[ListQuery], Awaitable[Page[T]]],
    query: ListQuery,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> AsyncIterator[T]:
    """Async twin of ``iter_items``."""
    async for page in aiter_pages(fetch, query, max_pages):
        for item in page.data:
            yield item
