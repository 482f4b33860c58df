"""Pulling a snapshot's program again as it was pulled, and what that costs, counted first.

``again_sample`` is the sample a pull again draws for a sampled snapshot: as many members as
its design read, with its seed and strata (the pull's ``sample=``). ``again_calls`` counts
what ``ProgramSnapshot.pull(client, kinds=snapshot.kinds, sample=again_sample(snapshot))``
sends when the service holds what the snapshot holds, by ``cost``'s rules: one token
request, one call per page of 100 of each list the kinds need (each program's members
included), the card definitions read by ID, one read per member read (the sample's only)
and one bucket list per card holding pending points. The member lists, walked in
``created_at`` windows, may take a few calls more than their pages; a snapshot that says
what its own pull sent (``calls``) is counted at that at least.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..frames.sample import Sample
from ..models.listing import MAX_LIMIT
from .cost import pages, tree_depth

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
    """The sample a pull of ``snapshot`` again draws: ``snapshot.sample``'s size, seed and
    strata; None for a whole snapshot (every member read)."""
    design = snapshot.sample
    if design is None:
        return None
    return Sample(max(design.size, 1), seed=design.seed, by=design.by)


def again_calls(snapshot: ProgramSnapshot) -> int:
    """The calls a pull of ``snapshot``'s kinds and sample again sends (see the module)."""
    kinds, depth = snapshot.kinds, tree_depth(snapshot.kinds)
    calls = 1  # the token request
    for feeds, frame in _LISTS:
        if not kinds & set(feeds):
            continue
        rows = getattr(snapshot, frame)
        if frame == "card_definitions":
            listed = rows["listed"].astype(bool).to_numpy()
            calls += int((~listed).sum())  # read by ID
            rows = rows[listed]
        calls += pages(len(rows), MAX_LIMIT)
    members = snapshot.members
    if depth >= 1:
        calls += pages(len(snapshot.programs), MAX_LIMIT)
    if depth >= 2:
        counts = members["program_id"].astype(object).value_counts()
        calls += sum(pages(int(counts.get(p, 0)), MAX_LIMIT) for p in snapshot.programs["id"])
    if depth >= 3:
        calls += len(members) if snapshot.sample is None else snapshot.sample.size
    if depth >= 4:
        calls += int((snapshot.cards["balance_pending_points"].fillna(0) != 0).sum())
    sent = snapshot.calls
    return calls if sent is None else max(calls, sent.used + sent.recalled)
