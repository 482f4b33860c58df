"""Programs, members, their cards and pending point buckets as frames."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..models import Member, MemberWithCards, PendingBucket, Program
from ..models.enums import (
    CardDefinitionType,
    MemberStatus,
    PendingBucketStatus,
    PendingPointsType,
    ProgramStatus,
    ValidityHoursType,
)
from ..models.subtypes import MemberRole
from ._values import as_json, midnight_utc, model_of
from .schema import Schema, enum, integer, text, timestamp

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
        timestamp("created_at", "creation time"),
        timestamp("updated_at", "last update (NA: never updated)"),
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
        timestamp("created_at", "creation time"),
        timestamp("updated_at", "last update (NA: never updated)"),
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
        enum("status", PendingBucketStatus, "bucket status"),
        enum("program_status", ProgramStatus, "snapshot: status of the program (NA: not joined)"),
        enum("member_status", MemberStatus, "snapshot: status of the member (NA: not joined)"),
        timestamp("created_at", "creation time"),
        timestamp("updated_at", "last update (NA: never updated)"),
    ),
)


def _whole(value: Any) -> Any:
    """Points arrive as JSON numbers; whole floats become ints for ``Int64``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def programs_frame(programs: Iterable[Program | dict[str, Any]]) -> pd.DataFrame:
    """Programs (models or API dicts) with the ``PROGRAMS`` schema."""
    rows = []
    for p in programs:
        p = model_of(Program, p)
        vh = p.validity_hours
        rows.append(
            (
                p.id,
                p.name,
                p.status,
                p.start_date,
                p.end_date,
                vh.type if vh else None,
                as_json(vh.daily, keep_empty=True) if vh else None,
                as_json(p.metadata),
                p.created_at,
                p.updated_at,
            )
        )
    return PROGRAMS.build(rows)


def members_frame(members: Iterable[Member | dict[str, Any]]) -> pd.DataFrame:
    """Members (models or API dicts) with the ``MEMBERS`` schema."""
    rows = []
    for m in members:
        m = model_of(Member, m)
        rows.append(
            (
                m.id,
                m.program_id,
                m.customer_id,
                m.status,
                as_json(m.metadata),
                m.created_at,
                m.updated_at,
            )
        )
    return MEMBERS.build(rows)


def cards_frame(members: Iterable[MemberWithCards | dict[str, Any]]) -> pd.DataFrame:
    """The cards of members fetched with their cards, with the ``CARDS`` schema."""
    rows = []
    for m in members:
        m = model_of(MemberWithCards, m)
        for mc in m.cards:
            c = mc.card
            if c is None:
                continue
            rows.append(
                (
                    c.id,
                    c.program_id or m.program_id,
                    c.member_id or m.id,
                    c.card_definition_id,
                    c.card_type,
                    c.code,
                    mc.member_role,
                    _whole(c.balance.points),
                    _whole(c.balance.pending_points),
                    mc.created_at,
                )
            )
    return CARDS.build(rows)


def pending_buckets_frame(buckets: Iterable[PendingBucket | dict[str, Any]]) -> pd.DataFrame:
    """Pending buckets (models or API dicts) with the ``PENDING_BUCKETS`` schema."""
    rows = []
    for b in buckets:
        b = model_of(PendingBucket, b)
        rows.append(
            (
                b.id,
                b.program_id,
                b.member_id,
                b.card_id,
                b.card_definition_id,
                _whole(b.points.total),
                midnight_utc(b.date),
                b.type,
                b.status,
                None,
                None,
                b.created_at,
                b.updated_at,
            )
        )
    return PENDING_BUCKETS.build(rows)
