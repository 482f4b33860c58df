"""Validating one promotion tier for a customer and an order: the whole result.

``validate_tier`` is pure: it reads the tier, its campaign, the request body and a
catalog, and returns the exact JSON the endpoint answers with (valid or invalid).
References the request names but the sandbox does not hold raise
``ReferenceNotFound`` (the HTTP layer turns that into a 404) before anything else
is judged.

The ``tracking_id`` is ``"track_"`` plus the first 32 hex digits of the SHA-256 of
the customer's source ID; a customer known only by ``id`` and stored without a
source ID is hashed by that ID, and a request without a customer is hashed as the
empty string, so every anonymous validation shares one tracking ID.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..clock import iso, parse_instant
from .catalog import Catalog, Doc
from .discounts import apply_discount, echo_discount, eligibility, target_entry
from .orders import Customer, resolve_customer, resolve_order
from .rules import Redemption, check_dates, check_rules, custom_message

TRACKING_PREFIX = "track_"


def tracking_id(customer: Customer) -> str:
    """A stable pseudonym of the customer (see the module docstring)."""
    basis = customer.source_id or customer.id or ""
    return TRACKING_PREFIX + hashlib.sha256(basis.encode()).hexdigest()[:32]


def validate_tier(
    tier: Mapping[str, Any],
    *,
    campaign: Mapping[str, Any],
    request: Mapping[str, Any],
    catalog: Catalog,
    now: datetime | str,
    request_id: str,
) -> Doc:
    """The validation result of ``tier`` for the request body (see the module docstring)."""
    moment = parse_instant(now)
    customer = resolve_customer(request.get("customer"), catalog)
    order = resolve_order(request.get("order"), catalog, customer)
    metadata = request.get("metadata") or {}
    failure = check_dates(tier, campaign, moment)
    if failure is not None:
        failure = replace(failure, custom_message=custom_message(tier))
    else:
        failure = check_rules(tier, Redemption(order, customer, metadata))
    head = {"tracking_id": tracking_id(customer)}
    if failure is not None:
        return (
            {"valid": False, "reason": failure.reason, "error": failure.error(request_id)}
            | head
            | _tier_fields(tier, catalog)
            | {"campaign": campaign_object(campaign, with_categories=False)}
            | _tail(tier)
        )

    applicable = list(tier.get("applicable_to") or ())
    inapplicable = list(tier.get("inapplicable_to") or ())
    discount_amount, applied = apply_discount(
        tier.get("discount") or {}, order, catalog, eligibility(applicable, inapplicable)
    )
    return (
        {
            "valid": True,
            "applicable_to": _envelope(
                [target_entry(t, catalog, excluded=False) for t in applicable]
            ),
            "inapplicable_to": _envelope(
                [target_entry(t, catalog, excluded=True) for t in inapplicable]
            ),
        }
        | head
        | {"order": order.wire()}
        | _tier_fields(tier, catalog)
        | {"campaign": campaign_object(campaign, with_categories=True)}
        | {"hierarchy": tier.get("hierarchy"), "discount_amount": discount_amount}
        | {"applied_discount_amount": applied}
        | _tail(tier)
    )


def _tier_fields(tier: Mapping[str, Any], catalog: Catalog) -> Doc:
    fields: Doc = {"id": tier["id"], "name": tier.get("name")}
    if tier.get("banner") is not None:
        fields["banner"] = tier["banner"]
    fields["discount"] = echo_discount(tier.get("discount") or {}, catalog)
    for key in ("start_date", "expiration_date"):
        if tier.get(key) is not None:
            fields[key] = iso(parse_instant(tier[key]))
    return fields


def _tail(tier: Mapping[str, Any]) -> Doc:
    return {
        "hierarchy": tier.get("hierarchy"),
        "metadata": dict(tier.get("metadata") or {}),
        "object": "promotion_tier",
    }


def _when(value: Any) -> str | None:
    return iso(parse_instant(value)) if value is not None else None


def campaign_object(campaign: Mapping[str, Any], *, with_categories: bool) -> Doc:
    """The campaign as a validation result shows it; a category only on valid results.

    The result types ``categories`` as one category object: the campaign's first
    category is shown, and the key is left out for a campaign without one.
    """
    shown: Doc = {"id": campaign.get("id")}
    for key in ("start_date", "expiration_date"):  # an open-ended date is left out
        if campaign.get(key) is not None:
            shown[key] = _when(campaign[key])
    shown["active"] = campaign.get("active", True) is not False
    categories = campaign.get("categories") or ()
    if with_categories and categories:
        shown["categories"] = category_object(categories[0])
    shown["object"] = "campaign"
    return shown


def category_object(category: Mapping[str, Any] | str) -> Doc:
    """A category as the interface shapes it; a bare name becomes a minimal category."""
    if isinstance(category, str):
        return {"id": category, "name": category, "hierarchy": 0, "object": "category"}
    return dict(category) | {"object": "category"}


def _envelope(data: list[Doc]) -> Doc:
    return {"data": data, "total": len(data), "data_ref": "data", "object": "list"}
