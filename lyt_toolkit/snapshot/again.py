"""Pulling a snapshot's program again as it was pulled, and what that costs, counted first.

``again_sample`` is the sample a pull again draws for a sampled snapshot: the ``Sample`` its
design was drawn by (``SampleDesign.drawn_by``: size asked, seed, strata, join bands and
allocation), so that the same members list draws the same sample. ``again_calls`` counts
what ``ProgramSnapshot.pull(client, kinds=snapshot.kinds, sample=again_sample(snapshot))``
sends when the service holds what the snapshot holds, by ``cost``'s rules: one token
request, one call per page of 100 of each top-level list the kinds need, one read by ID of
each card definition the snapshot's frames point at that the list did not return (found or
not: a 404 leaves no row, only references marked not found; ``references.read_by_id``),
the programs list and each program's members as the pull walks them (in ``created_at``
windows, counted by the pull's own walk run on the objects held: ``pull.window_cost``),
one read per member read (the sample's only) and one call per page of 100 of the buckets
of each card holding pending points. That count is exact for a
snapshot holding every level of the member tree above its kinds (programs, members and,
for the buckets, cards: a whole pull of every kind does); a snapshot of fewer kinds holds
only part of the lists its pull walked (the programs then are those its members belong to).
A snapshot that says what its own pull sent (``calls``, retries included) is counted at that
at least.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ..frames.sample import Sample
from ..models.listing import MAX_LIMIT
from ..pull.window_cost import member_list_calls, windowed_calls
from .cost import pages, tree_depth
from .references import read_by_id

if TYPE_CHECKING:
    from .model import ProgramSnapshot

__all__ = ["again_calls", "again_sample"]

_LISTS = (
    (("rewards", "reward_costs"), "rewards"),
    (("benefits",), "benefits"),
    (("card_definitions",), "card_definitions"),
    (("tier_structures",), "tier_structures"),
)
"""The top-level lists (``pull.program_lists``): the kinds each feeds, the frame it fills."""


def again_sample(snapshot: ProgramSnapshot) -> Sample | None:
    """The sample a pull of ``snapshot`` again draws: the ``Sample`` ``snapshot.sample`` was
    drawn by (``SampleDesign.drawn_by``); None for a whole snapshot (every member read)."""
    return None if snapshot.sample is None else snapshot.sample.drawn_by


def again_calls(snapshot: ProgramSnapshot) -> int:
    """The calls a pull of ``snapshot``'s kinds and sample again sends (see the module)."""
    kinds, depth = snapshot.kinds, tree_depth(snapshot.kinds)
    calls = 1  # the token request
    for feeds, frame in _LISTS:
        if not kinds & set(feeds):
            continue
        rows = getattr(snapshot, frame)
        if frame == "card_definitions":
            rows = rows[rows["listed"].astype(bool).to_numpy()]
        calls += pages(len(rows), MAX_LIMIT)
    calls += len(read_by_id(snapshot, kinds))
    if depth >= 1:
        programs = _programs(snapshot)
        calls += windowed_calls(programs)
    if depth >= 2:
        members = _rows(snapshot.members, "id", "program_id", "created_at")
        calls += member_list_calls((p["id"] for p in programs), members)
    if depth >= 3:
        calls += len(snapshot.members) if snapshot.sample is None else snapshot.sample.size
    if depth >= 4:
        calls += _bucket_lists(snapshot)
    sent = snapshot.calls
    return calls if sent is None else max(calls, sent.used + sent.recalled)


def _programs(snapshot: ProgramSnapshot) -> list[dict[str, Any]]:
    """The programs the pull lists, as the snapshot holds them (``id``, ``created_at``), and
    those its members belong to that it does not hold (a snapshot without ``programs``)."""
    programs = _rows(snapshot.programs, "id", "created_at")
    held = {p["id"] for p in programs}
    joined = snapshot.members["program_id"].dropna().unique()
    return programs + [{"id": p, "created_at": None} for p in joined if p not in held]


def _rows(frame: pd.DataFrame, *columns: str) -> list[dict[str, Any]]:
    """``frame``'s ``columns`` as one dict a row, a missing value None, an instant a
    ``datetime`` (``pull.windows.instant_ms`` reads it four times as fast as a Timestamp)."""
    cells = []
    for column in columns:
        values, held = frame[column], frame[column].notna().to_numpy()
        if values.dtype.kind == "M":
            values = pd.Series(pd.DatetimeIndex(values).to_pydatetime(), dtype=object)
        cells.append([v if h else None for v, h in zip(values.to_numpy(object), held, strict=True)])
    return [dict(zip(columns, row, strict=True)) for row in zip(*cells, strict=True)]


def _bucket_lists(snapshot: ProgramSnapshot) -> int:
    """The calls of listing the buckets of each card holding pending points: a page of 100
    of the buckets the snapshot holds for it, one call at least."""
    cards = snapshot.cards
    holding = cards.loc[cards["balance_pending_points"].fillna(0) != 0, "id"]
    held = snapshot.pending_buckets.drop_duplicates("id")["card_id"].value_counts()
    return sum(pages(int(held.get(card, 0)), MAX_LIMIT) for card in holding)
