"""Rewards and their costs as frames: one row per reward, one per reward x cost x spending."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pandas as pd

from ..models import Reward
from ..models.enums import (
    MaterialType,
    RefundType,
    RewardDigitalType,
    RewardStatus,
    RewardType,
    ValidityHoursType,
)
from .column_groups import card_definition_check, created_updated
from .schema import Row, Schema, enum, integer, money, text, timestamp
from .values import as_json, material_values, model_of

__all__ = [
    "REWARDS",
    "REWARD_COSTS",
    "reward_cost_rows",
    "reward_costs_frame",
    "reward_rows",
    "rewards_frame",
]

REWARDS = Schema(
    "rewards",
    "One row per reward.",
    (
        text("id", "reward ID (lrew_...)"),
        text("name", "reward name"),
        enum("type", RewardType, "MATERIAL or DIGITAL"),
        enum("status", RewardStatus, "lifecycle status"),
        timestamp("start_date", "start of the availability window (NA: no start)"),
        timestamp("end_date", "end of the availability window (NA: open-ended)"),
        enum("validity_hours_type", ValidityHoursType, "ANY_TIME or DAILY"),
        text(
            "validity_daily",
            "DAILY windows as JSON: [{days_of_week, start_time, end_time}] (NA when none)",
        ),
        enum("refunds_type", RefundType, "whether a purchase can be refunded"),
        enum("material_type", MaterialType, "MATERIAL rewards: PRODUCT or SKU"),
        text("material_product_id", "MATERIAL rewards: product ID (of the SKU when a SKU)"),
        text("material_sku_id", "MATERIAL rewards: SKU ID"),
        enum("digital_type", RewardDigitalType, "DIGITAL rewards: kind of digital reward"),
        text("digital_campaign_id", "DIGITAL rewards: coupon or gift voucher campaign ID"),
        money("digital_gift_voucher_balance", "DIGITAL gift vouchers: balance per voucher"),
        integer("digital_points", "DIGITAL card points: points credited"),
        text("digital_points_card_definition_id", "DIGITAL card points: card definition ID"),
        integer("cost_count", "number of cost options (0: the reward cannot be bought)"),
        text("metadata", "custom metadata as JSON (NA when empty)"),
        *created_updated(),
    ),
)

REWARD_COSTS = Schema(
    "reward_costs",
    "One row per reward x cost x spending entry; a cost without spending entries keeps one "
    "row with NA spending fields.",
    (
        text("reward_id", "reward ID"),
        text("reward_name", "reward name"),
        enum("reward_status", RewardStatus, "status of the reward"),
        text("cost_id", "cost option ID"),
        text("cost_rules_logic", "rule logic choosing this cost (NA when none)"),
        integer("spending_index", "position of the spending entry within the cost"),
        text("spending_id", "spending entry ID (NA when the service gives none)"),
        integer("points", "points charged on cards of the card definition"),
        text("card_definition_id", "card definition the points are spent from"),
        text(
            "card_definition_name",
            "snapshot: name of the card definition the points are spent from "
            "(NA: not found or not checked)",
        ),
        *card_definition_check(),
    ),
)


def _reward_row(r: Reward) -> Row:
    vh = r.validity_hours
    d = r.digital
    points = d.loyalty_card_points if d else None
    gift = d.gift_vouchers if d else None
    campaign = (d.discount_coupons or gift) if d else None
    return {
        "id": r.id,
        "name": r.name,
        "type": r.type,
        "status": r.status,
        "start_date": r.start_date,
        "end_date": r.end_date,
        "validity_hours_type": vh.type,
        "validity_daily": as_json(vh.daily, keep_empty=True),
        "refunds_type": r.refunds.type,
        **material_values(r.material),
        "digital_type": d.type if d else None,
        "digital_campaign_id": campaign.campaign_id if campaign else None,
        "digital_gift_voucher_balance": gift.balance if gift else None,
        "digital_points": points.points if points else None,
        "digital_points_card_definition_id": points.card_definition_id if points else None,
        "cost_count": len(r.costs),
        "metadata": as_json(r.metadata),
        "created_at": r.created_at,
        "updated_at": r.updated_at,
    }


def reward_rows(rewards: Iterable[Reward | dict[str, Any]]) -> Iterator[Row]:
    """The ``REWARDS`` rows of rewards (models or API dicts), one at a time."""
    return (_reward_row(model_of(Reward, r)) for r in rewards)


def rewards_frame(rewards: Iterable[Reward | dict[str, Any]]) -> pd.DataFrame:
    """Rewards (models or API dicts) as a frame with the ``REWARDS`` schema."""
    return REWARDS.build(reward_rows(rewards))


_NO_SPENDING: Row = {
    "spending_index": None,
    "spending_id": None,
    "points": None,
    "card_definition_id": None,
}
"""The spending fields of a cost without spending entries."""

_UNCHECKED: Row = {
    "card_definition_name": None,
    "card_definition_found": None,
    "card_definition_status": None,
}
"""Filled by a snapshot's card definition check."""


def _cost_rows(r: Reward) -> list[Row]:
    rows: list[Row] = []
    for cost in r.costs:
        head = {
            "reward_id": r.id,
            "reward_name": r.name,
            "reward_status": r.status,
            "cost_id": cost.id,
            "cost_rules_logic": cost.rules.logic if cost.rules else None,
        }
        spending = cost.spending or []
        if not spending:
            rows.append({**head, **_NO_SPENDING, **_UNCHECKED})
        for i, s in enumerate(spending):
            entry = {
                "spending_index": i,
                "spending_id": s.id,
                "points": s.points,
                "card_definition_id": s.card_definition_id,
            }
            rows.append({**head, **entry, **_UNCHECKED})
    return rows


def reward_cost_rows(rewards: Iterable[Reward | dict[str, Any]]) -> Iterator[Row]:
    """The ``REWARD_COSTS`` rows of rewards (models or API dicts), one at a time."""
    return (row for r in rewards for row in _cost_rows(model_of(Reward, r)))


def reward_costs_frame(rewards: Iterable[Reward | dict[str, Any]]) -> pd.DataFrame:
    """The costs of ``rewards`` flattened to the ``REWARD_COSTS`` schema."""
    return REWARD_COSTS.build(reward_cost_rows(rewards))
