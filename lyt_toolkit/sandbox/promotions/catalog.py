"""What validation looks things up in: products, SKUs, customers and stored orders.

The engine never touches storage. The HTTP layer hands it a ``Catalog``; tests
hand it an ``InMemoryCatalog`` built from plain lists of documents, the same
dicts a program file holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

Doc = dict[str, Any]

SHIPPING_PRODUCT: Doc = {
    "id": "prod_5h1pp1ng",
    "source_id": "5h1pp1ng",
    "name": "Shipping",
    "price": 0,
}
"""The built-in shipping product a SHIPPING discount takes off; its price comes from the
catalog when the program defines it, else a free shipping line is added."""


class ReferenceNotFound(LookupError):
    """A request names a product, SKU, customer or order the sandbox does not hold (a 404)."""

    def __init__(self, resource_type: str, resource_id: str) -> None:
        self.resource_type = resource_type
        self.resource_id = resource_id
        super().__init__(f"{resource_type} {resource_id} not found")


class Catalog(Protocol):
    """Lookups by service ID or by the merchant's source ID; ``None`` when absent."""

    def product(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None: ...

    def sku(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None: ...

    def customer(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None: ...

    def order(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None: ...


class _Index:
    """Documents of one kind by ``id`` and by ``source_id``."""

    def __init__(self, docs: Iterable[Mapping[str, Any]]) -> None:
        self.by_id: dict[str, Doc] = {}
        self.by_source: dict[str, Doc] = {}
        for doc in docs:
            self.by_id[doc["id"]] = dict(doc)
            if doc.get("source_id"):
                self.by_source[doc["source_id"]] = self.by_id[doc["id"]]

    def find(self, id: str | None, source_id: str | None) -> Doc | None:
        if id is not None:
            return self.by_id.get(id)
        if source_id is not None:
            return self.by_source.get(source_id)
        return None


@dataclass
class InMemoryCatalog:
    """A ``Catalog`` over lists of documents in the program-file format."""

    products: Iterable[Mapping[str, Any]] = ()
    skus: Iterable[Mapping[str, Any]] = ()
    customers: Iterable[Mapping[str, Any]] = ()
    orders: Iterable[Mapping[str, Any]] = ()
    _indexes: dict[str, _Index] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._indexes = {
            "product": _Index(self.products),
            "sku": _Index(self.skus),
            "customer": _Index(self.customers),
            "order": _Index(self.orders),
        }

    def product(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None:
        return self._indexes["product"].find(id, source_id)

    def sku(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None:
        return self._indexes["sku"].find(id, source_id)

    def customer(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None:
        return self._indexes["customer"].find(id, source_id)

    def order(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None:
        return self._indexes["order"].find(id, source_id)
