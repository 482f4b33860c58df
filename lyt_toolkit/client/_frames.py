"""Pulling one kind of frame through a resource's pages, with a progress bar.

``client.rewards.frame(**query)`` and friends land here: the resource's
``pages`` are walked at the largest page size (unless the query sets
``limit``), the next page is requested while the current one is turned into
rows (``read_ahead``), a ``PageCollector`` hands on their items and counts
rows, and the kind's builder (``lyt_toolkit.frames``) turns them into the
declared frame. The sync pull feeds the builder as pages arrive, so it never
holds more than a page of models; the async one keeps the items until the
last page. The bar appears once a second page is on its way, so a one-page
pull stays silent; ``progress=False`` silences it always.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .._progress import Progress, ProgressBar
from ..frames.registry import BUILDERS, schema
from ..models.listing import MAX_LIMIT
from .pagination import aread_ahead, read_ahead

if TYPE_CHECKING:
    import pandas as pd

    from ..models import Page

__all__ = ["PageCollector", "apull_frame", "frame_query", "pull_frame"]


def frame_query(query: dict[str, Any]) -> dict[str, Any]:
    """The list query of a pull: the largest page size unless ``limit`` is set."""
    return {"limit": MAX_LIMIT, **query}


class PageCollector:
    """Keeps the items of a pull's pages and shows its progress in rows."""

    def __init__(self, kind: str, progress: Progress) -> None:
        schema(kind)  # an unknown kind fails before any request
        self.kind = kind
        self.items: list[Any] = []
        self.bar = ProgressBar(progress, desc=kind, unit="row", lazy=True)

    def add(self, page: Page[Any]) -> None:
        """Take one page's items; the bar shows once another page will follow."""
        self.items.extend(page.data)
        self.count(page)

    def count(self, page: Page[Any]) -> None:
        """Count one page's rows on the bar."""
        self.bar.advance(len(page.data))
        if page.next_cursor and page.data:
            self.bar.show()

    def stream(self, pages: Iterable[Page[Any]]) -> Iterator[Any]:
        """The items of ``pages`` one by one, each page counted as it arrives."""
        for page in pages:
            self.count(page)
            yield from page.data

    def frame(self) -> pd.DataFrame:
        """The collected items as the declared frame of ``kind``."""
        self.bar.close()
        return BUILDERS[self.kind](self.items)


def pull_frame(pages: Iterable[Page[Any]], kind: str, progress: Progress) -> pd.DataFrame:
    """Every item of ``pages`` as the frame of ``kind``."""
    collector = PageCollector(kind, progress)
    with collector.bar:
        frame = BUILDERS[kind](collector.stream(read_ahead(pages)))
    return frame


async def apull_frame(
    pages: AsyncIterable[Page[Any]], kind: str, progress: Progress
) -> pd.DataFrame:
    """Async twin of ``pull_frame``."""
    collector = PageCollector(kind, progress)
    with collector.bar:
        async for page in aread_ahead(pages):
            collector.add(page)
    return collector.frame()
