"""The tables a plan shows: its preview and its results, one row per item, honest dtypes."""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import Any

import pandas as pd

from .items import ItemResult, Outcome, PlanItem, Standing

__all__ = ["RESULT_COLUMNS", "preview_frame", "results_frame", "typed"]

RESULT_COLUMNS = (
    "item",
    "row",
    "target",
    "outcome",
    "status",
    "error_key",
    "message",
    "field",
    "request_id",
    "resource_id",
    "recovered",
)

_INT_COLUMNS = ("item", "row", "status", "calls")
_STRING_COLUMNS = (
    "target",
    "will",
    "error",
    "field",
    "error_key",
    "message",
    "request_id",
    "resource_id",
)
_BOOL_COLUMNS = ("valid", "recovered")


def typed(frame: pd.DataFrame, strings: Sequence[str] = ()) -> pd.DataFrame:
    """Honest dtypes that stay the same for zero rows (``strings``: more string columns)."""
    for column in _INT_COLUMNS:
        if column in frame:
            frame[column] = frame[column].astype("Int64")
    for column in (*_STRING_COLUMNS, *strings):
        if column in frame:
            frame[column] = frame[column].astype("string")
    if "outcome" in frame:
        frame["outcome"] = pd.Categorical(frame["outcome"], categories=[o.value for o in Outcome])
    for column in _BOOL_COLUMNS:
        if column in frame:
            frame[column] = frame[column].astype(bool)
    return frame


def _with_dtypes(frame: pd.DataFrame, dtypes: Mapping[str, str]) -> pd.DataFrame:
    for name, dtype in dtypes.items():
        frame[name] = frame[name].astype(pd.api.types.pandas_dtype(dtype))
    return frame


def preview_frame(
    items: Sequence[PlanItem[Any]],
    done: Container[str],
    standings: Sequence[Standing | None] = (),
    state_columns: Mapping[str, str] | None = None,
    calls: Sequence[int] = (),
    item_columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per item: target, what will happen, the calls executing it costs, any local error.

    ``done``: targets the log shows done (skipped); ``standings``: what the
    service's state makes of each item (``None`` where it was not read);
    ``state_columns``: the plan's own state columns and their dtypes; ``calls``: each
    item's calls (see ``actions.cost``; NA where not given); ``item_columns``: the plan's
    descriptive columns and their dtypes (NA where the input did not give one).
    """
    state_columns = state_columns or {}
    item_columns = item_columns or {}
    rows = []
    for index, item in enumerate(items):
        standing = standings[index] if index < len(standings) else None
        if item.error:
            plan = "nothing (invalid)"
        elif item.target in done:
            plan = "skip (already done)"
        elif standing is not None:
            plan = standing.will
        else:
            plan = item.summary
        state = standing.columns if standing is not None else {}
        rows.append(
            {
                "item": index,
                "row": item.row,
                "target": item.target,
                **{name: item.columns.get(name) for name in item_columns},
                "will": plan,
                "calls": calls[index] if index < len(calls) else None,
                **{name: state.get(name) for name in state_columns},
                "valid": item.error is None,
                "error": item.error,
                "field": item.field,
            }
        )
    columns = [
        "item",
        "row",
        "target",
        *item_columns,
        "will",
        "calls",
        *state_columns,
        "valid",
        "error",
        "field",
    ]
    frame = pd.DataFrame(rows, columns=columns)
    return typed(_with_dtypes(frame, {**item_columns, **state_columns}))


def results_frame(
    items: Sequence[PlanItem[Any]],
    results: Sequence[ItemResult],
    extra_columns: Sequence[str] = (),
    item_columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One result row per item, in plan order; ``extra_columns`` are the action's own,
    ``item_columns`` its descriptive columns and their dtypes (NA where not given)."""
    item_columns = item_columns or {}
    rows = []
    for index, (item, result) in enumerate(zip(items, results, strict=True)):
        rows.append(
            {
                "item": index,
                "row": item.row,
                "target": item.target,
                **{name: item.columns.get(name) for name in item_columns},
                "outcome": result.outcome.value,
                "status": result.status,
                "error_key": result.error_key,
                "message": result.message,
                "field": result.field,
                "request_id": result.request_id,
                "resource_id": result.resource_id,
                "recovered": result.recovered,
                **result.columns,
            }
        )
    columns = [
        *RESULT_COLUMNS[:3],
        *item_columns,
        *RESULT_COLUMNS[3:],
        *extra_columns,
    ]
    frame = pd.DataFrame(rows, columns=list(dict.fromkeys(columns)))
    return typed(_with_dtypes(frame, item_columns), strings=extra_columns)
