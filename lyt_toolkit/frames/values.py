"""Small value converters shared by the row builders of every kind."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from ..models import ProductTarget, SkuTarget

_CONTAINERS = (dict, list, tuple)

M = TypeVar("M", bound=BaseModel)

__all__ = ["as_json", "attributes", "material_values", "midnight_utc", "model_of", "whole"]


class Material(Protocol):
    """What a material reward or benefit points at: a product, or a SKU of one."""

    @property
    def product(self) -> ProductTarget | None: ...

    @property
    def sku(self) -> SkuTarget | None: ...

    @property
    def type(self) -> object: ...


def attributes(model: object, *names: str) -> dict[str, Any]:
    """The model's attributes ``names``, each under its own name: the columns a row takes
    from its model as they are (``Schema.build`` names a column a row lacks or adds)."""
    return {name: getattr(model, name) for name in names}


def as_json(value: Any, *, keep_empty: bool = False) -> str | None:
    """Compact, key-sorted JSON text for nested data; None when absent (or empty,
    unless ``keep_empty``: an empty list of DAILY windows is itself a finding).

    Nested lists and objects (DAILY windows, metadata) are kept as JSON text so
    the column stays one typed ``string`` column and survives a CSV round trip.
    """
    if value is None or (not value and not keep_empty and type(value) in _CONTAINERS):
        return None
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    elif isinstance(value, list | tuple):
        value = [
            v.model_dump(mode="json", by_alias=True, exclude_none=True)
            if isinstance(v, BaseModel)
            else v
            for v in value
        ]
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def midnight_utc(value: dt.date | None) -> dt.datetime | None:
    """A calendar date as the instant 00:00 UTC of that day (None stays None)."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value
    return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)


def material_values(material: Material | None) -> dict[str, Any]:
    """The ``material_*`` columns of a reward or benefit (all None when not material)."""
    if material is None:
        return {"material_type": None, "material_product_id": None, "material_sku_id": None}
    sku = material.sku
    product = material.product.id if material.product else sku.product_id if sku else None
    return {
        "material_type": material.type,
        "material_product_id": product,
        "material_sku_id": sku.id if sku else None,
    }


def whole(value: Any) -> Any:
    """Points arrive as JSON numbers; whole floats become ints for ``Int64``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def model_of(model: type[M], item: M | dict[str, Any]) -> M:
    """``item`` as ``model``: models pass through, raw dicts (API JSON) are validated."""
    if isinstance(item, model):
        return item
    return model.model_validate(item)
