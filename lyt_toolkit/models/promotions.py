"""Promotion tiers, orders and the (deprecated) tier validation call."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag

from .common import (
    OMIT_IF_NONE,
    ApiModel,
    KeepsAbsenceModel,
    Metadata,
    Number,
    Open,
    RequestModel,
    RequestTimestamp,
    Timestamp,
)
from .discounts import Discount, ItemList
from .enums import CampaignType, OrderStatus
from .errors import CustomMessage, ErrorObject

__all__ = [
    "Address",
    "Campaign",
    "Category",
    "CustomerRef",
    "InvalidTierResult",
    "ItemProduct",
    "ItemSku",
    "Order",
    "OrderItem",
    "OrderItemRef",
    "OrderRef",
    "PromotionTier",
    "PromotionTierList",
    "TierAction",
    "TierValidationRequest",
    "TierValidationResult",
    "ValidTierResult",
    "parse_flag",
]


def parse_flag(value: Any) -> Any:
    """Accept ``"true"``/``"false"`` for a boolean the schema mistypes as a string."""
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    return value


# ---- request side -------------------------------------------------------------------


class Address(RequestModel):
    """A postal address of a customer."""

    city: str | None = None
    state: str | None = None
    line_1: str | None = None
    line_2: str | None = None
    country: str | None = None
    postal_code: str | None = None


class CustomerRef(RequestModel):
    """A customer by ``id``, by ``source_id``, or as a full customer object."""

    id: str | None = None
    source_id: str | None = None
    name: str | None = None
    description: str | None = None
    email: str | None = None
    phone: str | None = None
    address: Address | None = None
    birthdate: str | None = None
    birthday: str | None = None
    metadata: Metadata | None = None


class OrderItemRef(RequestModel):
    """An order line sent for validation: a product or SKU and a quantity."""

    product_id: str | None = None
    sku_id: str | None = None
    related_object: Literal["product", "sku"] | None = None
    source_id: str | None = None
    quantity: int | None = None
    amount: int | None = None
    price: int | None = None
    product: Metadata | None = None
    sku: Metadata | None = None
    metadata: Metadata | None = None


class OrderRef(RequestModel):
    """An order by ``id``, by ``source_id``, or as an order creation body."""

    id: str | None = None
    source_id: str | None = None
    created_at: RequestTimestamp | None = None
    status: OrderStatus | None = None
    amount: int | None = None
    initial_amount: int | None = None
    discount_amount: int | None = None
    items: list[OrderItemRef] | None = None
    metadata: Metadata | None = None
    referrer_id: str | None = None
    customer: CustomerRef | None = None
    referrer: CustomerRef | None = None


class TierValidationRequest(RequestModel):
    """The body of a promotion tier validation: who orders what, plus metadata."""

    customer: CustomerRef | None = None
    order: OrderRef | None = None
    metadata: Metadata | None = None


# ---- response side ------------------------------------------------------------------


class ItemProduct(ApiModel):
    """The product of an order line."""

    id: str
    source_id: Annotated[str | None, OMIT_IF_NONE] = None
    name: Annotated[str | None, OMIT_IF_NONE] = None
    price: Annotated[Number | None, OMIT_IF_NONE] = None


class ItemSku(ApiModel):
    """The SKU of an order line."""

    id: str
    source_id: Annotated[str | None, OMIT_IF_NONE] = None
    sku: Annotated[str | None, OMIT_IF_NONE] = None
    price: Annotated[Number | None, OMIT_IF_NONE] = None


class OrderItem(ApiModel):
    """An order line as the service returns it, with the discounts it received."""

    object: Literal["order_item"] = "order_item"
    source_id: Annotated[str | None, OMIT_IF_NONE] = None
    related_object: Annotated[Literal["product", "sku"] | None, OMIT_IF_NONE] = None
    product_id: Annotated[str | None, OMIT_IF_NONE] = None
    sku_id: Annotated[str | None, OMIT_IF_NONE] = None
    quantity: Annotated[int | None, OMIT_IF_NONE] = None
    amount: Annotated[int | None, OMIT_IF_NONE] = None
    price: Annotated[int | None, OMIT_IF_NONE] = None
    subtotal_amount: Annotated[int | None, OMIT_IF_NONE] = None
    discount_quantity: Annotated[int | None, OMIT_IF_NONE] = None
    initial_quantity: Annotated[int | None, OMIT_IF_NONE] = None
    discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    initial_amount: Annotated[int | None, OMIT_IF_NONE] = None
    applied_discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    product: Annotated[ItemProduct | None, OMIT_IF_NONE] = None
    sku: Annotated[ItemSku | None, OMIT_IF_NONE] = None


class Order(KeepsAbsenceModel):
    """An order with the totals after the tier's discount."""

    omit_if_absent = frozenset(
        {"id", "source_id", "created_at", "updated_at", "customer_id", "referrer_id"}
    )

    id: str | None = None
    source_id: str | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    status: Annotated[Open[OrderStatus] | None, OMIT_IF_NONE] = None
    amount: Annotated[int | None, OMIT_IF_NONE] = None
    initial_amount: Annotated[int | None, OMIT_IF_NONE] = None
    discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    items_discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    total_discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    total_amount: Annotated[int | None, OMIT_IF_NONE] = None
    applied_discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    items_applied_discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    total_applied_discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    items: list[OrderItem] = Field(default_factory=list)
    metadata: Metadata = Field(default_factory=dict)
    customer_id: str | None = None
    referrer_id: str | None = None
    object: Literal["order"] = "order"


class Category(ApiModel):
    """A campaign category."""

    id: str
    name: str | None = None
    hierarchy: Annotated[int | None, OMIT_IF_NONE] = None
    created_at: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    updated_at: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    object: Literal["category"] = "category"


class Campaign(KeepsAbsenceModel):
    """The campaign a tier belongs to; ``active`` can be false inside its dates."""

    omit_if_absent = frozenset({"start_date", "expiration_date"})

    id: str
    name: Annotated[str | None, OMIT_IF_NONE] = None
    type: Annotated[Open[CampaignType] | None, OMIT_IF_NONE] = None
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    active: Annotated[bool | None, OMIT_IF_NONE] = None
    categories: Annotated[list[Category] | Category | None, OMIT_IF_NONE] = None
    object: Literal["campaign"] = "campaign"


class _TierResultBase(ApiModel):
    """Fields shared by valid and invalid validation results."""

    tracking_id: Annotated[str | None, OMIT_IF_NONE] = None
    id: str
    name: Annotated[str | None, OMIT_IF_NONE] = None
    banner: Annotated[str | None, OMIT_IF_NONE] = None
    discount: Annotated[Discount | None, OMIT_IF_NONE] = None
    start_date: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    expiration_date: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    campaign: Annotated[Campaign | None, OMIT_IF_NONE] = None
    hierarchy: Annotated[int | None, OMIT_IF_NONE] = None
    metadata: Metadata = Field(default_factory=dict)
    object: Literal["promotion_tier"] = "promotion_tier"


class ValidTierResult(_TierResultBase):
    """The tier applies: the discounted order and the amounts it saves."""

    valid: Annotated[Literal[True], BeforeValidator(parse_flag)] = True
    applicable_to: Annotated[ItemList | None, OMIT_IF_NONE] = None
    inapplicable_to: Annotated[ItemList | None, OMIT_IF_NONE] = None
    order: Annotated[Order | None, OMIT_IF_NONE] = None
    discount_amount: Annotated[int | None, OMIT_IF_NONE] = None
    applied_discount_amount: Annotated[int | None, OMIT_IF_NONE] = None


def _error_kind(value: Any) -> str:
    has_code = value.get("code") if isinstance(value, dict) else getattr(value, "code", None)
    return "error" if has_code is not None else "message"


TierError = Annotated[
    Annotated[ErrorObject, Tag("error")] | Annotated[CustomMessage, Tag("message")],
    Discriminator(_error_kind),
]


class InvalidTierResult(_TierResultBase):
    """The tier does not apply; ``reason`` and ``error`` say why (still a 200)."""

    valid: Annotated[Literal[False], BeforeValidator(parse_flag)] = False
    reason: Annotated[str | None, OMIT_IF_NONE] = None
    error: Annotated[TierError | None, OMIT_IF_NONE] = None


def _validity(value: Any) -> str | None:
    flag = value.get("valid") if isinstance(value, dict) else getattr(value, "valid", None)
    flag = parse_flag(flag)
    if flag is True:
        return "valid"
    if flag is False:
        return "invalid"
    return None


TierValidationResult = Annotated[
    Annotated[ValidTierResult, Tag("valid")] | Annotated[InvalidTierResult, Tag("invalid")],
    Discriminator(
        _validity,
        custom_error_type="invalid_validity",
        custom_error_message="`valid` must be true or false",
    ),
]
"""A validation outcome; parsing picks the class from ``valid``."""


class TierAction(ApiModel):
    """What a tier does when it applies."""

    discount: Discount | None = None


class PromotionTier(ApiModel):
    """One level of a promotion campaign, with its discount and validity."""

    id: str
    created_at: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    updated_at: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    name: Annotated[str | None, OMIT_IF_NONE] = None
    banner: Annotated[str | None, OMIT_IF_NONE] = None
    action: Annotated[TierAction | None, OMIT_IF_NONE] = None
    discount: Annotated[Discount | None, OMIT_IF_NONE] = None
    metadata: Metadata = Field(default_factory=dict)
    hierarchy: Annotated[int | None, OMIT_IF_NONE] = None
    promotion_id: Annotated[str | None, OMIT_IF_NONE] = None
    campaign: Annotated[Campaign | None, OMIT_IF_NONE] = None
    campaign_id: Annotated[str | None, OMIT_IF_NONE] = None
    active: Annotated[bool | None, OMIT_IF_NONE] = None
    start_date: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    expiration_date: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    validation_rules: Annotated[Any, OMIT_IF_NONE] = None
    validation_rule_assignments: Annotated[Metadata | None, OMIT_IF_NONE] = None
    category_id: Annotated[str | None, OMIT_IF_NONE] = None
    categories: Annotated[list[Category] | None, OMIT_IF_NONE] = None
    object: Literal["promotion_tier"] = "promotion_tier"

    @property
    def effective_discount(self) -> Any:
        """The tier's discount, wherever the payload put it."""
        return self.discount or (self.action.discount if self.action else None)


class PromotionTierList(ApiModel):
    """The list of promotion tiers; its items sit under ``tiers``."""

    object: str = "list"
    data_ref: str = "tiers"
    tiers: list[PromotionTier] = Field(default_factory=list)
    total: int = 0
    has_more: bool = False
