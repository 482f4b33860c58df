"""Cross-checks of a pull: which card definitions the data points at, and marking them found.

Card definitions that something references but the list did not return are
fetched by ID; references that still do not resolve are marked
(``card_definition_found`` False) rather than dropped, because a dangling
reference is exactly what an audit wants to see. ``read_by_id`` gives, from a snapshot's
frames, the definitions its pull read by ID, found or not: what a pull of it again reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from ..frames.pending import with_statuses
from ..frames.schema import Schema
from ..models import Benefit, Member, MemberWithCards, PendingBucket, Program, Reward, TierStructure
from .record import Frames

__all__ = [
    "REFERENCES",
    "join_statuses",
    "listed_definitions",
    "mark_card_definitions",
    "read_by_id",
    "referenced",
    "referenced_card_definitions",
    "references_in",
]

REFERENCES = {
    "rewards": ("digital_points_card_definition_id",),
    "reward_costs": ("card_definition_id",),
    "benefits": (
        "points_card_definition_id",
        "proportional_card_definition_id",
        "card_definition_id",
    ),
    "tier_structures": ("card_definition_id",),
    "cards": ("card_definition_id",),
    "pending_buckets": ("card_definition_id",),
}
"""The columns of each frame that point at a card definition."""


def referenced_card_definitions(
    rewards: Iterable[Reward],
    benefits: Iterable[Benefit],
    tiers: Iterable[TierStructure],
    members: Iterable[MemberWithCards],
    buckets: Iterable[PendingBucket],
) -> set[str]:
    """Every card definition ID that the pulled data points at."""
    ids: set[str] = set()
    for r in rewards:
        for cost in r.costs:
            ids.update(s.card_definition_id for s in cost.spending or [])
        points = r.digital.loyalty_card_points if r.digital else None
        if points is not None:
            ids.add(points.card_definition_id)
    for b in benefits:
        for source in (b.points, b.points_proportional):
            if source is not None:
                ids.add(source.card_definition_id)
    ids.update(t.card_definition_id for t in tiers if t.card_definition_id)
    ids.update(mc.card.card_definition_id for m in members for mc in m.cards if mc.card)
    ids.update(b.card_definition_id for b in buckets)
    return ids


def referenced(snapshot: Frames, kinds: Iterable[str]) -> set[str]:
    """The card definitions ``snapshot``'s frames ``kinds`` point at."""
    found: set[str] = set()
    for kind in kinds:
        found |= references_in(kind, getattr(snapshot, kind))
    return found


def references_in(kind: str, frame: pd.DataFrame) -> set[str]:
    """The card definitions the rows of ``frame``, a frame of ``kind``, point at."""
    found: set[str] = set()
    for column in REFERENCES[kind]:
        found |= {str(i) for i in frame[column].dropna().astype(object)}
    return found


def listed_definitions(snapshot: Frames) -> set[str]:
    """The card definitions ``snapshot``'s pull found listed."""
    frame = snapshot.card_definitions
    return set(frame.loc[frame["listed"].astype(bool).to_numpy(), "id"].astype(object))


def read_by_id(snapshot: Frames, kinds: Iterable[str]) -> set[str]:
    """The card definitions a pull of ``kinds`` that met ``snapshot``'s data reads by ID:
    those its frames of ``kinds`` point at that the list did not return, found or not (a
    404 leaves no row, only references marked not found). None without ``card_definitions``
    among ``kinds``."""
    kinds = set(kinds)
    if "card_definitions" not in kinds:
        return set()
    pointed = referenced(snapshot, [kind for kind in REFERENCES if kind in kinds])
    return pointed - listed_definitions(snapshot)


def mark_card_definitions(
    frame: pd.DataFrame,
    schema: Schema,
    status: Mapping[str, object],
    names: Mapping[str, object] | None = None,
) -> pd.DataFrame:
    """Fill ``card_definition_found`` / ``card_definition_status`` from resolved definitions,
    and ``card_definition_name`` (from ``names``) where the schema has it."""
    ids = frame["card_definition_id"].astype(object)
    found = [None if pd.isna(i) else i in status for i in ids]
    states = [None if pd.isna(i) else status.get(i) for i in ids]
    frame["card_definition_found"] = schema.by_name["card_definition_found"].array(found)
    frame["card_definition_status"] = schema.by_name["card_definition_status"].array(states)
    if names is not None and "card_definition_name" in schema.by_name:
        named = [None if pd.isna(i) else _known(names.get(i)) for i in ids]
        frame["card_definition_name"] = schema.by_name["card_definition_name"].array(named)
    return frame


def join_statuses(
    frame: pd.DataFrame, programs: Iterable[Program], members: Iterable[Member]
) -> pd.DataFrame:
    """Add each bucket's program and member status (what activation depends on)."""
    return with_statuses(
        frame, {p.id: p.status for p in programs}, {m.id: m.status for m in members}
    )


def _known(value: object) -> object:
    """``value``, or None when missing (NA included)."""
    return None if value is None or value is pd.NA else value
