"""Promotion tiers, orders and the (deprecated) tier validation call."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag

from .common import ApiModel, Metadata, Number, Open, RequestModel, Timestamp
from .discounts import Discount, ItemList
from .enums import CampaignType
from .errors import CustomMessage, ErrorObject
from .subtypes import OrderStatus

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
    created_at: Timestamp | None = None
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

    omit_if_none = frozenset({"source_id", "name", "price"})

    id: str
    source_id: str | None = None
    name: str | None = None
    price: Number | None = None


class ItemSku(ApiModel):
    """The SKU of an order line."""

    omit_if_none = frozenset({"source_id", "sku", "price"})

    id: str
    source_id: str | None = None
    sku: str | None = None
    price: Number | None = None


_ITEM_NUMBERS = (
    "quantity", "amount", "price", "subtotal_amount", "discount_quantity", "initial_quantity",
    "discount_amount", "initial_amount", "applied_discount_amount",
)  # fmt: skip


class OrderItem(ApiModel):
    """An order line as the service returns it, with the discounts it received."""

    omit_if_none = frozenset(
        {"source_id", "related_object", "product_id", "sku_id", "product", "sku", *_ITEM_NUMBERS}
    )

    object: Literal["order_item"] = "order_item"
    source_id: str | None = None
    related_object: Literal["product", "sku"] | None = None
    product_id: str | None = None
    sku_id: str | None = None
    quantity: int | None = None
    amount: int | None = None
    price: int | None = None
    subtotal_amount: int | None = None
    discount_quantity: int | None = None
    initial_quantity: int | None = None
    discount_amount: int | None = None
    initial_amount: int | None = None
    applied_discount_amount: int | None = None
    product: ItemProduct | None = None
    sku: ItemSku | None = None


_ORDER_AMOUNTS = (
    "amount", "initial_amount", "discount_amount", "items_discount_amount",
    "total_discount_amount", "total_amount", "applied_discount_amount",
    "items_applied_discount_amount", "total_applied_discount_amount",
)  # fmt: skip


class Order(ApiModel):
    """An order with the totals after the tier's discount."""

    omit_if_none = frozenset({"status", *_ORDER_AMOUNTS})
    omit_if_absent = frozenset(
        {"id", "source_id", "created_at", "updated_at", "customer_id", "referrer_id"}
    )

    id: str | None = None
    source_id: str | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    status: Open[OrderStatus] | None = None
    amount: int | None = None
    initial_amount: int | None = None
    discount_amount: int | None = None
    items_discount_amount: int | None = None
    total_discount_amount: int | None = None
    total_amount: int | None = None
    applied_discount_amount: int | None = None
    items_applied_discount_amount: int | None = None
    total_applied_discount_amount: int | None = None
    items: list[OrderItem] = Field(default_factory=list)
    metadata: Metadata = Field(default_factory=dict)
    customer_id: str | None = None
    referrer_id: str | None = None
    object: Literal["order"] = "order"


class Category(ApiModel):
    """A campaign category."""

    omit_if_none = frozenset({"hierarchy", "created_at", "updated_at"})

    id: str
    name: str | None = None
    hierarchy: int | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    object: Literal["category"] = "category"


class Campaign(ApiModel):
    """The campaign a tier belongs to; ``active`` can be false inside its dates."""

    omit_if_none = frozenset({"name", "type", "active", "categories"})
    omit_if_absent = frozenset({"start_date", "expiration_date"})

    id: str
    name: str | None = None
    type: Open[CampaignType] | None = None
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    active: bool | None = None
    categories: list[Category] | Category | None = None
    object: Literal["campaign"] = "campaign"


_TIER_OPTIONAL = frozenset(
    {"name", "banner", "discount", "start_date", "expiration_date", "campaign", "hierarchy",
     "tracking_id"}
)  # fmt: skip


class _TierResultBase(ApiModel):
    """Fields shared by valid and invalid validation results."""

    omit_if_none = _TIER_OPTIONAL

    tracking_id: str | None = None
    id: str
    name: str | None = None
    banner: str | None = None
    discount: Discount | None = None
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    campaign: Campaign | None = None
    hierarchy: int | None = None
    metadata: Metadata = Field(default_factory=dict)
    object: Literal["promotion_tier"] = "promotion_tier"


class ValidTierResult(_TierResultBase):
    """The tier applies: the discounted order and the amounts it saves."""

    omit_if_none = _TIER_OPTIONAL | {
        "applicable_to", "inapplicable_to", "order", "discount_amount", "applied_discount_amount",
    }  # fmt: skip

    valid: Annotated[Literal[True], BeforeValidator(parse_flag)] = True
    applicable_to: ItemList | None = None
    inapplicable_to: ItemList | None = None
    order: Order | None = None
    discount_amount: int | None = None
    applied_discount_amount: int | None = None


def _error_kind(value: Any) -> str:
    has_code = value.get("code") if isinstance(value, dict) else getattr(value, "code", None)
    return "error" if has_code is not None else "message"


TierError = Annotated[
    Annotated[ErrorObject, Tag("error")] | Annotated[CustomMessage, Tag("message")],
    Discriminator(_error_kind),
]


class InvalidTierResult(_TierResultBase):
    """The tier does not apply; ``reason`` and ``error`` say why (still a 200)."""

    omit_if_none = _TIER_OPTIONAL | {"reason", "error"}

    valid: Annotated[Literal[False], BeforeValidator(parse_flag)] = False
    reason: str | None = None
    error: TierError | None = None


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

    omit_if_none = frozenset(
        {"created_at", "updated_at", "name", "banner", "action", "discount", "hierarchy",
         "promotion_id", "campaign", "campaign_id", "active", "start_date", "expiration_date",
         "validation_rules", "validation_rule_assignments", "category_id", "categories"}
    )  # fmt: skip

    id: str
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    name: str | None = None
    banner: str | None = None
    action: TierAction | None = None
    discount: Discount | None = None
    metadata: Metadata = Field(default_factory=dict)
    hierarchy: int | None = None
    promotion_id: str | None = None
    campaign: Campaign | None = None
    campaign_id: str | None = None
    active: bool | None = None
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    validation_rules: Any = None
    validation_rule_assignments: Metadata | None = None
    category_id: str | None = None
    categories: list[Category] | None = None
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
