"""Pulling one kind of frame through a resource's pages, with a progress bar.

``client.rewards.frame(**query)`` and friends land here: the resource's
``pages`` are walked at the largest page size (unless the query sets
``limit``), the next page is requested while the current one is turned into
rows (``read_ahead``), a ``PageCollector`` hands on their items and counts
rows, and the kind's builder (``lyt_toolkit.frames``) turns them into the
declared frame. Kinds with a model-free row source (``reward_pages.ROW_SOURCES``)
arrive as ``PlainPage``s: each page's rows are read straight from the parsed JSON,
and only a page holding an item outside the plain form is validated into models
and read from them; the frame is the same either way. Both pulls feed the builder
as pages arrive, so neither holds more than a few pages of items: the async one
hands each page to the builder running in a worker thread. The bar counts rows
and pages and appears once a second page is on its way, so a one-page pull stays
silent; ``progress=False`` silences it always.

Reward pages go faster still: ``RewardPages`` decodes them in native code
(``reward_arrow``), a batch of pages at a time, and takes the model-free
way only for a page the native decoder refuses; such pages are counted and logged.
"""

from __future__ import annotations

import asyncio
import logging
import queue
from collections.abc import AsyncIterable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .._progress import Progress, ProgressBar
from ..frames.registry import BUILDERS, schema
from ..frames.schema import FrameBuilder
from ..models.listing import MAX_LIMIT
from .json_values import NotPlain
from .pages import PlainPage
from .read_ahead import aread_ahead, read_ahead
from .reward_pages import ROW_SOURCES, Columns

if TYPE_CHECKING:
    import pandas as pd

    from ..models import Page
    from .reward_arrow import NativeRewards

__all__ = [
    "NATIVE_BATCH",
    "TYPED_TOGETHER",
    "PageCollector",
    "RewardPages",
    "apull_frame",
    "assemble",
    "frame_query",
    "page_columns",
    "pull_frame",
]

log = logging.getLogger("lyt_toolkit.pull")

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

    def count(self, page: Page[Any] | PlainPage) -> None:
        """Count one page (its rows are counted as they are read); the bar shows once
        another page will follow."""
        self.bar.advance(0, pages=1)
        if page.next_cursor and not page.empty:
            self.bar.show()

    def stream(self, pages: Iterable[Any]) -> Iterator[Any]:
        """``pages`` one by one, each counted as it arrives."""
        for page in pages:
            self.count(page)
            yield page


def page_columns(kind: str, page: Page[Any] | PlainPage) -> Columns:
    """The columns of one page of ``kind`` (a kind of ``ROW_SOURCES``): read without
    models, column by column, when every item of a ``PlainPage`` is plain, else from the
    validated models."""
    source = ROW_SOURCES[kind]
    if isinstance(page, PlainPage):
        try:
            return source.plain(page.data)
        except NotPlain:
            page = page.models()
    return schema(kind).columns_of(list(source.models(page.data)))


NATIVE_BATCH = 20
"""Reward pages decoded natively together (2,000 rewards at the largest page size): one
batch costs about as many Python calls as one page would."""


TYPED_TOGETHER = 10_000
"""Rewards whose natively decoded batches are typed together (five batches at the largest
page size): pandas' per-column costs are paid once for them, and no more decoded batches
wait to be typed than this (a pull's memory peaks at the end, where they are typed)."""


class RewardPages:
    """Reward pages into the ``rewards`` and ``reward_costs`` builders, in page order.

    ``PlainPage``s holding their bytes are decoded natively, ``NATIVE_BATCH`` at a time;
    a batch the native decoder refuses is decoded again page by page, and a page it
    refuses alone is read the model-free way (from models where that refuses too) and
    counted in ``fallback_pages``. Only the frames given a builder are typed (every page is
    checked in whole all the same). ``referenced`` collects the card definitions the built
    rows point at.
    """

    def __init__(self, rewards: FrameBuilder | None, costs: FrameBuilder | None) -> None:
        self.rewards, self.costs = rewards, costs
        self.referenced: set[str] = set()
        self.native_pages = 0
        self.fallback_pages = 0
        self._waiting: list[PlainPage] = []
        self._decoded: list[NativeRewards] = []
        """Batches decoded natively, typed together once they hold ``TYPED_TOGETHER``
        rewards, rows read another way follow, or the frames are asked for (``_settle``)."""

    def add(self, page: Page[Any] | PlainPage) -> int:
        """Take one page; the rewards read now (a page waiting for its batch is read by
        ``flush``, due once ``full``)."""
        if isinstance(page, PlainPage) and page.content is not None:
            self._waiting.append(page)
            return 0
        return self.flush() + self._slow(page)

    @property
    def full(self) -> bool:
        """A batch waits: ``flush`` now."""
        return len(self._waiting) >= NATIVE_BATCH

    def flush(self) -> int:
        """Read the pages waiting for a batch; the rewards read."""
        from .reward_arrow import decode_reward_pages

        pages, self._waiting = self._waiting, []
        if not pages:
            return 0
        assert all(p.content is not None for p in pages)
        decoded = decode_reward_pages(
            [p.content for p in pages if p.content is not None],
            [p.next_cursor for p in pages],
            rewards=self.rewards is not None,
            costs=self.costs is not None,
        )
        if decoded is None:
            if len(pages) == 1:
                return self._slow(pages[0])
            return sum(self._one(page) for page in pages)
        self.native_pages += len(pages)
        self._decoded.append(decoded)
        if sum(d.count for d in self._decoded) >= TYPED_TOGETHER:
            self._settle()
        self.referenced |= decoded.referenced
        return decoded.count

    def _settle(self) -> None:
        """Type the natively decoded batches, each frame's columns at once, into the
        builders (before any row read another way, so the rows keep their order)."""
        from .reward_arrow import typed_columns

        decoded, self._decoded = self._decoded, []
        if not decoded:
            return
        for builder, batches in (
            (self.rewards, [d.rewards for d in decoded]),
            (self.costs, [d.costs for d in decoded]),
        ):
            if builder is not None:
                builder.add_typed(
                    typed_columns(builder.schema, [b for b in batches if b is not None])
                )

    def _one(self, page: PlainPage) -> int:
        self._waiting = [page]
        return self.flush()

    def _slow(self, page: Page[Any] | PlainPage) -> int:
        self._settle()
        self.fallback_pages += isinstance(page, PlainPage)
        if self.rewards is not None:
            rewards = page_columns("rewards", page)
            self.rewards.add_columns(rewards)
            self.referenced.update(i for i in rewards["digital_points_card_definition_id"] if i)
        if self.costs is not None:
            costs = page_columns("reward_costs", page)
            self.costs.add_columns(costs)
            self.referenced.update(i for i in costs["card_definition_id"] if i)
        return len(page.data)

    def frame(self, kind: str) -> pd.DataFrame:
        """The built frame of ``kind`` (``rewards`` or ``reward_costs``), once closed."""
        builder = self.rewards if kind == "rewards" else self.costs
        if builder is None:
            raise ValueError(f"{kind} frames were not being built")
        self._settle()
        return builder.frame()

    def close(self) -> int:
        """Read what waits, and log how the pages were read; the rewards read now."""
        rows = self.flush()
        if self.fallback_pages:
            log.info(
                "reward pages: %d decoded natively, %d the slower way (a value outside the "
                "native form)",
                self.native_pages,
                self.fallback_pages,
            )
        return rows


def assemble(kind: str, pages: Iterable[Any], counted: ProgressBar | None = None) -> pd.DataFrame:
    """The frame of ``kind`` from its pages, taken one at a time (rows counted on
    ``counted``)."""
    advance = counted.advance if counted is not None else lambda rows: None
    if kind in ROW_SOURCES:  # rewards and reward costs
        builder = FrameBuilder(schema(kind))
        reader = RewardPages(builder, None) if kind == "rewards" else RewardPages(None, builder)
        for page in pages:
            advance(reader.add(page) + (reader.flush() if reader.full else 0))
        advance(reader.close())
        return reader.frame(kind)
    items: list[Any] = []
    for page in pages:
        items.extend(page.data)
        advance(len(page.data))
    return BUILDERS[kind](items)


def pull_frame(pages: Iterable[Any], kind: str, progress: Progress) -> pd.DataFrame:
    """Every item of ``pages`` as the frame of ``kind``."""
    collector = PageCollector(kind, progress)
    with collector.bar:
        ahead = NATIVE_BATCH if kind in ROW_SOURCES else 1
        frame = assemble(kind, collector.stream(read_ahead(pages, ahead)), collector.bar)
    return frame


async def apull_frame(pages: AsyncIterable[Any], kind: str, progress: Progress) -> pd.DataFrame:
    """Async twin of ``pull_frame``: the builder takes each page in a worker thread."""
    collector = PageCollector(kind, progress)
    arrived: queue.SimpleQueue[Any] = queue.SimpleQueue()
    with collector.bar:
        building = asyncio.ensure_future(
            asyncio.to_thread(assemble, kind, iter(arrived.get, _END), collector.bar)
        )
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
