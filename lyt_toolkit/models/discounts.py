"""The six discount variants of a promotion tier, and the item lists they apply to.

Three of the variants share the wire type ``UNIT``: a unit-multiple discount
carries ``units``, a shipping discount names the reserved shipping product as
its ``unit_type``; :func:`discount_kind` tells them apart for parsing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Tag

from .common import ApiModel, Number, Open
from .enums import DiscountType
from .lists import CountedList
from .subtypes import SHIPPING_PRODUCT_ID, AmountEffect, ItemEffect, PercentEffect, UnitEffect

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

_FORMULA = frozenset({"is_dynamic"})


class DiscountProduct(ApiModel):
    """The product a unit discount adds."""

    omit_if_none = frozenset({"source_id", "name"})

    id: str
    source_id: str | None = None
    name: str | None = None


class DiscountSku(ApiModel):
    """The SKU a unit discount adds."""

    omit_if_none = frozenset({"source_id", "sku", "name"})

    id: str
    source_id: str | None = None
    sku: str | None = None
    name: str | None = None


class AmountDiscount(ApiModel):
    """A fixed amount off (in the smallest currency unit)."""

    omit_if_none = _FORMULA | {"effect", "amount_off_formula", "aggregated_amount_limit"}

    type: Literal[DiscountType.AMOUNT] = DiscountType.AMOUNT
    effect: Open[AmountEffect] | None = None
    amount_off: Number
    amount_off_formula: str | None = None
    aggregated_amount_limit: int | None = None
    is_dynamic: bool | None = None


class PercentDiscount(ApiModel):
    """A percentage off, optionally capped."""

    omit_if_none = _FORMULA | {
        "effect", "percent_off_formula", "amount_limit", "aggregated_amount_limit",
    }  # fmt: skip

    type: Literal[DiscountType.PERCENT] = DiscountType.PERCENT
    effect: Open[PercentEffect] | None = None
    percent_off: Number
    percent_off_formula: str | None = None
    amount_limit: Number | None = None
    aggregated_amount_limit: int | None = None
    is_dynamic: bool | None = None


class FixedDiscount(ApiModel):
    """A fixed final price for the order or items."""

    omit_if_none = _FORMULA | {"effect", "fixed_amount_formula"}

    type: Literal[DiscountType.FIXED] = DiscountType.FIXED
    effect: Open[PercentEffect] | None = None
    fixed_amount: Number
    fixed_amount_formula: str | None = None
    is_dynamic: bool | None = None


class DiscountUnit(ApiModel):
    """Free units of one product or SKU (also one entry of a unit-multiple discount)."""

    omit_if_none = _FORMULA | {"effect", "unit_off", "unit_off_formula", "product", "sku"}

    effect: Open[UnitEffect] | None = None
    unit_off: Number | None = None
    unit_off_formula: str | None = None
    unit_type: str
    product: DiscountProduct | None = None
    sku: DiscountSku | None = None
    is_dynamic: bool | None = None


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

    omit_if_none = frozenset({"product"})

    type: Literal[DiscountType.UNIT] = DiscountType.UNIT
    effect: Open[UnitEffect] = UnitEffect.ADD_MISSING_ITEMS
    unit_off: Number = 1
    unit_type: Literal["prod_5h1pp1ng"] = SHIPPING_PRODUCT_ID
    product: DiscountProduct | None = None


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

    omit_if_none = frozenset(
        {
            "source_id", "product_id", "product_source_id", "price", "price_formula",
            "effect", "quantity_limit", "aggregated_quantity_limit",
        }
    )  # fmt: skip

    object: str
    id: str
    source_id: str | None = None
    product_id: str | None = None
    product_source_id: str | None = None
    price: Number | None = None
    price_formula: str | None = None
    effect: Open[ItemEffect] | None = None
    quantity_limit: int | None = None
    aggregated_quantity_limit: int | None = None


ItemList = CountedList[ApplicableItem]
"""The ``applicable_to`` / ``inapplicable_to`` envelopes of a validation result."""
