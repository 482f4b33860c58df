"""The cards a plan's activations certainly change when rehearsed on a snapshot, known before
the rehearsal: what a focused verification reads of them (``verify_touched.planned_reads``).

A rehearsal's sandbox holds the snapshot, its clock at the snapshot's ``pulled_at``, and
settles each activation it accepts: the bucket's points move to its card's balance, a change
of the card's row. It accepts one only when nothing ``blocked_mask`` checks refuses it
(``lyt_toolkit.frames.pending``), and checks the card definition of the card, where the mask
checks the bucket's. So a bucket counts only when the snapshot tells all of it: the bucket on
the card the item's path names, holding points, a card of the bucket's definition, and that
definition holding points as pending by a type it names (a missing one the sandbox takes
as ``IMMEDIATE``); a status the snapshot does not hold counts against the bucket.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ..frames.pending import blocked_mask, bucket_date
from ..models.enums import PendingPointsType
from ..snapshot import ProgramSnapshot

__all__ = ["changed_cards"]

Card = tuple[str, str, str]
"""(program, member, card)."""

_KINDS = frozenset({"programs", "members", "cards", "pending_buckets", "card_definitions"})
"""What the snapshot must hold to tell an activation certain."""


def changed_cards(snapshot: ProgramSnapshot, paths: Iterable[tuple[str, ...]]) -> set[Card]:
    """(program, member, card) of each card the activations of ``paths`` (program, member,
    card, bucket: a valid item's) certainly change on a sandbox holding ``snapshot`` (see the
    module); none when it lacks a kind that tells."""
    if not snapshot.kinds >= _KINDS:
        return set()
    asked = {str(path[3]): tuple(map(str, path[:3])) for path in paths}
    buckets = snapshot.pending_buckets
    rows = buckets[buckets["id"].astype(str).isin(asked).to_numpy(bool)]
    if rows.empty:
        return set()
    today = bucket_date(snapshot.pulled_at)
    assert today is not None  # a snapshot always has its pulled_at
    blocked = blocked_mask(
        rows,
        today=today,
        programs=snapshot.programs,
        members=snapshot.members,
        card_definitions=snapshot.card_definitions,
    ).to_numpy(bool)
    cards = snapshot.cards
    definition_of = dict(
        zip(cards["id"].astype(str), cards["card_definition_id"].astype(str), strict=True)
    )
    definitions = snapshot.card_definitions
    pending = {
        str(key)
        for key, kind in zip(definitions["id"], definitions["pending_points_type"], strict=True)
        if not pd.isna(kind) and kind != PendingPointsType.IMMEDIATE
    }
    changed = set()
    for row, refused in zip(rows.to_dict("records"), blocked, strict=True):
        card: Card = (str(row["program_id"]), str(row["member_id"]), str(row["card_id"]))
        definition = str(row["card_definition_id"])
        if (
            not refused
            and asked[str(row["id"])] == card
            and not pd.isna(row["points_total"])
            and row["points_total"] > 0
            and definition_of.get(card[2]) == definition
            and definition in pending
        ):
            changed.add(card)
    return changed
