"""Walking cursor-paginated lists without the caller touching a cursor.

``list()`` returns one ``Page``; ``iter()`` yields items across pages by
resending the same query (filters, junction, order, limit) with each
``cursor.next``, because the service binds a cursor to the query that made it.
Iteration stops on a page without a next cursor or without data, and refuses
to loop if the service ever hands back a cursor it already gave.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from ..errors import LytError
from ._query import ListQuery

if TYPE_CHECKING:
    from ..models import Page

T = TypeVar("T")

__all__ = ["aiter_items", "aiter_pages", "iter_items", "iter_pages"]


def _next_query(page: Page[T], query: ListQuery, seen: set[str]) -> ListQuery | None:
    cursor = page.next_cursor
    if not cursor or not page.data:
        return None
    if cursor in seen:
        raise LytError(
            f"the {query.spec.name} list returned a cursor twice; stopping to avoid a loop"
        )
    seen.add(cursor)
    return query.with_cursor(cursor)


def iter_pages(fetch: Callable[[ListQuery], Page[T]], query: ListQuery) -> Iterator[Page[T]]:
    """Yield every page of ``query``, starting from its cursor (if any)."""
    seen: set[str] = set()
    current: ListQuery | None = query
    while current is not None:
        page = fetch(current)
        yield page
        current = _next_query(page, current, seen)


def iter_items(fetch: Callable[[ListQuery], Page[T]], query: ListQuery) -> Iterator[T]:
    """Yield every item of every page of ``query``."""
    for page in iter_pages(fetch, query):
        yield from page.data


async def aiter_pages(
    fetch: Callable[[ListQuery], Awaitable[Page[T]]], query: ListQuery
) -> AsyncIterator[Page[T]]:
    """Async twin of ``iter_pages``."""
    seen: set[str] = set()
    current: ListQuery | None = query
    while current is not None:
        page = await fetch(current)
        yield page
        current = _next_query(page, current, seen)


async def aiter_items(
    fetch: Callable[[ListQuery], Awaitable[Page[T]]], query: ListQuery
) -> AsyncIterator[T]:
    """Async twin of ``iter_items``."""
    async for page in aiter_pages(fetch, query):
        for item in page.data:
            yield item
