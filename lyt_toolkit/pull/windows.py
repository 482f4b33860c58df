"""Parallel walks of long lists: ``created_at`` windows walked together, joined in list order.

A list that takes ``created_at`` filters (programs, members of a program, rewards,
benefits, card definitions, tier structures) can be cut into time windows and the windows
walked at once. ``awalk_windows`` does so at the cost of the sequential cursor walk, give or
take a few calls:

1. The sequential walk's own first page (newest first). Without a next cursor the list is
   that page: the walk cost what the sequential walk costs, one call.
2. One page in ``created_at`` order: the oldest objects (the range's low end; its objects
   are kept, so the probe is not lost). When it meets the first page the list is those two.
3. The objects strictly between the two pages lie in ``[t2, t1]``, ``t2`` the probe's last
   instant and ``t1`` the first page's; that range is one window ``[t2, t1 + 1 ms)``, with
   the objects both pages already hold at ``t1`` and ``t2`` left out by ID (``$not_in``, up
   to ``NOT_IN_MAX``), so the ties at its ends are read once.
4. A window is walked with its cursor. Every ``split_every`` pages a window may hand the
   lower half of what it has left to a new window (when its own pages say at least
   ``split_every`` more pages are left): the new window ``[lo, mid)`` is walked at once, the
   old one stops at ``mid`` (the objects of its last page below ``mid`` are dropped, the new
   window holds them). A new window costs at most one call more than the sequential walk,
   and only a window that has read ``split_every`` pages splits, so splits add at most
   ``1 / split_every`` of the calls: with the probe, at most ``1.05 S + 1`` calls for a list
   the sequential walk reads in ``S`` (see ``SPLIT_EVERY``; when the two pages hold more than
   ``NOT_IN_MAX`` objects at ``t1`` and ``t2``, those beyond are read again: a call or two).
   Windows are ``created_at >= lo and < hi`` in whole milliseconds (the wire's precision):
   the service's strict filters say it as ``$after`` ``lo - 1 ms`` and ``$before`` ``hi``,
   so windows neither overlap nor leave a gap, however many objects share the instant at a
   boundary.
5. The windows are joined newest first, each in the list's order, then the probe's objects
   reversed; an object read twice (the list changing under the walk) is kept once, where the
   sequential walk would have put it first.

Every decision is taken from the answers' data, never from timing: the same data always
gives the same requests (a replay of stored answers keyed by request meets each one), only
their interleaving varies. At most ``concurrency`` requests are in flight (the semaphore
``slots`` when several walks share a bound). An object without ``created_at`` cannot be
placed in a window: the walk then goes on sequentially from the first page's cursor.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from ..models.listing import MAX_LIMIT
from .member_tree import ListAll, OnPage, Part, Request, alist_all

__all__ = [
    "NOT_IN_MAX",
    "SPLIT_EVERY",
    "WINDOWED",
    "PagesOf",
    "awalk_windows",
    "instant_ms",
    "windowed_lists",
    "wire_ms",
]

PagesOf = Callable[..., AsyncIterator[Any]]
"""One list's walk: ``pages(**query)`` (``limit``, ``order``, ``filters``, ``cursor``), as
``client.members.pages`` with the program's ID bound."""

SPLIT_EVERY = 21
"""Pages a window reads before it may split again. A walk costs at most ``N / 100 + W``
calls for ``N`` objects in ``W`` windows (each window's last page is the only one not
full), and each split needs 21 pages read, so ``calls <= S + 1 + (calls - 2) / 21``: at most
``1.05 S + 0.95`` calls for a list whose sequential walk takes ``S``."""

NOT_IN_MAX = 100
"""The most values an ``id`` ``$not_in`` condition takes (``models.listing.CONDITIONS``)."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _nothing(page: Any) -> None:
    return None


def instant_ms(item: Any) -> int | None:
    """An object's ``created_at`` in whole milliseconds since 1970 (None: it has none); a
    model's datetime or a plain page's ISO 8601 text."""
    value = item.get("created_at") if isinstance(item, dict) else getattr(item, "created_at", None)
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if not isinstance(value, datetime):
        return None
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def wire_ms(ms: int) -> str:
    """The wire form of an instant given in milliseconds: ``2026-01-15T12:00:00.000Z``."""
    moment = _EPOCH + timedelta(milliseconds=ms)
    return f"{moment.year:04d}" + moment.strftime("-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _id(item: Any) -> Any:
    return item.get("id") if isinstance(item, dict) else getattr(item, "id", None)


def _more(page: Any) -> bool:
    return bool(page.next_cursor) and not page.empty


@dataclass
class _Window:
    """Objects created in ``[lo, hi)`` (milliseconds), walked by one cursor."""

    lo: int
    hi: int
    floor: float
    """Objects per millisecond expected at ``lo`` (from the pages below it)."""
    items: list[Any] = field(default_factory=list)


@dataclass
class _Walk:
    """One windowed walk: its list, its bound on requests in flight, what it was told."""

    pages: PagesOf
    slots: asyncio.Semaphore
    on_page: Callable[[Any], None]
    limit: int
    split_every: int

    async def page(self, **query: Any) -> Any:
        """One page of ``query`` (one call), once a slot is free."""
        async with self.slots:
            walk = self.pages(limit=self.limit, **query)
            try:
                page = await anext(walk)
            finally:
                close = getattr(walk, "aclose", None)
                if close is not None:
                    await close()
        self.on_page(page)
        return page


async def awalk_windows(
    pages: PagesOf,
    *,
    concurrency: int = 8,
    slots: asyncio.Semaphore | None = None,
    limit: int = MAX_LIMIT,
    split_every: int = SPLIT_EVERY,
    on_page: Callable[[Any], None] = _nothing,
) -> list[Any]:
    """Every object of the list ``pages`` walks, in the order the sequential walk (default
    order, ``-created_at`` then ID) gives them, read in ``created_at`` windows at most
    ``concurrency`` requests at a time (or as ``slots`` allows); ``on_page`` is told of each
    page read. A list of one page costs one call, as sequentially."""
    if split_every < 1:
        raise ValueError("split_every must be at least 1")
    walk = _Walk(pages, slots or asyncio.Semaphore(concurrency), on_page, limit, split_every)
    first = await walk.page()
    if not _more(first):
        return list(first.data)
    probe = await walk.page(order="created_at")
    newest, oldest = list(first.data), list(reversed(probe.data))
    ids = {_id(item) for item in probe.data}
    if not _more(probe) or _id(newest[-1]) in ids:  # the two pages hold the whole list
        return _joined([newest, oldest])
    t1, t2 = instant_ms(newest[-1]), instant_ms(probe.data[-1])
    if t1 is None or t2 is None or any(instant_ms(i) is None for i in (*newest, *oldest)):
        return _joined([newest, await _rest(walk, first)])  # no instant to cut at
    held = [_id(i) for i in newest if instant_ms(i) == t1]
    held += [_id(i) for i in probe.data if instant_ms(i) == t2]
    excluded = held[:NOT_IN_MAX]  # any more are read again, and dropped when joined
    oldest_ms = instant_ms(probe.data[0])
    floor = len(probe.data) / max(t2 - (t2 if oldest_ms is None else oldest_ms) + 1, 1)
    between = await _walk_range(walk, _Window(t2, t1 + 1, floor), excluded)
    return _joined([newest, between, oldest])


async def _rest(walk: _Walk, first: Any) -> list[Any]:
    """The sequential walk on from ``first``'s cursor, page by page."""
    items: list[Any] = []
    page = first
    while _more(page):
        page = await walk.page(cursor=page.next_cursor)
        items.extend(page.data)
    return items


async def _walk_range(walk: _Walk, whole: _Window, excluded: list[Any]) -> list[Any]:
    """The objects of ``whole``, but ``excluded``, newest first: its windows walked together,
    each splitting as its pages say."""
    windows: list[_Window] = []
    running: set[asyncio.Task[None]] = set()

    def start(window: _Window) -> None:
        windows.append(window)
        running.add(asyncio.ensure_future(_walk_window(walk, window, excluded, start)))

    start(whole)
    try:
        while running:
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            running.difference_update(done)
            for task in done:
                task.result()  # a window's error stops the walk, as it is
    finally:  # one failing (or the walk cancelled): the others stop too
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
    windows.sort(key=lambda w: w.hi, reverse=True)
    return [item for window in windows for item in window.items]


async def _walk_window(
    walk: _Walk, window: _Window, excluded: list[Any], start: Callable[[_Window], None]
) -> None:
    """Walk ``window`` with its cursor to its end, or to its low bound once it has split:
    every ``split_every`` pages, the lower half of what is left (by the objects expected,
    ``_split_at``) goes to a new window."""
    filters: dict[str, Any] = {
        "created_at": {"$after": wire_ms(window.lo - 1), "$before": wire_ms(window.hi)}
    }
    if excluded:
        filters["id"] = {"$not_in": excluded}
    page = await walk.page(filters=filters)
    read = 1
    while True:
        kept = [item for item in page.data if (instant_ms(item) or 0) >= window.lo]
        window.items.extend(kept)
        if len(kept) < len(page.data) or not _more(page):
            return
        if read % walk.split_every == 0:
            split = _split_at(window, instant_ms(page.data[-1]) or window.lo, walk)
            if split is not None:
                mid, floor = split
                start(_Window(window.lo, mid, window.floor))
                window.lo, window.floor = mid, floor
        page = await walk.page(filters=filters, cursor=page.next_cursor)
        read += 1


def _split_at(window: _Window, last: int, walk: _Walk) -> tuple[int, float] | None:
    """Where ``window`` splits, its pages having reached ``last``, and the density expected
    there (None: it goes on alone, fewer than ``split_every`` pages being expected in ``[lo,
    last]``). The density is taken to run straight from ``floor`` at ``lo`` to what the
    window read above ``last``; the split leaves half the objects expected on each side
    (the objects at ``last`` stay with the window)."""
    span = last - window.lo
    if span < 1:
        return None
    top, bottom = len(window.items) / max(window.hi - last, 1), window.floor
    if span * (top + bottom) / 2 < walk.split_every * walk.limit:
        return None
    share = _half_way(bottom, top)
    mid = window.lo + min(max(round(share * (span + 1)), 1), span)
    return mid, bottom + (top - bottom) * share


def _half_way(bottom: float, top: float) -> float:
    """The share ``u`` of a span where a density running straight from ``bottom`` to
    ``top`` has half its total below: ``bottom u + (top - bottom) u^2 / 2 = (bottom + top)
    / 4``."""
    slope = (top - bottom) / 2
    if abs(slope) < 1e-12 * max(top, bottom, 1e-300):
        return 0.5
    root = math.sqrt(bottom * bottom + slope * (bottom + top))
    return (root - bottom) / (2 * slope)


def _joined(parts: Iterable[list[Any]]) -> list[Any]:
    """The parts' objects in order, each ID once (where it first comes)."""
    seen: set[Any] = set()
    out: list[Any] = []
    for part in parts:
        for item in part:
            key = _id(item)
            if key not in seen:
                seen.add(key)
                out.append(item)
    return out


WINDOWED: frozenset[Part] = frozenset({"programs", "members"})
"""The member tree's lists that take ``created_at`` filters (bucket lists do not)."""


def windowed_lists(concurrency: int, *, split_every: int = SPLIT_EVERY) -> ListAll:
    """A ``list_all`` for ``member_tree.awalk_tree`` walking the programs and each program's
    members in ``created_at`` windows (``awalk_windows``), at most ``concurrency`` requests
    in flight across every list it walks; bucket lists are walked as ``alist_all`` walks
    them."""
    slots = asyncio.Semaphore(concurrency)

    async def list_all(client: Any, request: Request, query: Any, on_page: OnPage) -> list[Any]:
        if request.part not in WINDOWED:
            return await alist_all(client, request, query, on_page)
        group = getattr(client, request.resource)

        def pages(**asked: Any) -> AsyncIterator[Any]:
            return group.pages(*request.ids, **asked)

        def told(page: Any) -> None:
            on_page(request, page)

        return await awalk_windows(pages, slots=slots, split_every=split_every, on_page=told)

    return list_all
