"""Reading the targets of a batch from what users have at hand.

IDs, models, dicts and DataFrame rows all work, so a filtered DataFrame from
``client.rewards.frame()`` or a list of IDs pasted from a report can feed an action. A
value that is no ID is quoted cut short, a bearer token in it masked (``_json_file.shown``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd
from pydantic import BaseModel

from .._json_file import shown
from ..models.ids import matches
from .items import PlanItem

__all__ = ["as_records", "checked_ids", "first_seen", "id_error", "id_items", "text_error"]


def as_records(values: Any, id_key: str) -> list[dict[str, Any]]:
    """Normalise the input to dicts; a bare string becomes ``{id_key: value}``."""
    if isinstance(values, pd.DataFrame):
        names = [str(k) for k in values.columns]
        present = values.notna().to_numpy()  # blank cells found column by column
        return [
            {k: v for k, v, kept in zip(names, r.values(), row, strict=True) if kept}
            for r, row in zip(values.to_dict(orient="records"), present, strict=True)
        ]
    if isinstance(values, str | BaseModel | Mapping) or not isinstance(values, Iterable):
        values = [values]
    records = []
    for value in values:
        if isinstance(value, BaseModel):
            records.append(value.model_dump())
        elif isinstance(value, Mapping):
            records.append(dict(value))
        elif isinstance(value, tuple | list):
            records.append({"_tuple": tuple(value)})
        else:
            records.append({id_key: value})
    return records


def id_error(prefix: str, value: Any, name: str) -> str | None:
    """Why ``value`` is not a well-formed ID of this kind, or None."""
    if not isinstance(value, str) or not matches(prefix, value):
        return f"{name} must look like {prefix}<hex digits>, got {shown(value)}"
    return None


def text_error(value: Any, name: str) -> str | None:
    """Why ``value`` is not a usable identifier without a fixed pattern, or None."""
    if not isinstance(value, str) or not value.strip():
        return f"{name} must be a non-empty string, got {shown(value)}"
    return None


def first_seen(targets: Iterable[str]) -> list[int | None]:
    """For each target, the 1-based position of its first occurrence if it repeats."""
    seen: dict[str, int] = {}
    out: list[int | None] = []
    for position, target in enumerate(targets, start=1):
        out.append(seen.get(target))
        seen.setdefault(target, position)
    return out


def checked_ids(
    records: Iterable[Mapping[str, Any]], prefix: str, name: str, noun: str
) -> list[tuple[str, str | None]]:
    """Each record's ID (``id`` or ``name``) with why it cannot be planned, or None.

    An ID is refused when it is malformed or repeats an earlier row, so one
    batch never acts twice on the same resource.
    """
    ids = [str(r.get("id", r.get(name, ""))) for r in records]
    checked: list[tuple[str, str | None]] = []
    for value, first in zip(ids, first_seen(ids), strict=True):
        error = id_error(prefix, value, name)
        if error is None and first is not None:
            error = f"same {noun} as row {first} of this batch"
        checked.append((value, error))
    return checked


def id_items(
    values: Any,
    prefix: str,
    name: str,
    noun: str,
    summary: Callable[[Mapping[str, Any]], str],
) -> list[PlanItem[str]]:
    """One item per resource given by ID (IDs, models, dicts or a DataFrame with ``id``).

    The ID is the target and the payload; a ``name`` of the input is shown beside it (NA
    without one: see ``ActionPlan.item_columns``).
    """
    records = as_records(values, "id")
    checked = checked_ids(records, prefix, name, noun)
    return [
        PlanItem(
            target=resource_id,
            summary=summary(record),
            payload=resource_id,
            error=error,
            field=name if error else None,
            row=position,
            columns={"name": record["name"]} if "name" in record else {},
        )
        for position, (record, (resource_id, error)) in enumerate(
            zip(records, checked, strict=True), start=1
        )
    ]
