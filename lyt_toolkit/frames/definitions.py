"""Card definitions and tier structures as frames: the settings every card and tier follows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ..models import CardDefinition, TierStructure
from ..models.enums import (
    CardDefinitionStatus,
    CardDefinitionType,
    DowngradeType,
    LimitsType,
    PayWithPointsType,
    PendingPointsType,
    PeriodUnit,
    PointEarnedType,
    PointsExpirationType,
    RefundType,
    TierExpirationType,
    TierStructureStatus,
    TierStructureType,
)
from .column_groups import card_definition_check, created_updated
from .schema import Row, Schema, enum, flag, integer, text
from .values import as_json, model_of

__all__ = [
    "CARD_DEFINITIONS",
    "TIER_STRUCTURES",
    "card_definitions_frame",
    "referenced_definition",
    "tier_structures_frame",
]

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
        integer(
            "points_expiration_period_value",
            "ROLLING (or SLIDING) expiration: length of the period points live",
        ),
        enum("points_expiration_period_unit", PeriodUnit, "unit of that period"),
        text(
            "points_expiration_rounding_type",
            "ROLLING expiration: how the expiry date is rounded up (NA: not rounded)",
        ),
        integer("points_expiration_rounding_value", "ROLLING expiration: rounding value"),
        text(
            "points_expiration_calendar_dates",
            'CALENDAR expiration: days of the year as JSON [{"day":..,"month":..}] (NA: none)',
        ),
        enum("pending_points_type", PendingPointsType, "IMMEDIATE or how pending points activate"),
        enum("earning_limits_global_type", LimitsType, "overall earning cap"),
        enum("earning_limits_transactions_type", LimitsType, "per-transaction earning cap"),
        enum("spending_limits_global_type", LimitsType, "overall spending cap"),
        enum("spending_limits_transactions_type", LimitsType, "per-transaction spending cap"),
        enum("refunds_spent_points_type", RefundType, "refund behaviour for spent points"),
        enum("refunds_earned_points_type", RefundType, "refund behaviour for earned points"),
        flag("balance_settings_allow_negative", "whether a card balance may go below zero"),
        enum("pay_with_points_type", PayWithPointsType, "whether points can pay for orders"),
        text(
            "pay_with_points_exchange_ratio",
            "formula turning points into order currency, as sent (e.g. POINTS / 10; NA: none)",
        ),
        text("metadata", "custom metadata as JSON (NA when empty)"),
        flag(
            "listed",
            "True when the list endpoint returned it; False when a snapshot fetched it by ID "
            "because something references it",
        ),
        *created_updated(),
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
        *card_definition_check(),
        *created_updated(),
    ),
)


def _expiration_values(c: CardDefinition) -> Row:
    """The ``points_expiration_*`` settings columns (None where the type has none)."""
    exp = c.points_expiration
    rolling, sliding = exp.rolling_expiration, exp.sliding_expiration
    period = rolling.period if rolling else sliding.period if sliding else None
    rounding = rolling.rounding if rolling else None
    calendar = exp.calendar_expiration
    return {
        "points_expiration_period_value": period.value if period else None,
        "points_expiration_period_unit": period.unit if period else None,
        "points_expiration_rounding_type": rounding.type if rounding else None,
        "points_expiration_rounding_value": rounding.value if rounding else None,
        "points_expiration_calendar_dates": as_json(calendar.expiration_dates)
        if calendar
        else None,
    }


def _card_definition_row(c: CardDefinition, listed: bool) -> Row:
    code = c.code_config
    ratio = c.pay_with_points.exchange_ratio
    earn = c.earning_limits
    spend = c.spending_limits
    return {
        "id": c.id,
        "name": c.name,
        "type": c.type,
        "status": c.status,
        "code_pattern": code.pattern,
        "code_length": code.length,
        "code_prefix": code.prefix,
        "code_postfix": code.postfix,
        "points_expiration_type": c.points_expiration.type,
        **_expiration_values(c),
        "pending_points_type": c.pending_points.type,
        "earning_limits_global_type": earn.global_.type,
        "earning_limits_transactions_type": earn.transactions.type,
        "spending_limits_global_type": spend.global_.type,
        "spending_limits_transactions_type": spend.transactions.type,
        "refunds_spent_points_type": c.refunds.spent_points.type,
        "refunds_earned_points_type": c.refunds.earned_points.type,
        "balance_settings_allow_negative": c.balance_settings.allow_negative,
        "pay_with_points_type": c.pay_with_points.type,
        "pay_with_points_exchange_ratio": ratio.formula if ratio else None,
        "metadata": as_json(c.metadata),
        "listed": listed,
        "created_at": c.created_at,
        "updated_at": c.updated_at,
    }


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


def _tier_structure_row(t: TierStructure) -> Row:
    earned = t.point_earned
    period = earned.period if earned else None
    return {
        "id": t.id,
        "name": t.name,
        "type": t.type,
        "status": t.status,
        "card_definition_id": t.card_definition_id,
        "point_earned_type": earned.type if earned else None,
        "point_earned_period_value": period.value if period else None,
        "point_earned_period_unit": period.unit if period else None,
        "expiration_type": t.expiration.type,
        "downgrade_type": t.downgrade.type,
        "metadata": as_json(t.metadata),
        "card_definition_found": None,
        "card_definition_status": None,
        "created_at": t.created_at,
        "updated_at": t.updated_at,
    }


def tier_structures_frame(
    tier_structures: Iterable[TierStructure | dict[str, Any]],
) -> pd.DataFrame:
    """Tier structures (models or API dicts) with the ``TIER_STRUCTURES`` schema."""
    return TIER_STRUCTURES.build(
        _tier_structure_row(model_of(TierStructure, t)) for t in tier_structures
    )


def referenced_definition(
    definitions: Mapping[str, Mapping[str, Any]], row: Mapping[str, Any]
) -> tuple[str | None, Mapping[str, Any] | None]:
    """The card definition ``row`` references: (its ID, its row in ``definitions`` by ID, or
    None when it does not exist).

    A snapshot's card definition frame holds the listed definitions and those fetched by ID
    because something references them; a row's own ``card_definition_found`` and
    ``card_definition_status`` fill in when its frame was resolved without the definition.
    """
    ref = row.get("card_definition_id")
    if not ref:
        return None, None
    if ref in definitions:
        return ref, definitions[ref]
    if row.get("card_definition_found") is True and row.get("card_definition_status"):
        return ref, {"id": ref, "name": None, "status": row["card_definition_status"]}
    return ref, None
