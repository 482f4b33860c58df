"""Benefits as a frame: one row per benefit, its type-specific object flattened."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..models import Benefit
from ..models.benefits import PointsProportional, ProportionalEvery
from ..models.enums import (
    BenefitStatus,
    BenefitType,
    CalculationType,
    DigitalBenefitType,
    MaterialType,
    StockType,
)
from .column_groups import card_definition_check, created_updated
from .schema import Row, Schema, enum, integer, money, number, text
from .values import material_values, model_of

__all__ = ["BENEFITS", "PROPORTIONAL_BASES", "benefits_frame"]

PROPORTIONAL_BASES = (
    "order.amount",
    "order.total_amount",
    "order.metadata",
    "customer.metadata",
    "custom_event.metadata",
    "order_items.amount",
    "order_items.subtotal_amount",
    "order_items.quantity",
)
"""The groups of ``points_proportional`` a rate can come from, in the order they are read."""

BENEFITS = Schema(
    "benefits",
    "One row per benefit (the service never lists deleted ones).",
    (
        text("id", "benefit ID (lben_...)"),
        text("name", "benefit name, unique in the project"),
        enum("type", BenefitType, "which configuration the benefit carries"),
        enum("status", BenefitStatus, "lifecycle status"),
        enum("stock_type", StockType, "UNLIMITED or LIMITED (NA when the service omits stock)"),
        integer("stock_quantity", "LIMITED stock: grants left (0: exhausted)"),
        integer("points_value", "POINTS: points granted"),
        text("points_card_definition_id", "POINTS: card definition credited"),
        enum(
            "proportional_calculation_type",
            CalculationType,
            "POINTS_PROPORTIONAL: what the points are computed from",
        ),
        text("proportional_card_definition_id", "POINTS_PROPORTIONAL: card definition credited"),
        text(
            "proportional_basis",
            "POINTS_PROPORTIONAL: the group the rate comes from, the first present of "
            + ", ".join(PROPORTIONAL_BASES)
            + " (NA: none)",
        ),
        integer("proportional_every", "POINTS_PROPORTIONAL: units of the basis per award"),
        number("proportional_value", "POINTS_PROPORTIONAL: points per `every` units"),
        text("proportional_property", "POINTS_PROPORTIONAL: metadata property (metadata bases)"),
        text("card_definition_id", "the card definition credited, whichever points type"),
        enum("material_type", MaterialType, "MATERIAL: PRODUCT or SKU"),
        text("material_product_id", "MATERIAL: product ID (of the SKU when a SKU)"),
        text("material_sku_id", "MATERIAL: SKU ID"),
        enum("digital_type", DigitalBenefitType, "DIGITAL: GIFT_VOUCHERS or DISCOUNT_COUPONS"),
        text("digital_campaign_id", "DIGITAL: campaign ID"),
        money("digital_gift_voucher_balance", "DIGITAL gift vouchers: balance per voucher"),
        *card_definition_check(optional=True),
        *created_updated(),
    ),
)


def _proportional_rate(
    prop: PointsProportional | None,
) -> tuple[str, ProportionalEvery] | tuple[None, None]:
    """The first group of ``PROPORTIONAL_BASES`` that ``prop`` sets, and its rate."""
    for basis in PROPORTIONAL_BASES if prop else ():
        group, name = basis.split(".")
        rate = getattr(getattr(prop, group), name, None)
        if rate is not None:
            return basis, rate
    return None, None


def _proportional_values(prop: PointsProportional | None) -> Row:
    """The ``proportional_*`` rate columns of a benefit (all None when it has none)."""
    basis, rate = _proportional_rate(prop)
    return {
        "proportional_basis": basis,
        "proportional_every": rate.every if rate else None,
        "proportional_value": rate.value if rate else None,
        "proportional_property": getattr(rate, "property", None),
    }


def _benefit_row(b: Benefit) -> Row:
    stock = b.stock
    pts = b.points
    prop = b.points_proportional
    d = b.digital
    gift = d.gift_vouchers if d else None
    campaign = (gift or d.discount_coupons) if d else None
    pts_cd = pts.card_definition_id if pts else None
    prop_cd = prop.card_definition_id if prop else None
    return {
        "id": b.id,
        "name": b.name,
        "type": b.type,
        "status": b.status,
        "stock_type": stock.type if stock else None,
        "stock_quantity": stock.limited.quantity if stock and stock.limited else None,
        "points_value": pts.value if pts else None,
        "points_card_definition_id": pts_cd,
        "proportional_calculation_type": prop.calculation_type if prop else None,
        "proportional_card_definition_id": prop_cd,
        **_proportional_values(prop),
        "card_definition_id": pts_cd or prop_cd,
        **material_values(b.material),
        "digital_type": d.type if d else None,
        "digital_campaign_id": campaign.campaign_id if campaign else None,
        "digital_gift_voucher_balance": gift.balance if gift else None,
        "card_definition_found": None,
        "card_definition_status": None,
        "created_at": b.created_at,
        "updated_at": b.updated_at,
    }


def benefits_frame(benefits: Iterable[Benefit | dict[str, Any]]) -> pd.DataFrame:
    """Benefits (models or API dicts) as a frame with the ``BENEFITS`` schema."""
    return BENEFITS.build(_benefit_row(model_of(Benefit, b)) for b in benefits)
