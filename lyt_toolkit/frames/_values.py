"""Small value converters shared by the row builders of every kind."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from pydantic import BaseModel

_CONTAINERS = (dict, list, tuple)

__all__ = ["as_json", "midnight_utc", "model_of"]


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


def model_of(model: type[BaseModel], item: Any) -> Any:
    """``item`` as ``model``: models pass through, raw dicts (API JSON) are validated."""
    if isinstance(item, model):
        return item
    return model.model_validate(item)
