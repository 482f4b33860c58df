"""Pulling one kind of frame through a resource's pages, with a progress bar.

``client.rewards.frame(**query)`` and friends land here: the resource's
``pages`` are walked at the largest page size (unless the query sets
``limit``), the next page is requested while the current one is turned into
rows (``read_ahead``), a ``PageCollector`` hands on their items and counts
rows, and the kind's builder (``lyt_toolkit.frames``) turns them into the
declared frame. Both pulls feed the builder as pages arrive, so neither holds
more than a few pages of models: the async one hands each page to the builder
running in a worker thread. The bar counts rows and pages and appears once a
second page is on its way, so a one-page pull stays silent; ``progress=False``
silences it always.
"""

from __future__ import annotations

import asyncio
import queue
from collections.abc import AsyncIterable, Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any

from .._progress import Progress, ProgressBar
from ..frames.registry import BUILDERS, schema
from ..models.listing import MAX_LIMIT
from .pagination import aread_ahead, read_ahead

if TYPE_CHECKING:
    import pandas as pd

    from ..models import Page

__all__ = ["PageCollector", "apull_frame", "frame_query", "pull_frame"]

_END: Any = object()
"""Put on the queue of an async pull's builder after its last page."""


def frame_query(query: dict[str, Any]) -> dict[str, Any]:
    """The list query of a pull: the largest page size unless ``limit`` is set."""
    return {"limit": MAX_LIMIT, **query}


class PageCollector:
    """Counts a pull's pages and rows on its progress bar."""

    def __init__(self, kind: str, progress: Progress) -> None:
        schema(kind)  # an unknown kind fails before any request
        self.kind = kind
        self.bar = ProgressBar(progress, desc=kind, unit="row", lazy=True)

    def count(self, page: Page[Any]) -> None:
        """Count one page and its rows; the bar shows once another page will follow."""
        self.bar.advance(len(page.data), pages=1)
        if page.next_cursor and page.data:
            self.bar.show()

    def stream(self, pages: Iterable[Page[Any]]) -> Iterator[Any]:
        """The items of ``pages`` one by one, each page counted as it arrives."""
        for page in pages:
            self.count(page)
            yield from page.data


def pull_frame(pages: Iterable[Page[Any]], kind: str, progress: Progress) -> pd.DataFrame:
    """Every item of ``pages`` as the frame of ``kind``."""
    collector = PageCollector(kind, progress)
    with collector.bar:
        frame = BUILDERS[kind](collector.stream(read_ahead(pages)))
    return frame


async def apull_frame(
    pages: AsyncIterable[Page[Any]], kind: str, progress: Progress
) -> pd.DataFrame:
    """Async twin of ``pull_frame``: the builder takes each page in a worker thread."""
    collector = PageCollector(kind, progress)
    arrived: queue.SimpleQueue[Any] = queue.SimpleQueue()
    items = chain.from_iterable(iter(arrived.get, _END))
    with collector.bar:
        building = asyncio.ensure_future(asyncio.to_thread(BUILDERS[kind], items))
        try:
            async for page in aread_ahead(pages):
                collector.count(page)
                arrived.put(page.data)
                if building.done():  # the builder failed: its error is raised below
                    break
        except BaseException:
            arrived.put(_END)  # the builder finishes on what came; its frame is dropped
            await asyncio.gather(building, return_exceptions=True)
            raise
        arrived.put(_END)
        return await building
