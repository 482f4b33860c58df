"""Benefits as a frame: one row per benefit, its type-specific object flattened."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..models import Benefit
from ..models.enums import (
    BenefitStatus,
    BenefitType,
    CardDefinitionStatus,
    DigitalBenefitType,
    StockType,
)
from ..models.subtypes import CalculationType, MaterialType
from ._values import model_of
from .schema import Schema, enum, flag, integer, number, text, timestamp

__all__ = ["BENEFITS", "benefits_frame"]

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
        text("card_definition_id", "the card definition credited, whichever points type"),
        enum("material_type", MaterialType, "MATERIAL: PRODUCT or SKU"),
        text("material_product_id", "MATERIAL: product ID (of the SKU when a SKU)"),
        text("material_sku_id", "MATERIAL: SKU ID"),
        enum("digital_type", DigitalBenefitType, "DIGITAL: GIFT_VOUCHERS or DISCOUNT_COUPONS"),
        text("digital_campaign_id", "DIGITAL: campaign ID"),
        number("digital_gift_voucher_balance", "DIGITAL gift vouchers: balance per voucher"),
        flag(
            "card_definition_found",
            "snapshot: the card definition exists (False: dangling; NA: none or not checked)",
        ),
        enum(
            "card_definition_status",
            CardDefinitionStatus,
            "snapshot: status of the card definition (NA: missing, none or not checked)",
        ),
        timestamp("created_at", "creation time"),
        timestamp("updated_at", "last update (NA: never updated)"),
    ),
)


def _benefit_row(b: Benefit) -> tuple[Any, ...]:
    stock = b.stock
    pts = b.points
    prop = b.points_proportional
    m = b.material
    d = b.digital
    sku = m.sku if m else None
    gift = d.gift_vouchers if d else None
    campaign = (gift or d.discount_coupons) if d else None
    pts_cd = pts.card_definition_id if pts else None
    prop_cd = prop.card_definition_id if prop else None
    return (
        b.id,
        b.name,
        b.type,
        b.status,
        stock.type if stock else None,
        stock.limited.quantity if stock and stock.limited else None,
        pts.value if pts else None,
        pts_cd,
        prop.calculation_type if prop else None,
        prop_cd,
        pts_cd or prop_cd,
        m.type if m else None,
        (m.product.id if m.product else sku.product_id if sku else None) if m else None,
        sku.id if sku else None,
        d.type if d else None,
        campaign.campaign_id if campaign else None,
        gift.balance if gift else None,
        None,
        None,
        b.created_at,
        b.updated_at,
    )


def benefits_frame(benefits: Iterable[Benefit | dict[str, Any]]) -> pd.DataFrame:
    """Benefits (models or API dicts) as a frame with the ``BENEFITS`` schema."""
    return BENEFITS.build(_benefit_row(model_of(Benefit, b)) for b in benefits)
