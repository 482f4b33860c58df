"""Programs, members, their cards and pending point buckets as frames."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..models import Member, MemberWithCards, PendingBucket, Program
from ..models.enums import (
    CardDefinitionType,
    MemberRole,
    MemberStatus,
    PendingBucketStatus,
    PendingPointsType,
    ProgramStatus,
    ValidityHoursType,
)
from .column_groups import created_updated
from .schema import Row, Schema, enum, integer, text, timestamp
from .values import as_json, attributes, midnight_utc, model_of, whole

__all__ = [
    "CARDS",
    "MEMBERS",
    "PENDING_BUCKETS",
    "PROGRAMS",
    "cards_frame",
    "members_frame",
    "pending_buckets_frame",
    "programs_frame",
]

PROGRAMS = Schema(
    "programs",
    "One row per loyalty program.",
    (
        text("id", "program ID (lprg_...)"),
        text("name", "program name"),
        enum("status", ProgramStatus, "lifecycle status"),
        timestamp("start_date", "program start (NA: none)"),
        timestamp("end_date", "program end (NA: open-ended)"),
        enum("validity_hours_type", ValidityHoursType, "ANY_TIME or DAILY (NA when omitted)"),
        text("validity_daily", "DAILY windows as JSON (NA when none)"),
        text("metadata", "custom metadata as JSON (NA when empty)"),
        *created_updated(),
    ),
)

MEMBERS = Schema(
    "members",
    "One row per program member.",
    (
        text("id", "member ID (lmbr_...)"),
        text("program_id", "program the membership belongs to"),
        text("customer_id", "customer ID (cust_...)"),
        enum("status", MemberStatus, "membership status"),
        text("metadata", "custom metadata as JSON (NA when empty)"),
        *created_updated(),
    ),
)

CARDS = Schema(
    "cards",
    "One row per member x card (from the member detail endpoint).",
    (
        text("id", "card ID (lcrd_...)"),
        text("program_id", "program of the member"),
        text("member_id", "member holding the card"),
        text("card_definition_id", "card definition the card follows"),
        enum("card_type", CardDefinitionType, "card type"),
        text("code", "card code (NA until generated)"),
        enum("member_role", MemberRole, "the member's role on the card"),
        integer("balance_points", "spendable points"),
        integer("balance_pending_points", "points waiting for activation"),
        integer("lifetime_pending_canceled", "pending points ever canceled on the card"),
        timestamp("created_at", "when the card was attached to the member"),
    ),
)

PENDING_BUCKETS = Schema(
    "pending_buckets",
    "One row per pending point bucket of a card.",
    (
        text("id", "bucket ID (lcppb_...)"),
        text("program_id", "program ID"),
        text("member_id", "member ID"),
        text("card_id", "card ID"),
        text("card_definition_id", "card definition of the card"),
        integer("points_total", "points in the bucket"),
        timestamp("date", "activation date, as 00:00 UTC of that day"),
        enum("type", PendingPointsType, "how the bucket activates"),
        enum("status", PendingBucketStatus, "bucket status (pulled: PENDING, the only listed)"),
        enum("program_status", ProgramStatus, "snapshot: status of the program (NA: not joined)"),
        enum("member_status", MemberStatus, "snapshot: status of the member (NA: not joined)"),
        *created_updated(),
    ),
)


def _program_row(p: Program) -> Row:
    vh = p.validity_hours
    return {
        **attributes(p, "id", "name", "status", "start_date", "end_date"),
        "validity_hours_type": vh.type if vh else None,
        "validity_daily": as_json(vh.daily, keep_empty=True) if vh else None,
        "metadata": as_json(p.metadata),
        **attributes(p, "created_at", "updated_at"),
    }


def programs_frame(programs: Iterable[Program | dict[str, Any]]) -> pd.DataFrame:
    """Programs (models or API dicts) with the ``PROGRAMS`` schema."""
    return PROGRAMS.build(_program_row(model_of(Program, p)) for p in programs)


def _member_row(m: Member) -> Row:
    return {
        **attributes(m, "id", "program_id", "customer_id", "status"),
        "metadata": as_json(m.metadata),
        **attributes(m, "created_at", "updated_at"),
    }


def members_frame(members: Iterable[Member | dict[str, Any]]) -> pd.DataFrame:
    """Members (models or API dicts) with the ``MEMBERS`` schema."""
    return MEMBERS.build(_member_row(model_of(Member, m)) for m in members)


def _card_rows(m: MemberWithCards) -> list[Row]:
    return [
        {
            "id": c.id,
            "program_id": c.program_id or m.program_id,
            "member_id": c.member_id or m.id,
            "card_definition_id": c.card_definition_id,
            "card_type": c.card_type,
            "code": c.code,
            "member_role": mc.member_role,
            "balance_points": whole(c.balance.points),
            "balance_pending_points": whole(c.balance.pending_points),
            "lifetime_pending_canceled": whole(c.lifetime_bucket.pending_points.canceled),
            "created_at": mc.created_at,
        }
        for mc in m.cards
        if (c := mc.card) is not None
    ]


def cards_frame(members: Iterable[MemberWithCards | dict[str, Any]]) -> pd.DataFrame:
    """The cards of members fetched with their cards, with the ``CARDS`` schema."""
    return CARDS.build(row for m in members for row in _card_rows(model_of(MemberWithCards, m)))


def _pending_bucket_row(b: PendingBucket) -> Row:
    return {
        **attributes(b, "id", "program_id", "member_id", "card_id", "card_definition_id"),
        "points_total": whole(b.points.total),
        "date": midnight_utc(b.date),
        **attributes(b, "type", "status"),
        "program_status": None,
        "member_status": None,
        **attributes(b, "created_at", "updated_at"),
    }


def pending_buckets_frame(buckets: Iterable[PendingBucket | dict[str, Any]]) -> pd.DataFrame:
    """Pending buckets (models or API dicts) with the ``PENDING_BUCKETS`` schema."""
    return PENDING_BUCKETS.build(_pending_bucket_row(model_of(PendingBucket, b)) for b in buckets)
