"""The rewards and reward_costs columns of a page of rewards as parsed JSON, without models.

The fast frame path: a page's items are read a column at a time (``json_values``),
every field the reward model validates is checked, and the columns are exactly
those ``reward_rows`` and ``reward_cost_rows`` give from the validated models.
Keys the models do not declare are extras, which never reach a row, except in
DAILY windows, dumped whole (so those must be exact). A page holding any item
outside the plain form raises ``NotPlain``; its rows are then read from models.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ..frames.rewards import REWARD_COSTS, reward_cost_rows, reward_rows
from ..frames.schema import Row
from ..frames.values import as_json
from ..models.enums import RewardStatus, RewardType, ValidityHoursType
from ..models.ids import IdPrefix
from . import json_values as plain
from .json_values import NotPlain

__all__ = [
    "ROW_SOURCES",
    "Columns",
    "RowSource",
    "reward_columns",
    "reward_cost_columns",
]

Columns = dict[str, list[Any]]
"""A page's values per column name, every column of a schema, equally long."""

_NULL = type(None)
_STATUSES = plain.values_of(RewardStatus)
_TYPES = plain.values_of(RewardType)
_VALIDITY_TYPES = plain.values_of(ValidityHoursType)
_OBJECT = frozenset({"reward"})
_DAILY_KEYS = frozenset({"days_of_week", "start_time", "end_time"})
_REWARD_ID = plain.id_pattern(IdPrefix.REWARD)
_CARD_DEFINITION_ID = plain.id_pattern(IdPrefix.CARD_DEFINITION)
_NO_METADATA: dict[str, Any] = {}


def reward_columns(items: list[Any]) -> Columns:
    """The ``REWARDS`` columns of a page of rewards as parsed JSON; ``NotPlain`` unless
    every item is plain."""
    field = plain.field
    plain.only(items, dict)
    plain.enums(field(items, "object", "reward"), _OBJECT)
    metadata = plain.only(field(items, "metadata", _NO_METADATA), dict)
    plain.only(field(items, "purchase_limits"), dict, _NULL)
    costs = plain.only(field(items, "costs"), list)
    _check_costs(costs)
    validity = plain.only(field(items, "validity_hours"), dict)
    refunds = plain.only(field(items, "refunds"), dict)
    columns: Columns = {
        "id": plain.ids(field(items, "id"), _REWARD_ID),
        "name": plain.only(field(items, "name"), str),
        "type": plain.enums(field(items, "type"), _TYPES),
        "status": plain.enums(field(items, "status"), _STATUSES),
        "start_date": plain.instants(field(items, "start_date")),
        "end_date": plain.instants(field(items, "end_date")),
        "validity_hours_type": plain.enums(field(validity, "type"), _VALIDITY_TYPES),
        "validity_daily": [None if d is None else _daily_json(d) for d in field(validity, "daily")],
        "refunds_type": plain.only(field(refunds, "type"), str),
        **_material_columns(field(items, "material")),
        **_digital_columns(field(items, "digital")),
        "cost_count": list(map(len, costs)),
        "metadata": [as_json(m) if m else None for m in metadata],
        "created_at": plain.instants(field(items, "created_at"), required=True),
        "updated_at": plain.instants(field(items, "updated_at")),
    }
    return columns


def _daily_json(daily: Any) -> str | None:
    """A plain ``validity_hours.daily`` (not null) as the ``validity_daily`` text."""
    plain.only([daily], list)
    for window in plain.only(daily, dict):
        if window.keys() != _DAILY_KEYS:
            raise NotPlain
        plain.only([window["start_time"], window["end_time"]], str)
        plain.only(plain.only([window["days_of_week"]], list)[0], int)
    return as_json(daily, keep_empty=True)


def _check_costs(costs: list[list[Any]]) -> None:
    """Check the costs of every reward of a page (each reward's list already checked)."""
    field = plain.field
    every = plain.only([cost for listed in costs for cost in listed], dict)
    plain.only(field(every, "id"), str)
    rules = plain.only([r for r in field(every, "rules") if r is not None], dict)
    plain.only(field(rules, "logic"), str, _NULL)
    spending = plain.only([s for s in field(every, "spending") if s is not None], list)
    entries = plain.only([entry for listed in spending for entry in listed], dict)
    plain.only(field(entries, "id"), str, _NULL)
    plain.only(field(entries, "name"), str, _NULL)
    plain.only(field(entries, "points"), int)
    plain.ids(field(entries, "card_definition_id"), _CARD_DEFINITION_ID)


_PRODUCT, _SKU = frozenset({"id"}), frozenset({"product_id", "id"})
_CAMPAIGN, _GIFT = frozenset({"campaign_id"}), frozenset({"campaign_id", "balance"})
_POINTS = frozenset({"points", "card_definition_id"})


def _targets(values: list[Any], keys: frozenset[str]) -> list[Any]:
    """``values`` when each is null or a reference object (product, SKU, campaign) holding
    exactly ``keys``, all text."""
    present = plain.only([v for v in values if v is not None], dict)
    if any(v.keys() != keys for v in present):
        raise NotPlain
    for key in keys:
        plain.only(plain.field(present, key), str)
    return values


def _spread(values: list[Any], present: list[bool]) -> list[Any]:
    """``values`` (one per present item) at the present items' places, None elsewhere."""
    if len(values) == len(present):
        return values
    taken = iter(values)
    return [next(taken) if here else None for here in present]


def _material_columns(materials: list[Any]) -> Columns:
    present = [m is not None for m in materials]
    found = plain.only([m for m in materials if m is not None], dict)
    products = _targets(plain.field(found, "product"), _PRODUCT)
    skus = _targets(plain.field(found, "sku"), _SKU)
    product_ids = [
        p["id"] if p else s["product_id"] if s else None
        for p, s in zip(products, skus, strict=True)
    ]
    return {
        "material_type": _spread(plain.only(plain.field(found, "type"), str), present),
        "material_product_id": _spread(product_ids, present),
        "material_sku_id": _spread([s["id"] if s else None for s in skus], present),
    }


def _digital_columns(digitals: list[Any]) -> Columns:
    present = [d is not None for d in digitals]
    found = plain.only([d for d in digitals if d is not None], dict)
    coupons = _targets(plain.field(found, "discount_coupons"), _CAMPAIGN)
    gifts = plain.field(found, "gift_vouchers")
    given = plain.only([g for g in gifts if g is not None], dict)
    if any(g.keys() != _GIFT for g in given):
        raise NotPlain
    plain.only(plain.field(given, "campaign_id"), str)
    for balance in plain.field(given, "balance"):
        plain.non_negative_number(balance)
    cards = plain.field(found, "loyalty_card_points")
    credited = plain.only([c for c in cards if c is not None], dict)
    if any(c.keys() != _POINTS for c in credited):
        raise NotPlain
    plain.only(plain.field(credited, "points"), int)
    plain.ids(plain.field(credited, "card_definition_id"), _CARD_DEFINITION_ID)
    campaigns = [c or g for c, g in zip(coupons, gifts, strict=True)]
    return {
        "digital_type": _spread(plain.only(plain.field(found, "type"), str), present),
        "digital_campaign_id": _spread(
            [c["campaign_id"] if c else None for c in campaigns], present
        ),
        "digital_gift_voucher_balance": _spread(
            [g["balance"] if g else None for g in gifts], present
        ),
        "digital_points": _spread([c["points"] if c else None for c in cards], present),
        "digital_points_card_definition_id": _spread(
            [c["card_definition_id"] if c else None for c in cards], present
        ),
    }


_NO_SPENDING = (None, None, None, None)
"""``spending_index``, ``spending_id``, ``points``, ``card_definition_id`` of a cost
without spending entries."""

_UNCHECKED = (None, None, None)
"""``card_definition_name``, ``_found`` and ``_status``: filled by a snapshot's check."""


def _cost_columns(items: list[dict[str, Any]]) -> Columns:
    """The ``REWARD_COSTS`` columns of rewards ``reward_columns`` accepted."""
    rows: list[tuple[Any, ...]] = []
    for r in items:
        reward = (r["id"], r["name"], r["status"])
        for cost in r["costs"]:
            rules = cost.get("rules")
            head = (*reward, cost["id"], rules.get("logic") if rules else None)
            spending = cost.get("spending")
            if not spending:
                rows.append((*head, *_NO_SPENDING, *_UNCHECKED))
            for i, s in enumerate(spending or ()):
                entry = (i, s.get("id"), s["points"], s["card_definition_id"])
                rows.append((*head, *entry, *_UNCHECKED))
    names = REWARD_COSTS.names
    if not rows:
        return {name: [] for name in names}
    return dict(zip(names, map(list, zip(*rows, strict=True)), strict=True))


def reward_cost_columns(items: list[Any]) -> Columns:
    """The ``REWARD_COSTS`` columns of a page of rewards as parsed JSON; ``NotPlain``
    unless every item is plain (the whole reward is checked, as its model would be)."""
    reward_columns(items)
    return _cost_columns(items)


class RowSource(NamedTuple):
    """The two ways to the rows of a kind whose frame is ``Schema.build`` of its rows.

    ``plain``: the columns of one page's items as parsed JSON, raising ``NotPlain``
    when an item is outside the plain form; ``models``: the rows of validated models
    (or API dicts). Both give the same rows for plain items.
    """

    plain: Callable[[list[Any]], Columns]
    models: Callable[[Iterable[Any]], Iterable[Row]]


ROW_SOURCES: dict[str, RowSource] = {
    "rewards": RowSource(reward_columns, reward_rows),
    "reward_costs": RowSource(reward_cost_columns, reward_cost_rows),
}
"""Kinds that can be built without models, page by page (the model-free frame path)."""
