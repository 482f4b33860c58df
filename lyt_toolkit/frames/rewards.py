"""Rewards and their costs as frames: one row per reward, one per reward x cost x spending."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pandas as pd

from ..models import Reward
from ..models.enums import RewardStatus, RewardType, ValidityHoursType
from ..models.ids import IdPrefix
from ..models.subtypes import MaterialType, RefundType, RewardDigitalType
from . import _plain as plain
from ._columns import card_definition_check, created_updated
from ._values import as_json, material_values, model_of
from .schema import Row, Schema, enum, integer, number, text, timestamp

__all__ = [
    "REWARDS",
    "REWARD_COSTS",
    "plain_reward_cost_rows",
    "plain_reward_rows",
    "plain_reward_rows_with_costs",
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
        number("digital_gift_voucher_balance", "DIGITAL gift vouchers: balance per voucher"),
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


# -- the model-free path: the same rows from the API's parsed JSON -------------------------
# Every field the models validate is checked; keys the models do not declare are extras,
# which never reach a row, except in DAILY windows, dumped whole (so they must be exact).

_STATUSES = plain.values_of(RewardStatus)
_TYPES = plain.values_of(RewardType)
_VALIDITY_TYPES = plain.values_of(ValidityHoursType)
_DAILY_KEYS = frozenset({"days_of_week", "start_time", "end_time"})
_REWARD_ID = plain.id_pattern(IdPrefix.REWARD)
_CARD_DEFINITION_ID = plain.id_pattern(IdPrefix.CARD_DEFINITION)


def _plain_validity(value: Any) -> tuple[str, str | None]:
    """``validity_hours_type`` and ``validity_daily`` of a plain ``validity_hours``."""
    vh = plain.mapping(value)
    daily = vh.get("daily")
    if daily is not None:
        if type(daily) is not list:
            raise plain.NotPlain
        for window in daily:
            if plain.mapping(window).keys() != _DAILY_KEYS:
                raise plain.NotPlain
            plain.text(window["start_time"]), plain.text(window["end_time"])
            days = window["days_of_week"]
            if type(days) is not list or not all(type(d) is int for d in days):
                raise plain.NotPlain
    return plain.enum_text(vh.get("type"), _VALIDITY_TYPES), as_json(daily, keep_empty=True)


def _plain_target(value: Any, keys: frozenset[str]) -> dict[str, Any] | None:
    """A reference object (product, SKU, campaign) holding exactly ``keys``, all text."""
    found = plain.optional_mapping(value)
    if found is not None:
        if found.keys() != keys:
            raise plain.NotPlain
        for key in keys:
            plain.text(found[key])
    return found


_PRODUCT, _SKU = frozenset({"id"}), frozenset({"product_id", "id"})
_CAMPAIGN = frozenset({"campaign_id"})


def _plain_material(value: Any) -> Row:
    material = plain.optional_mapping(value)
    if material is None:
        return material_values(None)
    product = _plain_target(material.get("product"), _PRODUCT)
    sku = _plain_target(material.get("sku"), _SKU)
    return {
        "material_type": plain.text(material["type"]) if "type" in material else _missing(),
        "material_product_id": product["id"] if product else sku["product_id"] if sku else None,
        "material_sku_id": sku["id"] if sku else None,
    }


def _missing() -> Any:
    raise plain.NotPlain


def _plain_digital(value: Any) -> Row:
    d = plain.optional_mapping(value)
    if d is None:
        return dict.fromkeys(_DIGITAL_COLUMNS)
    coupons = _plain_target(d.get("discount_coupons"), _CAMPAIGN)
    gift = plain.optional_mapping(d.get("gift_vouchers"))
    if gift is not None:
        if gift.keys() != {"campaign_id", "balance"}:
            raise plain.NotPlain
        plain.text(gift["campaign_id"]), plain.non_negative_number(gift["balance"])
    points = plain.optional_mapping(d.get("loyalty_card_points"))
    if points is not None:
        if points.keys() != {"points", "card_definition_id"}:
            raise plain.NotPlain
        plain.whole_number(points["points"])
        plain.id_text(points["card_definition_id"], _CARD_DEFINITION_ID)
    campaign = coupons or gift
    return {
        "digital_type": plain.text(d["type"]) if "type" in d else _missing(),
        "digital_campaign_id": campaign["campaign_id"] if campaign else None,
        "digital_gift_voucher_balance": gift["balance"] if gift else None,
        "digital_points": points["points"] if points else None,
        "digital_points_card_definition_id": points["card_definition_id"] if points else None,
    }


_DIGITAL_COLUMNS = (
    "digital_type",
    "digital_campaign_id",
    "digital_gift_voucher_balance",
    "digital_points",
    "digital_points_card_definition_id",
)


def _plain_refunds(value: Any) -> str:
    refunds = plain.mapping(value)
    return plain.text(refunds["type"]) if "type" in refunds else _missing()


_LIMITS_OR_NULL = (dict, type(None))


def plain_reward_rows(item: Any) -> list[Row]:
    """The ``REWARDS`` row of one reward as parsed JSON; ``NotPlain`` when not plain."""
    r = plain.mapping(item)
    get = r.get
    if (
        get("object", "reward") != "reward"
        or ("metadata" in r and type(r["metadata"]) is not dict)
        or type(get("purchase_limits")) not in _LIMITS_OR_NULL
        or type(get("name")) is not str
    ):
        raise plain.NotPlain
    plain.id_text(get("id"), _REWARD_ID)
    plain.enum_text(get("type"), _TYPES)
    plain.enum_text(get("status"), _STATUSES)
    validity_type, daily = _plain_validity(r.get("validity_hours"))
    created = plain.instant(r.get("created_at"))
    if created is None:
        raise plain.NotPlain
    _plain_costs(r)
    row = {
        "id": r["id"],
        "name": r["name"],
        "type": r["type"],
        "status": r["status"],
        "start_date": plain.instant(r.get("start_date")),
        "end_date": plain.instant(r.get("end_date")),
        "validity_hours_type": validity_type,
        "validity_daily": daily,
        "refunds_type": _plain_refunds(r.get("refunds")),
        **_plain_material(r.get("material")),
        **_plain_digital(r.get("digital")),
        "cost_count": len(r["costs"]),
        "metadata": as_json(r.get("metadata")),
        "created_at": created,
        "updated_at": plain.instant(r.get("updated_at")),
    }
    return [row]


def _plain_costs(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The costs of a plain reward, each checked (the list itself is required)."""
    costs = r.get("costs")
    if type(costs) is not list:
        raise plain.NotPlain
    for cost in costs:
        plain.text(plain.mapping(cost).get("id"))
        rules = plain.optional_mapping(cost.get("rules"))
        if rules is not None:
            plain.optional_text(rules.get("logic"))
        spending = cost.get("spending")
        if spending is None:
            continue
        if type(spending) is not list:
            raise plain.NotPlain
        for s in spending:
            plain.optional_text(plain.mapping(s).get("id")), plain.optional_text(s.get("name"))
            plain.whole_number(s.get("points"))
            plain.id_text(s.get("card_definition_id"), _CARD_DEFINITION_ID)
    return costs


def plain_reward_cost_rows(item: Any) -> list[Row]:
    """The ``REWARD_COSTS`` rows of one reward as parsed JSON; ``NotPlain`` when not plain.

    The whole reward is checked, as its model would be, not only the fields the rows read.
    """
    plain_reward_rows(item)
    return _plain_cost_rows(item)


def plain_reward_rows_with_costs(item: Any) -> tuple[list[Row], list[Row]]:
    """The ``REWARDS`` and ``REWARD_COSTS`` rows of one reward as parsed JSON, the reward
    checked once; ``NotPlain`` when not plain."""
    return plain_reward_rows(item), _plain_cost_rows(item)


def _plain_cost_rows(r: dict[str, Any]) -> list[Row]:
    """The ``REWARD_COSTS`` rows of a reward ``plain_reward_rows`` accepted."""
    rows: list[Row] = []
    for cost in r["costs"]:
        rules = cost.get("rules")
        head = {
            "reward_id": r["id"],
            "reward_name": r["name"],
            "reward_status": r["status"],
            "cost_id": cost["id"],
            "cost_rules_logic": rules.get("logic") if rules else None,
        }
        spending = cost.get("spending") or []
        if not spending:
            rows.append({**head, **_NO_SPENDING, **_UNCHECKED})
        for i, s in enumerate(spending):
            entry = {
                "spending_index": i,
                "spending_id": s.get("id"),
                "points": s["points"],
                "card_definition_id": s["card_definition_id"],
            }
            rows.append({**head, **entry, **_UNCHECKED})
    return rows
