"""``awalk_windows`` over random ``created_at`` distributions (crowds, bursts, growth), on a
list kept in memory that answers as the sandbox does (``sandbox.query``: strict ``$after`` /
``$before`` on the wire's millisecond instants, ``-created_at`` then ID descending, the ID
following the direction): every object once, in order, within the calls the walk promises."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lyt_toolkit.pull.window_cost import windowed_calls
from lyt_toolkit.pull.windows import NOT_IN_MAX, SPLIT_EVERY, awalk_windows, wire_ms

BASE = 1_767_225_600_000


@dataclass
class _Page:
    data: list[dict[str, Any]]
    next_cursor: str | None

    @property
    def empty(self) -> bool:
        return not self.data


class _List:
    """A list of ``{"id", "created_at"}`` answering ``pages(**query)`` one page a call."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items
        self.calls = 0

    def pages(
        self,
        *,
        limit: int,
        order: str = "-created_at",
        filters: dict[str, Any] | None = None,
        cursor: str | None = None,
    ) -> AsyncIterator[_Page]:
        return self._walk(limit, order, filters or {}, cursor)

    async def _walk(
        self, limit: int, order: str, filters: dict[str, Any], cursor: str | None
    ) -> AsyncIterator[_Page]:
        dates = filters.get("created_at", {})
        excluded = set(filters.get("id", {}).get("$not_in", []))
        rows = [
            i
            for i in self.items
            if ("$after" not in dates or i["created_at"] > dates["$after"])
            and ("$before" not in dates or i["created_at"] < dates["$before"])
            and i["id"] not in excluded
        ]
        rows.sort(key=lambda i: (i["created_at"], i["id"]), reverse=order.startswith("-"))
        start = int(cursor.removeprefix("c")) if cursor else 0
        while True:
            self.calls += 1
            page = rows[start : start + limit]
            start += limit
            yield _Page(page, f"c{start}" if start < len(rows) else None)
            if start >= len(rows):
                return


def _sequential(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(items, key=lambda i: (i["created_at"], i["id"]), reverse=True)


def _held(ordered: list[dict[str, Any]]) -> int:
    """The objects the first page and the probe hold at their last instants."""
    if len(ordered) <= 100:
        return 0
    newest, oldest = ordered[:100], ordered[::-1][:100]
    return sum(i["created_at"] == newest[-1]["created_at"] for i in newest) + sum(
        i["created_at"] == oldest[-1]["created_at"] for i in oldest
    )


def _offsets(size: int, shape: str, seed: int) -> list[int]:
    """``size`` instants (milliseconds after ``BASE``) drawn as ``shape`` says."""
    rng = random.Random(seed)
    if shape == "crowded":  # a few instants, each shared by hundreds
        return [rng.randrange(4) for _ in range(size)]
    if shape == "spread":
        return [rng.randrange(10**9) for _ in range(size)]
    if shape == "growth":  # ever more per day, as a program's members join
        return [int(10**9 * math.sqrt(rng.random())) for _ in range(size)]
    crowds = [0, 7, 10**6, 10**8]  # bursts: crowds at far-apart instants, a few between
    return [rng.choice(crowds) if rng.random() < 0.8 else rng.randrange(10**8) for _ in range(size)]


@settings(max_examples=80)
@example(200, "crowded", 0, 1, 1)  # make explore found it: exactly two pages
@example(200, "spread", 0, SPLIT_EVERY, 8)
@given(
    st.integers(0, 2500),
    st.sampled_from(["crowded", "spread", "growth", "bursts"]),
    st.integers(0, 2**32),
    st.sampled_from([1, 2, 5, SPLIT_EVERY]),
    st.integers(1, 9),
)
def test_every_object_once_in_order_within_the_calls(
    size: int, shape: str, seed: int, split_every: int, concurrency: int
) -> None:
    offsets = _offsets(size, shape, seed)
    items = [
        {"id": f"m{n:05d}", "created_at": wire_ms(BASE + offset)}
        for n, offset in enumerate(offsets)
    ]
    listed = _List(items)
    walked = asyncio.run(
        awalk_windows(listed.pages, concurrency=concurrency, split_every=split_every)
    )
    ordered = _sequential(items)
    assert [i["id"] for i in walked] == [i["id"] for i in ordered]
    assert windowed_calls(items, split_every=split_every) == listed.calls  # the estimate's
    sequential = max(1, math.ceil(len(items) / 100))
    if sequential <= 2:  # but two full pages: they end where the other starts, and no
        # answer says nothing lies between them, so the walk reads the (empty) range
        assert listed.calls == sequential + (len(items) == 200)
    # the windows' last pages, one split per split_every pages, the probe; ties beyond
    # what $not_in takes are read again
    again = math.ceil(max(0, _held(ordered) - NOT_IN_MAX) / 100)
    assert listed.calls <= sequential + 1 + (listed.calls - 2) // split_every + again
    if split_every == SPLIT_EVERY and not again:
        assert listed.calls <= 1.05 * sequential + 1
