"""The six discount variants, each applied to a working order.

Every function returns ``(discount_amount, applied_discount_amount)``: the first is
what the discount is worth by its own terms (``amount_off``, the capped percentage,
the value of the free units...), the second what actually came off the order once
lines and the order total stop at zero. The order is changed in place.

Effects:

- AMOUNT ``APPLY_TO_ORDER``: ``amount_off`` off the order total.
  ``APPLY_TO_ITEMS``: ``amount_off`` off each eligible line;
  ``APPLY_TO_ITEMS_BY_QUANTITY``: off each eligible unit;
  ``APPLY_TO_ITEMS_PROPORTIONALLY``: ``amount_off`` once, spread over eligible lines by
  their amounts; ``..._PROPORTIONALLY_BY_QUANTITY``: spread by their quantities.
- PERCENT ``APPLY_TO_ORDER``: ``percent_off`` of the order, capped at ``amount_limit``;
  ``APPLY_TO_ITEMS``: of each eligible line, each capped at ``amount_limit``, the sum
  capped at ``aggregated_amount_limit``.
- FIXED ``APPLY_TO_ORDER``: the total becomes ``fixed_amount`` when it was higher;
  ``APPLY_TO_ITEMS``: each eligible unit's price becomes ``fixed_amount`` when higher.
- UNIT (one product/SKU, or ``units`` for several; SHIPPING is a unit discount of the
  shipping product): ``ADD_MISSING_ITEMS`` tops the line up to ``unit_off`` units,
  ``ADD_NEW_ITEMS`` adds ``unit_off`` units, ``ADD_SAME_ITEMS`` adds nothing; then
  ``unit_off`` units (at most the line's quantity) are free, at the line's price.

Eligible lines: those matching the tier's ``applicable_to`` targets (every line when
there are none), minus those matching ``inapplicable_to``. The shipping line is
eligible for item effects only when a target names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any, TypeVar

from lyt_toolkit.models.enums import (
    AmountEffect,
    DiscountType,
    FixedEffect,
    ItemEffect,
    PercentEffect,
    UnitEffect,
)

from .catalog import SHIPPING_PRODUCT, Catalog, Doc
from .money import cents, percent_of, split
from .orders import Line, WorkingOrder, find_product, product_ref, sku_ref

Amounts = tuple[int, int]
Eligible = Callable[[Line], bool]
E = TypeVar("E", bound=StrEnum)


class UnsupportedDiscount(ValueError):
    """A stored discount the engine cannot compute (bad program data, not a client error)."""


def apply_discount(
    discount: Mapping[str, Any], order: WorkingOrder, catalog: Catalog, eligible: Eligible
) -> Amounts:
    """Apply ``discount`` to ``order``; returns (discount_amount, applied_discount_amount)."""
    kind = discount.get("type")
    if kind == DiscountType.AMOUNT:
        return _amount(discount, order, eligible)
    if kind == DiscountType.PERCENT:
        return _percent(discount, order, eligible)
    if kind == DiscountType.FIXED:
        return _fixed(discount, order, eligible)
    if kind == DiscountType.UNIT:
        units = discount.get("units")
        if units is not None:
            totals = [_unit(unit, order, catalog) for unit in units]
            return sum(t[0] for t in totals), sum(t[1] for t in totals)
        return _unit(discount, order, catalog)
    raise UnsupportedDiscount(f"unknown discount type {kind!r}")


def _effect(discount: Mapping[str, Any], effects: type[E], default: E) -> E:
    try:
        return effects(discount.get("effect") or default)
    except ValueError as exc:
        raise UnsupportedDiscount(f"unknown discount effect {discount.get('effect')!r}") from exc


def _amount(discount: Mapping[str, Any], order: WorkingOrder, eligible: Eligible) -> Amounts:
    off = cents(discount.get("amount_off"))
    effect = _effect(discount, AmountEffect, AmountEffect.APPLY_TO_ORDER)
    lines = [line for line in order.lines if eligible(line)]
    if effect == AmountEffect.APPLY_TO_ORDER:
        return off, order.take(off)
    if effect == AmountEffect.APPLY_TO_ITEMS:
        return off * len(lines), sum(line.take(off) for line in lines)
    if effect == AmountEffect.APPLY_TO_ITEMS_BY_QUANTITY:
        return (
            sum(off * line.quantity for line in lines),
            sum(line.take(off * line.quantity) for line in lines),
        )
    if effect == AmountEffect.APPLY_TO_ITEMS_PROPORTIONALLY:
        shares = split(
            min(off, sum(line.remaining for line in lines)), [x.remaining for x in lines]
        )
        return (off if lines else 0), _take_shares(lines, shares)
    if effect == AmountEffect.APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY:
        shares = split(off, [line.quantity for line in lines])
        return (off if lines else 0), _take_shares(lines, shares)
    raise UnsupportedDiscount(f"effect {effect} does not apply to an AMOUNT discount")


def _percent(discount: Mapping[str, Any], order: WorkingOrder, eligible: Eligible) -> Amounts:
    percent = discount.get("percent_off") or 0
    limit = discount.get("amount_limit")
    effect = _effect(discount, PercentEffect, PercentEffect.APPLY_TO_ORDER)
    if effect == PercentEffect.APPLY_TO_ORDER:
        wanted = _cap(percent_of(order.remaining, percent), limit)
        return wanted, order.take(wanted)
    if effect == PercentEffect.APPLY_TO_ITEMS:
        lines = [line for line in order.lines if eligible(line)]
        shares = [_cap(percent_of(line.remaining, percent), limit) for line in lines]
        aggregated = discount.get("aggregated_amount_limit")
        if aggregated is not None and sum(shares) > cents(aggregated):
            shares = split(cents(aggregated), shares)
        return sum(shares), _take_shares(lines, shares)
    raise UnsupportedDiscount(f"effect {effect} does not apply to a PERCENT discount")


def _fixed(discount: Mapping[str, Any], order: WorkingOrder, eligible: Eligible) -> Amounts:
    fixed = cents(discount.get("fixed_amount"))
    effect = _effect(discount, FixedEffect, FixedEffect.APPLY_TO_ORDER)
    if effect == FixedEffect.APPLY_TO_ORDER:
        wanted = max(order.remaining - fixed, 0)
        return wanted, order.take(wanted)
    if effect == FixedEffect.APPLY_TO_ITEMS:
        lines = [line for line in order.lines if eligible(line)]
        shares = [max(line.price - fixed, 0) * line.quantity for line in lines]
        return sum(shares), _take_shares(lines, shares)
    raise UnsupportedDiscount(f"effect {effect} does not apply to a FIXED discount")


def _cap(value: int, limit: Any) -> int:
    return value if limit is None else min(value, cents(limit))


def _take_shares(lines: Sequence[Line], shares: Sequence[int]) -> int:
    return sum(line.take(share) for line, share in zip(lines, shares, strict=True))


# -- unit discounts -------------------------------------------------------------


def unit_target(unit: Mapping[str, Any], catalog: Catalog) -> tuple[Doc | None, Doc | None]:
    """The (product, sku) a unit discount gives away, from the catalog or the discount itself."""
    unit_type = unit.get("unit_type") or ""
    sku = catalog.sku(id=unit_type) if unit_type else None
    if sku is not None:
        product = find_product(catalog, id=sku["product_id"]) if sku.get("product_id") else None
        return product or unit.get("product"), sku
    product = find_product(catalog, id=unit_type) if unit_type else None
    if product is None and unit.get("sku"):
        return unit.get("product"), {**unit["sku"], "id": unit_type}
    if product is None:
        product = {**(unit.get("product") or {}), "id": unit_type}
    return product, None


def _unit(unit: Mapping[str, Any], order: WorkingOrder, catalog: Catalog) -> Amounts:
    unit_off = unit.get("unit_off")
    free = int(unit_off if unit_off is not None else 1)
    effect = _effect(unit, UnitEffect, UnitEffect.ADD_MISSING_ITEMS)
    product, sku = unit_target(unit, catalog)
    line = _find_line(order, product, sku)
    if effect == UnitEffect.ADD_SAME_ITEMS:
        if line is None:
            return 0, 0
        free = min(free, line.quantity)
    elif line is None:
        line = _new_line(product, sku)
        order.lines.append(line)
        line.add_units(free)
    elif effect == UnitEffect.ADD_NEW_ITEMS:
        line.add_units(free)
    elif effect == UnitEffect.ADD_MISSING_ITEMS:
        line.add_units(max(free - line.quantity, 0))
    else:
        raise UnsupportedDiscount(f"effect {effect} does not apply to a unit")
    worth = free * line.price
    return worth, line.take(worth, units=free)


def _find_line(order: WorkingOrder, product: Doc | None, sku: Doc | None) -> Line | None:
    for line in order.lines:
        if sku is not None and line.sku_id == sku["id"]:
            return line
        if (
            sku is None
            and product is not None
            and line.sku_id is None
            and (line.product_id == product["id"])
        ):
            return line
    return None


def _new_line(product: Doc | None, sku: Doc | None) -> Line:
    price_source = sku if sku is not None and sku.get("price") is not None else product
    price = cents((price_source or {}).get("price"))
    return Line(
        price=price,
        quantity=0,
        amount=0,
        initial_quantity=0,
        initial_amount=0,
        product_id=product.get("id") if product else None,
        sku_id=sku["id"] if sku else None,
        related_object="sku" if sku is not None else "product",
        product=product_ref(product) if product else None,
        sku=sku_ref(sku) if sku else None,
    )


def echo_discount(discount: Mapping[str, Any], catalog: Catalog) -> Doc:
    """The discount as results show it: unit discounts name their product and SKU."""
    shown = dict(discount)
    if discount.get("type") != DiscountType.UNIT:
        return shown
    if discount.get("units") is not None:
        shown.setdefault("effect", UnitEffect.ADD_MANY_ITEMS.value)
        shown["units"] = [_echo_unit(unit, catalog) for unit in discount["units"]]
        return shown
    return _echo_unit(shown, catalog)


def _echo_unit(unit: Mapping[str, Any], catalog: Catalog) -> Doc:
    shown = dict(unit)
    product, sku = unit_target(unit, catalog)
    if sku is not None and "sku" not in shown:
        shown["sku"] = {k: sku[k] for k in ("id", "source_id", "sku") if sku.get(k) is not None}
    if product is not None and product.get("name") is not None and "product" not in shown:
        shown["product"] = {
            k: product[k] for k in ("id", "source_id", "name") if product.get(k) is not None
        }
    return shown


# -- targets --------------------------------------------------------------------

TARGET_FIELDS = {
    "product": (
        "object",
        "id",
        "source_id",
        "effect",
        "quantity_limit",
        "aggregated_quantity_limit",
        "price",
        "price_formula",
    ),
    "sku": (
        "object",
        "id",
        "source_id",
        "product_id",
        "product_source_id",
        "effect",
        "quantity_limit",
        "aggregated_quantity_limit",
        "price",
        "price_formula",
    ),
    "products_collection": (
        "object",
        "id",
        "effect",
        "quantity_limit",
        "aggregated_quantity_limit",
        "price",
        "price_formula",
    ),
}
"""Fields each kind of ``applicable_to`` / ``inapplicable_to`` entry may carry."""

EXCLUDED_FIELDS = {
    "product": ("object", "id", "source_id", "effect"),
    "sku": ("object", "id", "source_id", "effect"),
    "products_collection": ("object", "id", "effect"),
}


def target_entry(target: Mapping[str, Any], catalog: Catalog, *, excluded: bool) -> Doc:
    """One entry of an applicable/inapplicable list, completed from the catalog."""
    kind = target.get("object") or "product"
    entry: Doc = {"object": kind, "effect": ItemEffect.APPLY_TO_EVERY.value} | dict(target)
    if kind == "product":
        product = find_product(catalog, id=target.get("id"))
        if product is not None and product.get("source_id"):
            entry.setdefault("source_id", product["source_id"])
    elif kind == "sku":
        sku = catalog.sku(id=target.get("id"))
        if sku is not None:
            if sku.get("source_id"):
                entry.setdefault("source_id", sku["source_id"])
            if sku.get("product_id") and not excluded:
                entry.setdefault("product_id", sku["product_id"])
                product = find_product(catalog, id=sku["product_id"])
                if product is not None and product.get("source_id"):
                    entry.setdefault("product_source_id", product["source_id"])
    fields = (EXCLUDED_FIELDS if excluded else TARGET_FIELDS).get(kind, ("object", "id", "effect"))
    return {k: entry[k] for k in fields if entry.get(k) is not None}


def _matches(target: Mapping[str, Any], line: Line) -> bool:
    kind = target.get("object") or "product"
    if kind == "sku":
        return line.sku_id is not None and line.sku_id == target.get("id")
    if kind == "product":
        return line.product_id is not None and line.product_id == target.get("id")
    return False  # the sandbox keeps no product collections: they match no line


def eligibility(
    applicable: Sequence[Mapping[str, Any]], inapplicable: Sequence[Mapping[str, Any]]
) -> Eligible:
    """The predicate choosing the lines item-level effects apply to."""

    def eligible(line: Line) -> bool:
        named = any(_matches(t, line) for t in applicable)
        if any(_matches(t, line) for t in inapplicable):
            return False
        if applicable:
            return named
        return line.product_id != SHIPPING_PRODUCT["id"]

    return eligible
