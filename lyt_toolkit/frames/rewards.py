"""Rewards and their costs as frames: one row per reward, one per reward x cost x spending."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..models import Reward
from ..models.enums import CardDefinitionStatus, RewardStatus, RewardType, ValidityHoursType
from ..models.subtypes import MaterialType, RefundType, RewardDigitalType
from ._values import as_json, model_of
from .schema import Schema, enum, flag, integer, number, text, timestamp

__all__ = ["REWARDS", "REWARD_COSTS", "reward_costs_frame", "rewards_frame"]

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
        number("digital_gift_voucher_balance", "DIGITAL gift vouchers: balance per voucher"),
        integer("digital_points", "DIGITAL card points: points credited"),
        text("digital_points_card_definition_id", "DIGITAL card points: card definition ID"),
        integer("cost_count", "number of cost options (0: the reward cannot be bought)"),
        text("metadata", "custom metadata as JSON (NA when empty)"),
        timestamp("created_at", "creation time"),
        timestamp("updated_at", "last update (NA: never updated)"),
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
        flag(
            "card_definition_found",
            "snapshot: the card definition exists (False: dangling; NA: not checked)",
        ),
        enum(
            "card_definition_status",
            CardDefinitionStatus,
            "snapshot: status of the card definition (NA: missing or not checked)",
        ),
    ),
)


def _reward_row(r: Reward) -> tuple[Any, ...]:
    vh = r.validity_hours
    m = r.material
    d = r.digital
    sku = m.sku if m else None
    points = d.loyalty_card_points if d else None
    gift = d.gift_vouchers if d else None
    campaign = (d.discount_coupons or gift) if d else None
    return (
        r.id,
        r.name,
        r.type,
        r.status,
        r.start_date,
        r.end_date,
        vh.type,
        as_json(vh.daily, keep_empty=True),
        r.refunds.type,
        m.type if m else None,
        (m.product.id if m.product else sku.product_id if sku else None) if m else None,
        sku.id if sku else None,
        d.type if d else None,
        campaign.campaign_id if campaign else None,
        gift.balance if gift else None,
        points.points if points else None,
        points.card_definition_id if points else None,
        len(r.costs),
        as_json(r.metadata),
        r.created_at,
        r.updated_at,
    )


def rewards_frame(rewards: Iterable[Reward | dict[str, Any]]) -> pd.DataFrame:
    """Rewards (models or API dicts) as a frame with the ``REWARDS`` schema."""
    return REWARDS.build(_reward_row(model_of(Reward, r)) for r in rewards)


def _cost_rows(r: Reward) -> list[tuple[Any, ...]]:
    rows = []
    for cost in r.costs:
        logic = cost.rules.logic if cost.rules else None
        head = (r.id, r.name, r.status, cost.id, logic)
        spending = cost.spending or []
        if not spending:
            rows.append((*head, None, None, None, None, None, None))
        for i, s in enumerate(spending):
            rows.append((*head, i, s.id, s.points, s.card_definition_id, None, None))
    return rows


def reward_costs_frame(rewards: Iterable[Reward | dict[str, Any]]) -> pd.DataFrame:
    """The costs of ``rewards`` flattened to the ``REWARD_COSTS`` schema."""
    rows: list[tuple[Any, ...]] = []
    for r in rewards:
        rows.extend(_cost_rows(model_of(Reward, r)))
    return REWARD_COSTS.build(rows)
