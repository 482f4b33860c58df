"""``GET /v1/promotions/tiers``: page-numbered listing of promotion tiers.

Query rules: ``limit`` 1..100 (default 10), ``page`` 1..100 (default 1), ``order``
one of ``created_at``, ``-created_at``, ``updated_at``, ``-updated_at`` (default
``-created_at``; a tier never updated sorts by its creation time; ties go by ID).
``is_available=true`` keeps the tiers that could apply now (tier and campaign
active, both inside their dates); ``false`` or absent lists every tier.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ..clock import iso, parse_instant
from .catalog import Doc
from .rules import check_dates, rule_sets
from .validate import campaign_object, category_object

ORDER_FIELDS = ("created_at", "updated_at")
DEFAULT_LIMIT = 10
MAX_LIMIT = 100
MAX_PAGE = 100
DEFAULT_ORDER = "-created_at"


class ListParameterError(ValueError):
    """A query parameter of the list is out of range or unknown; names the parameter."""

    def __init__(self, parameter: str, message: str) -> None:
        self.parameter = parameter
        super().__init__(f"{parameter}: {message}")


def _bounded(name: str, value: Any, default: int, high: int) -> int:
    if value is None:
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ListParameterError(name, f"must be an integer between 1 and {high}") from None
    if isinstance(value, bool) or str(number) != str(value).strip() or not 1 <= number <= high:
        raise ListParameterError(name, f"must be an integer between 1 and {high}")
    return number


def _bool(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise ListParameterError("is_available", "must be true or false")


def list_tiers(
    tiers: Iterable[Mapping[str, Any]],
    campaigns: Mapping[str, Mapping[str, Any]] | Iterable[Mapping[str, Any]],
    *,
    is_available: bool | str | None = None,
    limit: int | str | None = None,
    page: int | str | None = None,
    order: str | None = None,
    now: datetime | str | None = None,
) -> Doc:
    """One page of tiers in the reference's list envelope (``data_ref`` = ``tiers``)."""
    size = _bounded("limit", limit, DEFAULT_LIMIT, MAX_LIMIT)
    number = _bounded("page", page, 1, MAX_PAGE)
    ordering = order or DEFAULT_ORDER
    if ordering.lstrip("-") not in ORDER_FIELDS or ordering.count("-") > 1:
        allowed = ", ".join(f"{d}{f}" for f in ORDER_FIELDS for d in ("", "-"))
        raise ListParameterError("order", f"must be one of {allowed}")
    available = _bool(is_available)
    by_id = dict(campaigns) if isinstance(campaigns, Mapping) else {c["id"]: c for c in campaigns}
    rows = list(tiers)
    if available:
        if now is None:
            raise ValueError("listing available tiers needs the current time")
        moment = parse_instant(now)
        rows = [
            t for t in rows if check_dates(t, by_id.get(t.get("campaign_id"), {}), moment) is None
        ]

    field = ordering.lstrip("-")

    def key(tier: Mapping[str, Any]) -> tuple[str, str]:
        stamp = tier.get(field) or tier.get("created_at")
        return (iso(parse_instant(stamp)) if stamp else "", str(tier.get("id")))

    rows.sort(key=key, reverse=ordering.startswith("-"))
    start = (number - 1) * size
    shown = rows[start : start + size]
    return {
        "object": "list",
        "data_ref": "tiers",
        "tiers": [tier_resource(t, _campaign_of(t, by_id)) for t in shown],
        "total": len(rows),
        "has_more": start + size < len(rows),
    }


def _campaign_of(
    tier: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]
) -> Mapping[str, Any]:
    return by_id.get(tier.get("campaign_id") or "", {})


def tier_resource(tier: Mapping[str, Any], campaign: Mapping[str, Any]) -> Doc:
    """A stored tier as the list shows it (the discount sits under ``action``)."""
    shown: Doc = {"id": tier["id"]}
    if tier.get("created_at") is not None:
        shown["created_at"] = iso(parse_instant(tier["created_at"]))
    if tier.get("updated_at") is not None:
        shown["updated_at"] = iso(parse_instant(tier["updated_at"]))
    shown |= {
        "name": tier.get("name"),
        "banner": tier.get("banner"),
        "action": {"discount": listed_discount(tier.get("discount") or {})},
        "metadata": dict(tier.get("metadata") or {}),
        "hierarchy": tier.get("hierarchy"),
        "promotion_id": tier.get("campaign_id"),
        "campaign": _list_campaign(campaign),
        "campaign_id": tier.get("campaign_id"),
        "active": tier.get("active", True) is not False,
    }
    for key in ("start_date", "expiration_date"):
        if tier.get(key) is not None:
            shown[key] = iso(parse_instant(tier[key]))
    categories = [category_object(c) for c in campaign.get("categories") or ()]
    shown |= {
        "summary": {
            "redemptions": {"total_redeemed": 0},
            "orders": {"total_amount": 0, "total_discount_amount": 0},
        },
        "object": "promotion_tier",
        "validation_rule_assignments": _assignments(tier),
        "categories": categories,
    }
    if categories and categories[0].get("id"):
        shown["category_id"] = categories[0]["id"]
    return shown


def _list_campaign(campaign: Mapping[str, Any]) -> Doc:
    shown = campaign_object(campaign, with_categories=False)
    categories = campaign.get("categories") or ()
    if categories:
        first = category_object(categories[0])
        shown = {k: v for k, v in shown.items() if k != "object"} | {
            "category_id": first.get("id"),
            "object": "campaign",
        }
    return shown


def listed_discount(discount: Mapping[str, Any]) -> Doc:
    """The discount as the list shows it: a unit's SKU always carries a ``name``.

    The list types a unit's SKU as ``id`` and ``name``; a SKU stored without a
    name is shown under its ``sku`` label.
    """
    shown = dict(discount)
    if isinstance(shown.get("sku"), Mapping):
        shown["sku"] = _named_sku(shown["sku"])
    if isinstance(shown.get("units"), list):
        shown["units"] = [
            {**unit, "sku": _named_sku(unit["sku"])}
            if isinstance(unit, Mapping) and isinstance(unit.get("sku"), Mapping)
            else unit
            for unit in shown["units"]
        ]
    return shown


def _named_sku(sku: Mapping[str, Any]) -> Doc:
    return dict(sku) | {"name": sku.get("name") or sku.get("sku") or sku.get("id")}


def _assignments(tier: Mapping[str, Any]) -> Doc:
    """The tier's rule assignments, an empty list envelope when it has none."""
    sets = [rule_set for rule_set in rule_sets(tier) if rule_set.rules]
    created = tier.get("created_at")
    data = []
    for rule_set in sets:
        digest = hashlib.sha256(f"{tier['id']}:{rule_set.id}".encode()).hexdigest()[:16]
        entry: Doc = {
            "id": f"asgm_{digest}",
            "rule_id": rule_set.id,
            "related_object_id": tier["id"],
            "related_object_type": "promotion_tier",
        }
        if created is not None:
            entry["created_at"] = iso(parse_instant(created))
        entry["object"] = "validation_rules_assignment"
        data.append(entry)
    return {"object": "list", "data_ref": "data", "data": data, "total": len(data)}
