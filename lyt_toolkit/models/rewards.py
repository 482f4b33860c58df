"""Rewards: what members can buy with points."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .common import OMIT_IF_NONE, ApiModel, Metadata, Number, Open, Timestamp
from .enums import (
    MaterialType,
    RefundType,
    RewardDigitalType,
    RewardStatus,
    RewardType,
    ValidityHoursType,
)
from .ids import CardDefinitionId, RewardId

__all__ = [
    "CampaignTarget",
    "DailyHours",
    "GiftVoucherTarget",
    "LoyaltyPointsTarget",
    "ProductTarget",
    "Reward",
    "RewardCost",
    "RewardCostRules",
    "RewardCostSpending",
    "RewardDigital",
    "RewardMaterial",
    "RewardRefunds",
    "SkuTarget",
    "ValidityHours",
]


class DailyHours(ApiModel):
    """A daily time window on some days of the week (0 = Sunday .. 6)."""

    days_of_week: list[int] = Field(default_factory=list)
    start_time: str
    end_time: str


class ValidityHours(ApiModel):
    """When something may be used: any time, or daily windows."""

    type: ValidityHoursType = ValidityHoursType.ANY_TIME
    daily: Annotated[list[DailyHours] | None, OMIT_IF_NONE] = None


class RewardRefunds(ApiModel):
    """Whether a purchased reward can be refunded."""

    type: Open[RefundType] = RefundType.NONE


class RewardCostRules(ApiModel):
    """Logic selecting which spending option applies."""

    logic: Annotated[str | None, OMIT_IF_NONE] = None


class RewardCostSpending(ApiModel):
    """A price in points on cards of one definition."""

    id: Annotated[str | None, OMIT_IF_NONE] = None
    name: Annotated[str | None, OMIT_IF_NONE] = None
    points: int
    card_definition_id: CardDefinitionId


class RewardCost(ApiModel):
    """One way to pay for a reward."""

    id: str
    rules: Annotated[RewardCostRules | None, OMIT_IF_NONE] = None
    spending: list[RewardCostSpending] | None = Field(default_factory=list)


class ProductTarget(ApiModel):
    """A reference to a product."""

    id: str


class SkuTarget(ApiModel):
    """A reference to a SKU of a product."""

    product_id: str
    id: str


class CampaignTarget(ApiModel):
    """A reference to a campaign."""

    campaign_id: str


class GiftVoucherTarget(ApiModel):
    """A gift voucher campaign and the balance each voucher gets."""

    campaign_id: str
    balance: Number = Field(ge=0)


class LoyaltyPointsTarget(ApiModel):
    """Points credited to cards of one definition."""

    points: int
    card_definition_id: CardDefinitionId


class RewardMaterial(ApiModel):
    """A physical reward: a product or a SKU."""

    type: Open[MaterialType] = MaterialType.PRODUCT
    product: Annotated[ProductTarget | None, OMIT_IF_NONE] = None
    sku: Annotated[SkuTarget | None, OMIT_IF_NONE] = None


class RewardDigital(ApiModel):
    """A digital reward: coupons, gift vouchers or card points."""

    type: Open[RewardDigitalType]
    discount_coupons: Annotated[CampaignTarget | None, OMIT_IF_NONE] = None
    gift_vouchers: Annotated[GiftVoucherTarget | None, OMIT_IF_NONE] = None
    loyalty_card_points: Annotated[LoyaltyPointsTarget | None, OMIT_IF_NONE] = None


class Reward(ApiModel):
    """Something members buy with points; ``material`` or ``digital`` matches ``type``."""

    id: RewardId
    name: str
    type: RewardType
    status: RewardStatus
    start_date: Timestamp | None = None
    end_date: Timestamp | None = None
    validity_hours: ValidityHours = Field(default_factory=ValidityHours)
    material: Annotated[RewardMaterial | None, OMIT_IF_NONE] = None
    digital: Annotated[RewardDigital | None, OMIT_IF_NONE] = None
    refunds: RewardRefunds = Field(default_factory=RewardRefunds)
    costs: list[RewardCost] = Field(default_factory=list)
    purchase_limits: Annotated[dict | None, OMIT_IF_NONE] = None
    metadata: Metadata = Field(default_factory=dict)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["reward"] = "reward"
