"""The six discount variants of a promotion tier, and the item lists they apply to.

Three of the variants share the wire type ``UNIT``: a unit-multiple discount
carries ``units``, a shipping discount names the reserved shipping product as
its ``unit_type``; :func:`discount_kind` tells them apart for parsing.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Discriminator, Tag

from .common import OMIT_IF_NONE, ApiModel, Number, Open
from .enums import AmountEffect, DiscountType, ItemEffect, PercentEffect, UnitEffect
from .lists import CountedList

__all__ = [
    "AmountDiscount",
    "ApplicableItem",
    "Discount",
    "DiscountProduct",
    "DiscountSku",
    "DiscountUnit",
    "FixedDiscount",
    "ItemList",
    "PercentDiscount",
    "ShippingDiscount",
    "UnitDiscount",
    "UnitMultipleDiscount",
    "discount_kind",
]

SHIPPING_PRODUCT_ID: Final = "prod_5h1pp1ng"
"""The reserved product ID a shipping discount names as its ``unit_type``."""


class DiscountProduct(ApiModel):
    """The product a unit discount adds."""

    id: str
    source_id: Annotated[str | None, OMIT_IF_NONE] = None
    name: Annotated[str | None, OMIT_IF_NONE] = None


class DiscountSku(ApiModel):
    """The SKU a unit discount adds."""

    id: str
    source_id: Annotated[str | None, OMIT_IF_NONE] = None
    sku: Annotated[str | None, OMIT_IF_NONE] = None
    name: Annotated[str | None, OMIT_IF_NONE] = None


class AmountDiscount(ApiModel):
    """A fixed amount off (in the smallest currency unit)."""

    type: Literal[DiscountType.AMOUNT] = DiscountType.AMOUNT
    effect: Annotated[Open[AmountEffect] | None, OMIT_IF_NONE] = None
    amount_off: Number
    amount_off_formula: Annotated[str | None, OMIT_IF_NONE] = None
    aggregated_amount_limit: Annotated[int | None, OMIT_IF_NONE] = None
    is_dynamic: Annotated[bool | None, OMIT_IF_NONE] = None


class PercentDiscount(ApiModel):
    """A percentage off, optionally capped."""

    type: Literal[DiscountType.PERCENT] = DiscountType.PERCENT
    effect: Annotated[Open[PercentEffect] | None, OMIT_IF_NONE] = None
    percent_off: Number
    percent_off_formula: Annotated[str | None, OMIT_IF_NONE] = None
    amount_limit: Annotated[Number | None, OMIT_IF_NONE] = None
    aggregated_amount_limit: Annotated[int | None, OMIT_IF_NONE] = None
    is_dynamic: Annotated[bool | None, OMIT_IF_NONE] = None


class FixedDiscount(ApiModel):
    """A fixed final price for the order or items."""

    type: Literal[DiscountType.FIXED] = DiscountType.FIXED
    effect: Annotated[Open[PercentEffect] | None, OMIT_IF_NONE] = None
    fixed_amount: Number
    fixed_amount_formula: Annotated[str | None, OMIT_IF_NONE] = None
    is_dynamic: Annotated[bool | None, OMIT_IF_NONE] = None


class DiscountUnit(ApiModel):
    """Free units of one product or SKU (also one entry of a unit-multiple discount)."""

    effect: Annotated[Open[UnitEffect] | None, OMIT_IF_NONE] = None
    unit_off: Annotated[Number | None, OMIT_IF_NONE] = None
    unit_off_formula: Annotated[str | None, OMIT_IF_NONE] = None
    unit_type: str
    product: Annotated[DiscountProduct | None, OMIT_IF_NONE] = None
    sku: Annotated[DiscountSku | None, OMIT_IF_NONE] = None
    is_dynamic: Annotated[bool | None, OMIT_IF_NONE] = None


class UnitDiscount(DiscountUnit):
    """Free units of a single product or SKU."""

    type: Literal[DiscountType.UNIT] = DiscountType.UNIT


class UnitMultipleDiscount(ApiModel):
    """Free units of several products or SKUs at once."""

    type: Literal[DiscountType.UNIT] = DiscountType.UNIT
    effect: Open[UnitEffect] = UnitEffect.ADD_MANY_ITEMS
    units: list[DiscountUnit] | DiscountUnit


class ShippingDiscount(ApiModel):
    """Free shipping: one unit of the reserved shipping product."""

    type: Literal[DiscountType.UNIT] = DiscountType.UNIT
    effect: Open[UnitEffect] = UnitEffect.ADD_MISSING_ITEMS
    unit_off: Number = 1
    unit_type: Literal["prod_5h1pp1ng"] = SHIPPING_PRODUCT_ID
    product: Annotated[DiscountProduct | None, OMIT_IF_NONE] = None


def discount_kind(value: Any) -> str | None:
    """The variant tag of a raw or parsed discount (AMOUNT ... SHIPPING)."""
    if isinstance(value, dict):
        get = value.get
    else:

        def get(key: str, default: Any = None) -> Any:
            return getattr(value, key, default)

    kind = get("type")
    if kind is None and get("units") is None and get("unit_type") is None:
        return None
    if kind is None or kind == DiscountType.UNIT:
        if get("units") is not None:
            return "UNIT_MULTIPLE"
        if get("unit_type") == SHIPPING_PRODUCT_ID:
            return "SHIPPING"
        return "UNIT"
    return str(kind)


Discount = Annotated[
    Annotated[AmountDiscount, Tag("AMOUNT")]
    | Annotated[PercentDiscount, Tag("PERCENT")]
    | Annotated[FixedDiscount, Tag("FIXED")]
    | Annotated[UnitDiscount, Tag("UNIT")]
    | Annotated[UnitMultipleDiscount, Tag("UNIT_MULTIPLE")]
    | Annotated[ShippingDiscount, Tag("SHIPPING")],
    Discriminator(
        discount_kind,
        custom_error_type="invalid_discount",
        custom_error_message="discount type must be AMOUNT, PERCENT, FIXED or UNIT",
    ),
]
"""Any discount; parsing picks the variant with :func:`discount_kind`."""


class ApplicableItem(ApiModel):
    """A product, SKU or collection a discount applies to (or excludes)."""

    object: str
    id: str
    source_id: Annotated[str | None, OMIT_IF_NONE] = None
    product_id: Annotated[str | None, OMIT_IF_NONE] = None
    product_source_id: Annotated[str | None, OMIT_IF_NONE] = None
    price: Annotated[Number | None, OMIT_IF_NONE] = None
    price_formula: Annotated[str | None, OMIT_IF_NONE] = None
    effect: Annotated[Open[ItemEffect] | None, OMIT_IF_NONE] = None
    quantity_limit: Annotated[int | None, OMIT_IF_NONE] = None
    aggregated_quantity_limit: Annotated[int | None, OMIT_IF_NONE] = None


ItemList = CountedList[ApplicableItem]
"""The ``applicable_to`` / ``inapplicable_to`` envelopes of a validation result."""
