"""What a windowed walk of a list costs, counted by walking the list's objects in memory.

``awalk_windows`` decides every request from the answers' data, so its calls are a function
of the list's objects alone: ``windowed_calls(items)`` runs it against those objects held
in memory (answering as the service does: strict ``created_at`` filters on whole
milliseconds, ``id`` ``$not_in``, newest first then ID, or oldest first) and counts the
pages it asks for. The pull's cost estimate counts the member lists so, which it has walked
sequentially, so that the estimate and the pull cannot disagree; ``member_list_calls`` counts
every program's member list so, the programs' and their members' objects given (as the
estimate lists them, or as a snapshot holds them).
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import AsyncIterator, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..models.listing import MAX_LIMIT
from .windows import SPLIT_EVERY, awalk_windows, instant_ms

__all__ = ["member_list_calls", "windowed_calls"]


def windowed_calls(
    items: Sequence[Any], *, limit: int = MAX_LIMIT, split_every: int = SPLIT_EVERY
) -> int:
    """The calls ``awalk_windows`` makes on a list of ``items`` (models or plain dicts with
    ``id`` and ``created_at``), walked in memory on a loop of its own (in a worker thread, so
    a caller already on a loop may call it)."""
    if len(items) <= limit:
        return 1
    listed = _Held(items)

    async def walk() -> int:
        await awalk_windows(listed.pages, limit=limit, split_every=split_every)
        return listed.calls

    with ThreadPoolExecutor(1, thread_name_prefix="lyt-window-cost") as pool:
        return pool.submit(asyncio.run, walk()).result()


def member_list_calls(programs: Iterable[Any], members: Iterable[Any]) -> int:
    """The calls of walking the member list of each of ``programs`` (their IDs) in windows,
    ``members`` (models or plain dicts with ``id``, ``program_id`` and ``created_at``) grouped
    by their program: one call for a program of no member."""
    by_program: dict[Any, list[Any]] = {program: [] for program in programs}
    for member in members:
        by_program.setdefault(_field(member, "program_id"), []).append(member)
    return sum(windowed_calls(listed) for listed in by_program.values())


@dataclass
class _Page:
    data: list[Any]
    next_cursor: str | None

    @property
    def empty(self) -> bool:
        return not self.data


class _Held:
    """The objects, oldest first by (instant, ID), answering one page per call."""

    def __init__(self, items: Sequence[Any]) -> None:
        keyed = sorted(((instant_ms(i) or 0, _id(i), i) for i in items), key=lambda k: k[:2])
        self.instants = [k[0] for k in keyed]
        self.items = [k[2] for k in keyed]
        self.ids = [k[1] for k in keyed]
        self.calls = 0

    def pages(
        self,
        *,
        limit: int,
        order: str = "-created_at",
        filters: dict[str, Any] | None = None,
        cursor: str | None = None,
    ) -> AsyncIterator[_Page]:
        return self._pages(limit, order, filters or {}, cursor)

    async def _pages(
        self, limit: int, order: str, filters: dict[str, Any], cursor: str | None
    ) -> AsyncIterator[_Page]:
        dates = filters.get("created_at", {})
        low = bisect.bisect_right(self.instants, _ms(dates["$after"])) if "$after" in dates else 0
        high = (
            bisect.bisect_left(self.instants, _ms(dates["$before"]))
            if "$before" in dates
            else len(self.items)
        )
        excluded = set(filters.get("id", {}).get("$not_in", ()))
        rows = range(low, high) if order == "created_at" else range(high - 1, low - 1, -1)
        position = int(cursor) if cursor else 0
        while True:
            self.calls += 1
            page: list[Any] = []
            while position < len(rows) and len(page) < limit:
                row = rows[position]
                position += 1
                if self.ids[row] not in excluded:
                    page.append(self.items[row])
            more = any(self.ids[rows[p]] not in excluded for p in range(position, len(rows)))
            yield _Page(page, str(position) if more else None)
            if not more:
                return


def _ms(wire: str) -> int:
    return instant_ms({"created_at": datetime.fromisoformat(wire.replace("Z", "+00:00"))}) or 0


def _id(item: Any) -> Any:
    return _field(item, "id")


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)
