"""Walking paginated lists without the caller touching a cursor or a page number.

``walk``/``awalk`` fetch page after page, asking a ``next`` function for the
request of the following page until it says there is none. Cursor lists
(``/v2``) resend the same query (filters, junction, order, limit) with each
``cursor.next``, because the service binds a cursor to the query that made it;
they stop on a page without a next cursor or without data, and raise
``PaginationError`` if the service ever hands back a cursor it already gave or
a walk passes ``max_pages`` (a server handing out new cursors forever).
Numbered lists (``/v1`` promotion tiers) bring their own ``next``.

``lyt_toolkit.pull.read_ahead`` pipelines a walk (the next page on its way while the
caller works on the current one); ``read_ahead`` and ``aread_ahead`` are importable from
here too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from .._text import counted
from ..errors import PaginationError
from ..pull.read_ahead import aread_ahead, read_ahead  # where they lived before pull
from ._query import ListQuery
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
                f"{counted(len(seen) + 1, 'page')}; stopped rather than loop forever"
            )
        if len(seen) + 1 >= max_pages:
            raise PaginationError(
                f"the {name} list still had more after {counted(max_pages, 'page')}, the client's "
                "max_pages bound; stopped (a service handing out new cursors forever?). "
                "Narrow the query with filters or raise max_pages"
            )
        seen.add(cursor)
        return query.with_cursor(cursor)

    return after


# unasync: generated from the async code below by scripts/unasync.py; do not edit
def walk(fetch: Callable[[R], P], first: R, after: Callable[[P, R], R | None]) -> Iterator[P]:
    """Yield ``fetch(first)``, then the page of each request ``after`` names, until None."""
    request: R | None = first
    while request is not None:
        page = fetch(request)
        yield page
        request = after(page, request)


def iter_pages(
    fetch: Callable[[ListQuery], Page[T]],
    query: ListQuery,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> Iterator[Page[T]]:
    """Yield every page of ``query``, starting from its cursor (if any), at most
    ``max_pages``."""
    return walk(fetch, query, _cursor_follower(max_pages))


def iter_items(
    fetch: Callable[[ListQuery], Page[T]],
    query: ListQuery,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> Iterator[T]:
    """Yield every item of every page of ``query``."""
    for page in iter_pages(fetch, query, max_pages):
        for item in page.data:
            yield item


# unasync: end of the generated sync code; its async source follows
async def awalk(
    fetch: Callable[[R], Awaitable[P]], first: R, after: Callable[[P, R], R | None]
) -> AsyncIterator[P]:
    """Async twin of ``walk``."""
    # sync: """Yield ``fetch(first)``, then the page of each request ``after`` names, until None."""
    request: R | None = first
    while request is not None:
        page = await fetch(request)
        yield page
        request = after(page, request)


def aiter_pages(
    fetch: Callable[[ListQuery], Awaitable[Page[T]]],
    query: ListQuery,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> AsyncIterator[Page[T]]:
    """Async twin of ``iter_pages``."""
    # sync: """Yield every page of ``query``, starting from its cursor (if any), at most
    # sync: ``max_pages``."""
    return awalk(fetch, query, _cursor_follower(max_pages))


async def aiter_items(
    fetch: Callable[[ListQuery], Awaitable[Page[T]]],
    query: ListQuery,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> AsyncIterator[T]:
    """Async twin of ``iter_items``."""
    # sync: """Yield every item of every page of ``query``."""
    async for page in aiter_pages(fetch, query, max_pages):
        for item in page.data:
            yield item
