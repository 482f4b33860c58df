"""Pulling one kind of frame through a client resource, with a progress bar.

``client.rewards.frame(**query)`` and friends land here: the resource's
``pages`` iterator is walked at the largest page size (unless the query sets
``limit``), items are collected, and the kind's builder turns them into the
declared frame. A ``tqdm.auto`` bar appears once a second page is on its way,
so a one-page pull stays silent; ``progress=False`` silences it always.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pandas as pd

from ..models.listing import MAX_LIMIT
from .registry import BUILDERS, schema

__all__ = ["RESOURCE_KINDS", "Progress", "aframe", "frame"]

RESOURCE_KINDS: dict[str, str] = {
    "Rewards": "rewards",
    "Benefits": "benefits",
    "CardDefinitions": "card_definitions",
    "TierStructures": "tier_structures",
    "Programs": "programs",
    "Members": "members",
    "PendingBuckets": "pending_buckets",
}
"""Default frame kind of each client resource group (async twins share it)."""


class Progress:
    """A row counter that shows a bar only when a pull spans more than one page."""

    def __init__(self, desc: str, enabled: bool = True) -> None:
        self.desc = desc
        self.enabled = enabled
        self.rows = 0
        self._bar: Any = None

    def page(self, rows: int, more: bool) -> None:
        self.rows += rows
        if self._bar is None and self.enabled and more:
            from tqdm.auto import tqdm

            self._bar = tqdm(desc=self.desc, unit=" rows", initial=self.rows, leave=False)
        elif self._bar is not None:
            self._bar.update(rows)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _kind(resource: Any, kind: str | None) -> str:
    if kind is not None:
        schema(kind)
        return kind
    name = type(resource).__name__.removeprefix("Async")
    try:
        return RESOURCE_KINDS[name]
    except KeyError:
        raise TypeError(f"{type(resource).__name__} has no DataFrame form") from None


def _query(query: dict[str, Any]) -> dict[str, Any]:
    query.setdefault("limit", MAX_LIMIT)
    return query


def frame(
    resource: Any, *args: Any, kind: str | None = None, progress: bool = True, **query: Any
) -> pd.DataFrame:
    """Every item of a sync resource's list query as the frame of ``kind``."""
    kind = _kind(resource, kind)
    pages: Iterator[Any] = resource.pages(*args, **_query(query))
    bar = Progress(kind, progress)
    items: list[Any] = []
    try:
        for page in pages:
            items.extend(page.data)
            bar.page(len(page.data), bool(page.next_cursor and page.data))
    finally:
        bar.close()
    return BUILDERS[kind](items)


async def aframe(
    resource: Any, *args: Any, kind: str | None = None, progress: bool = True, **query: Any
) -> pd.DataFrame:
    """Async twin of ``frame`` for the async client's resources."""
    kind = _kind(resource, kind)
    pages: AsyncIterator[Any] = resource.pages(*args, **_query(query))
    bar = Progress(kind, progress)
    items: list[Any] = []
    try:
        async for page in pages:
            items.extend(page.data)
            bar.page(len(page.data), bool(page.next_cursor and page.data))
    finally:
        bar.close()
    return BUILDERS[kind](items)
