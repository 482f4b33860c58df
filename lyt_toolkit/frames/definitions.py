"""Card definitions and tier structures as frames: the settings every card and tier follows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..models import CardDefinition, TierStructure
from ..models.enums import (
    CardDefinitionStatus,
    CardDefinitionType,
    LimitsType,
    PendingPointsType,
    PointsExpirationType,
    TierStructureStatus,
    TierStructureType,
)
from ..models.subtypes import (
    DowngradeType,
    PayWithPointsType,
    PeriodUnit,
    PointEarnedType,
    RefundType,
    TierExpirationType,
)
from ._values import as_json, model_of
from .schema import Schema, enum, flag, integer, text, timestamp

__all__ = ["CARD_DEFINITIONS", "TIER_STRUCTURES", "card_definitions_frame", "tier_structures_frame"]

CARD_DEFINITIONS = Schema(
    "card_definitions",
    "One row per card definition.",
    (
        text("id", "card definition ID (lcdef_...)"),
        text("name", "card definition name"),
        enum("type", CardDefinitionType, "card type"),
        enum("status", CardDefinitionStatus, "lifecycle status"),
        text("code_pattern", "card code pattern (# = random character)"),
        integer("code_length", "card code length"),
        text("code_prefix", "card code prefix (NA: none)"),
        text("code_postfix", "card code postfix (NA: none)"),
        enum("points_expiration_type", PointsExpirationType, "when earned points expire"),
        enum("pending_points_type", PendingPointsType, "IMMEDIATE or how pending points activate"),
        enum("earning_limits_global_type", LimitsType, "overall earning cap"),
        enum("earning_limits_transactions_type", LimitsType, "per-transaction earning cap"),
        enum("spending_limits_global_type", LimitsType, "overall spending cap"),
        enum("spending_limits_transactions_type", LimitsType, "per-transaction spending cap"),
        enum("refunds_spent_points_type", RefundType, "refund behaviour for spent points"),
        enum("refunds_earned_points_type", RefundType, "refund behaviour for earned points"),
        flag("balance_settings_allow_negative", "whether a card balance may go below zero"),
        enum("pay_with_points_type", PayWithPointsType, "whether points can pay for orders"),
        text("metadata", "custom metadata as JSON (NA when empty)"),
        flag(
            "listed",
            "True when the list endpoint returned it; False when a snapshot fetched it by ID "
            "because something references it",
        ),
        timestamp("created_at", "creation time"),
        timestamp("updated_at", "last update (NA: never updated)"),
    ),
)

TIER_STRUCTURES = Schema(
    "tier_structures",
    "One row per tier structure.",
    (
        text("id", "tier structure ID (lts_...)"),
        text("name", "tier structure name"),
        enum("type", TierStructureType, "POINT_BALANCE or POINT_EARNED"),
        enum("status", TierStructureStatus, "lifecycle status"),
        text("card_definition_id", "card definition the tiers follow (either type)"),
        enum("point_earned_type", PointEarnedType, "POINT_EARNED: when points count"),
        integer("point_earned_period_value", "POINT_EARNED: length of the tracking period"),
        enum("point_earned_period_unit", PeriodUnit, "POINT_EARNED: unit of the tracking period"),
        enum("expiration_type", TierExpirationType, "how long a reached tier is kept"),
        enum("downgrade_type", DowngradeType, "how members drop tiers"),
        text("metadata", "custom metadata as JSON (NA when empty)"),
        flag(
            "card_definition_found",
            "snapshot: the card definition exists (False: dangling; NA: not checked)",
        ),
        enum(
            "card_definition_status",
            CardDefinitionStatus,
            "snapshot: status of the card definition (NA: missing or not checked)",
        ),
        timestamp("created_at", "creation time"),
        timestamp("updated_at", "last update (NA: never updated)"),
    ),
)


def _card_definition_row(c: CardDefinition, listed: bool) -> tuple[Any, ...]:
    code = c.code_config
    earn = c.earning_limits
    spend = c.spending_limits
    return (
        c.id,
        c.name,
        c.type,
        c.status,
        code.pattern,
        code.length,
        code.prefix,
        code.postfix,
        c.points_expiration.type,
        c.pending_points.type,
        earn.global_.type,
        earn.transactions.type,
        spend.global_.type,
        spend.transactions.type,
        c.refunds.spent_points.type,
        c.refunds.earned_points.type,
        c.balance_settings.allow_negative,
        c.pay_with_points.type,
        as_json(c.metadata),
        listed,
        c.created_at,
        c.updated_at,
    )


def card_definitions_frame(
    card_definitions: Iterable[CardDefinition | dict[str, Any]],
    *,
    unlisted: Iterable[CardDefinition | dict[str, Any]] = (),
) -> pd.DataFrame:
    """Card definitions (models or API dicts) with the ``CARD_DEFINITIONS`` schema.

    ``unlisted`` are definitions fetched by ID that the list did not return;
    they follow the listed ones with ``listed`` False.
    """
    rows = [_card_definition_row(model_of(CardDefinition, c), True) for c in card_definitions]
    rows += [_card_definition_row(model_of(CardDefinition, c), False) for c in unlisted]
    return CARD_DEFINITIONS.build(rows)


def _tier_structure_row(t: TierStructure) -> tuple[Any, ...]:
    earned = t.point_earned
    period = earned.period if earned else None
    return (
        t.id,
        t.name,
        t.type,
        t.status,
        t.card_definition_id,
        earned.type if earned else None,
        period.value if period else None,
        period.unit if period else None,
        t.expiration.type,
        t.downgrade.type,
        as_json(t.metadata),
        None,
        None,
        t.created_at,
        t.updated_at,
    )


def tier_structures_frame(
    tier_structures: Iterable[TierStructure | dict[str, Any]],
) -> pd.DataFrame:
    """Tier structures (models or API dicts) with the ``TIER_STRUCTURES`` schema."""
    return TIER_STRUCTURES.build(
        _tier_structure_row(model_of(TierStructure, t)) for t in tier_structures
    )
