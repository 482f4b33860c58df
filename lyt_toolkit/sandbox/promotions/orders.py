"""The customer and the priced working order a validation is computed on.

Reference rules (the request may name things three ways):

- customer: ``{id}`` (must exist), ``{source_id}`` (an unknown source ID is a new,
  anonymous-so-far customer, as the service would create it), or a customer object
  (its ``source_id`` is used). ``id`` wins over ``source_id``. Metadata sent in the
  request is laid over the stored customer's metadata.
- order: a body carrying ``items`` or ``amount`` is priced as given; otherwise
  ``{id}`` / ``{source_id}`` names a stored order (``id`` wins) and a missing one is
  a ``ReferenceNotFound``. No order at all is an empty order of amount 0.
- item: ``sku_id`` / ``product_id`` must exist in the catalog; ``source_id`` with
  ``related_object`` is looked up and, when unknown, kept as a free-standing line
  priced from the item itself. Unit price: the item's ``price``, else the SKU's, else
  the product's, else ``amount // quantity``, else 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lyt_toolkit.models.enums import OrderStatus

from ..clock import iso, parse_instant
from .catalog import SHIPPING_PRODUCT, Catalog, Doc, ReferenceNotFound
from .money import cents

ORDER_CREATED = OrderStatus.CREATED.value


@dataclass
class Customer:
    id: str | None = None
    source_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def find_product(
    catalog: Catalog, *, id: str | None = None, source_id: str | None = None
) -> Doc | None:
    """A catalog product; the built-in shipping product is known even when not stored."""
    found = catalog.product(id=id, source_id=source_id)
    if found is None and (
        (id is not None and id == SHIPPING_PRODUCT["id"])
        or (id is None and source_id == SHIPPING_PRODUCT["source_id"])
    ):
        return dict(SHIPPING_PRODUCT)
    return found


def product_ref(product: Mapping[str, Any]) -> Doc:
    """The ``product`` sub-object of an order item."""
    return _present(
        {k: product.get(k) for k in ("id", "source_id", "name")}
        | {"price": cents(product["price"]) if product.get("price") is not None else None}
    )


def sku_ref(sku: Mapping[str, Any]) -> Doc:
    """The ``sku`` sub-object of an order item."""
    return _present(
        {k: sku.get(k) for k in ("id", "source_id", "sku")}
        | {"price": cents(sku["price"]) if sku.get("price") is not None else None}
    )


_OMITTED_WHEN_UNSET = frozenset(
    {"id", "source_id", "created_at", "updated_at", "customer_id", "referrer_id"}
)


def _when(value: Any) -> str | None:
    return iso(parse_instant(value)) if value is not None else None


def _present(doc: Mapping[str, Any]) -> Doc:
    return {k: v for k, v in doc.items() if v is not None}


@dataclass
class Line:
    """One order line while discounts are worked out on it."""

    price: int
    quantity: int
    amount: int
    initial_quantity: int
    initial_amount: int
    product_id: str | None = None
    sku_id: str | None = None
    source_id: str | None = None
    related_object: str | None = None
    product: Doc | None = None
    sku: Doc | None = None
    metadata: dict[str, Any] | None = None
    discount_amount: int = 0
    discount_quantity: int = 0

    @property
    def remaining(self) -> int:
        """What is left to discount on this line; never below zero."""
        return max(self.amount - self.discount_amount, 0)

    def add_units(self, count: int) -> None:
        self.quantity += count
        self.amount += self.price * count

    def take(self, wanted: int, *, units: int | None = None) -> int:
        """Discount up to ``wanted`` off this line, never past zero; returns what was taken.

        ``units`` counts the free units of a unit discount; other discounts mark the
        whole line as discounted once they take anything off it.
        """
        taken = max(min(wanted, self.remaining), 0)
        self.discount_amount += taken
        if units is not None:
            self.discount_quantity = min(self.discount_quantity + units, self.quantity)
        elif taken:
            self.discount_quantity = self.quantity
        return taken

    def wire(self) -> Doc:
        item: Doc = {"object": "order_item"}
        for key in ("source_id", "related_object", "product_id", "sku_id"):
            if getattr(self, key) is not None:
                item[key] = getattr(self, key)
        item |= {
            "quantity": self.quantity,
            "discount_quantity": self.discount_quantity,
            "initial_quantity": self.initial_quantity,
            "amount": self.amount,
            "discount_amount": self.discount_amount,
            "initial_amount": self.initial_amount,
            "applied_discount_amount": self.discount_amount,
            "price": self.price,
            "subtotal_amount": self.amount - self.discount_amount,
        }
        if self.product is not None:
            item["product"] = self.product
        if self.sku is not None:
            item["sku"] = self.sku
        if self.metadata is not None:
            item["metadata"] = self.metadata
        return item


@dataclass
class WorkingOrder:
    """The order as sent or stored, plus the discounts applied to it so far."""

    lines: list[Line]
    initial_amount: int
    id: str | None = None
    source_id: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    status: str = ORDER_CREATED
    metadata: dict[str, Any] = field(default_factory=dict)
    customer_id: str | None = None
    referrer_id: str | None = None
    order_discount: int = 0
    order_level: bool = False

    @property
    def amount(self) -> int:
        """Pre-discount amount: the initial amount plus any units a discount added."""
        return self.initial_amount + sum(line.amount - line.initial_amount for line in self.lines)

    @property
    def items_discount(self) -> int:
        return sum(line.discount_amount for line in self.lines)

    @property
    def total_discount(self) -> int:
        return self.items_discount + self.order_discount

    @property
    def remaining(self) -> int:
        return max(self.amount - self.total_discount, 0)

    def take(self, wanted: int) -> int:
        """An order-level discount of up to ``wanted``, never past a zero total."""
        taken = max(min(wanted, self.remaining), 0)
        self.order_discount += taken
        self.order_level = True
        return taken

    def wire(self) -> Doc:
        order: Doc = {
            "id": self.id,
            "source_id": self.source_id,
            "created_at": _when(self.created_at),
            "updated_at": _when(self.updated_at),
            "status": self.status,
            "amount": self.amount,
            "initial_amount": self.initial_amount,
        }
        if self.order_level:
            order["discount_amount"] = self.order_discount
        order |= {
            "items_discount_amount": self.items_discount,
            "total_discount_amount": self.total_discount,
            "total_amount": self.amount - self.total_discount,
        }
        if self.order_level:
            order["applied_discount_amount"] = self.order_discount
        order |= {
            "items_applied_discount_amount": self.items_discount,
            "total_applied_discount_amount": self.total_discount,
            "items": [line.wire() for line in self.lines],
            "metadata": self.metadata,
            "customer_id": self.customer_id,
            "referrer_id": self.referrer_id,
            "object": "order",
        }
        # An inline order has no ID, source ID or dates: those keys are left out, not null.
        return {k: v for k, v in order.items() if v is not None or k not in _OMITTED_WHEN_UNSET}


def resolve_customer(ref: Mapping[str, Any] | None, catalog: Catalog) -> Customer:
    """The customer a request names (see the module docstring for the rules)."""
    if not ref:
        return Customer()
    sent_metadata = dict(ref.get("metadata") or {})
    if ref.get("id"):
        stored = catalog.customer(id=ref["id"])
        if stored is None:
            raise ReferenceNotFound("customer", ref["id"])
    elif ref.get("source_id"):
        stored = catalog.customer(source_id=ref["source_id"])
        if stored is None:
            return Customer(None, ref["source_id"], sent_metadata)
    else:
        return Customer(None, None, sent_metadata)
    metadata = dict(stored.get("metadata") or {}) | sent_metadata
    return Customer(stored["id"], stored.get("source_id"), metadata)


def resolve_order(
    ref: Mapping[str, Any] | None, catalog: Catalog, customer: Customer
) -> WorkingOrder:
    """The working order a request names, priced from the catalog."""
    source: Mapping[str, Any] = ref or {}
    if source and "items" not in source and "amount" not in source:
        if source.get("id"):
            stored = catalog.order(id=source["id"])
            missing = ("order", source["id"])
        elif source.get("source_id"):
            stored = catalog.order(source_id=source["source_id"])
            missing = ("order", source["source_id"])
        else:
            stored, missing = {}, None
        if stored is None and missing is not None:
            raise ReferenceNotFound(*missing)
        source = stored or {}
    lines = [_line(item, catalog) for item in source.get("items") or []]
    amount = source.get("amount")
    nested_customer = source.get("customer") or {}
    return WorkingOrder(
        lines=lines,
        initial_amount=cents(amount) if amount is not None else sum(x.amount for x in lines),
        id=source.get("id"),
        source_id=source.get("source_id"),
        created_at=source.get("created_at"),
        updated_at=source.get("updated_at"),
        status=source.get("status") or ORDER_CREATED,
        metadata=dict(source.get("metadata") or {}),
        customer_id=customer.id or source.get("customer_id") or nested_customer.get("id"),
        referrer_id=source.get("referrer_id"),
    )


def _line(item: Mapping[str, Any], catalog: Catalog) -> Line:
    sku: Doc | None = None
    product: Doc | None = None
    related = item.get("related_object")
    source_id = item.get("source_id")
    if item.get("sku_id"):
        sku = catalog.sku(id=item["sku_id"])
        if sku is None:
            raise ReferenceNotFound("sku", item["sku_id"])
    elif source_id and related == "sku":
        sku = catalog.sku(source_id=source_id)
    if item.get("product_id"):
        product = find_product(catalog, id=item["product_id"])
        if product is None:
            raise ReferenceNotFound("product", item["product_id"])
    elif sku is not None and sku.get("product_id"):
        product = find_product(catalog, id=sku["product_id"])
    elif source_id and related in (None, "product"):
        product = find_product(catalog, source_id=source_id)

    quantity = int(item["quantity"]) if item.get("quantity") is not None else 1
    given_amount = item.get("amount")
    if item.get("price") is not None:
        price = cents(item["price"])
    elif sku is not None and sku.get("price") is not None:
        price = cents(sku["price"])
    elif product is not None and product.get("price") is not None:
        price = cents(product["price"])
    elif given_amount is not None and quantity:
        price = cents(given_amount) // quantity
    else:
        price = 0
    amount = cents(given_amount) if given_amount is not None else price * quantity
    return Line(
        price=price,
        quantity=quantity,
        amount=amount,
        initial_quantity=quantity,
        initial_amount=amount,
        product_id=product["id"] if product else item.get("product_id"),
        sku_id=sku["id"] if sku else item.get("sku_id"),
        source_id=source_id,
        related_object=related,
        product=product_ref(product) if product else None,
        sku=sku_ref(sku) if sku else None,
        metadata=item.get("metadata"),
    )
