"""Pulling one kind of frame through a resource's pages, with a progress bar.

``client.rewards.frame(**query)`` and friends land here: the resource's
``pages`` are walked at the largest page size (unless the query sets
``limit``), the next page is requested while the current one is turned into
rows (``read_ahead``), a ``PageCollector`` hands on their items and counts
rows, and the kind's builder (``lyt_toolkit.frames``) turns them into the
declared frame. Kinds with a model-free row source (``frames.registry.ROW_SOURCES``)
arrive as ``PlainPage``s: each page's rows are read straight from the parsed JSON,
and only a page holding an item outside the plain form is validated into models
and read from them; the frame is the same either way. Both pulls feed the builder
as pages arrive, so neither holds more than a few pages of items: the async one
hands each page to the builder running in a worker thread. The bar counts rows
and pages and appears once a second page is on its way, so a one-page pull stays
silent; ``progress=False`` silences it always.
"""

from __future__ import annotations

import asyncio
import queue
from collections.abc import AsyncIterable, Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any

from .._progress import Progress, ProgressBar
from ..frames._plain import NotPlain
from ..frames.registry import BUILDERS, ROW_SOURCES, schema
from ..frames.schema import FrameBuilder
from ..models.listing import MAX_LIMIT
from ._plain_page import PlainPage
from .pagination import aread_ahead, read_ahead

if TYPE_CHECKING:
    import pandas as pd

    from ..models import Page

__all__ = ["PageCollector", "add_page", "apull_frame", "assemble", "frame_query", "pull_frame"]

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

    def stream(self, pages: Iterable[Any]) -> Iterator[Any]:
        """``pages`` one by one, each counted as it arrives."""
        for page in pages:
            self.count(page)
            yield page


def add_page(builder: FrameBuilder, kind: str, page: Page[Any] | PlainPage) -> None:
    """Add one page of ``kind`` (a kind of ``ROW_SOURCES``) to ``builder``: read without
    models, column by column, when every item of a ``PlainPage`` is plain, else from the
    validated models."""
    source = ROW_SOURCES[kind]
    if isinstance(page, PlainPage):
        try:
            builder.add_columns(source.plain(page.data))
            return
        except NotPlain:
            page = page.models()
    builder.add(source.models(page.data))


def assemble(kind: str, pages: Iterable[Any]) -> pd.DataFrame:
    """The frame of ``kind`` from its pages, taken one at a time."""
    if kind not in ROW_SOURCES:
        return BUILDERS[kind](chain.from_iterable(page.data for page in pages))
    builder = FrameBuilder(schema(kind))
    for page in pages:
        add_page(builder, kind, page)
    return builder.frame()


def pull_frame(pages: Iterable[Any], kind: str, progress: Progress) -> pd.DataFrame:
    """Every item of ``pages`` as the frame of ``kind``."""
    collector = PageCollector(kind, progress)
    with collector.bar:
        frame = assemble(kind, collector.stream(read_ahead(pages)))
    return frame


async def apull_frame(pages: AsyncIterable[Any], kind: str, progress: Progress) -> pd.DataFrame:
    """Async twin of ``pull_frame``: the builder takes each page in a worker thread."""
    collector = PageCollector(kind, progress)
    arrived: queue.SimpleQueue[Any] = queue.SimpleQueue()
    with collector.bar:
        building = asyncio.ensure_future(asyncio.to_thread(assemble, kind, iter(arrived.get, _END)))
        try:
            async for page in aread_ahead(pages):
                collector.count(page)
                arrived.put(page)
                if building.done():  # the builder failed: its error is raised below
                    break
        except BaseException:
            arrived.put(_END)  # the builder finishes on what came; its frame is dropped
            await asyncio.gather(building, return_exceptions=True)
            raise
        arrived.put(_END)
        return await building
