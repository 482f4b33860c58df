"""Reading the edited frames of a desired state: each conformed to its base frame's columns
and dtypes, its new rows (no key) told apart, its keys checked on the key index the diff
lines the rows up with. Every refusal is one ``EditError`` line naming frame, row and
column."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import LytError
from ..frames.registry import FRAME_NAMES
from ..snapshot import ProgramSnapshot
from ..snapshot.diff import KEYS, KeyAlignment, align

__all__ = [
    "EditError",
    "EditedFrames",
    "check_keys",
    "conformed",
    "noun",
    "read_edited",
    "row_label",
]


class EditError(LytError, ValueError):
    """An edited frame the plan cannot read: one line naming the frame, row and column."""


def noun(kind: str) -> str:
    """``tier_structures`` -> ``tier structure``."""
    return kind.removesuffix("s").replace("_", " ")


@dataclass(frozen=True)
class EditedFrames:
    """The edited frames, read: by kind, the rows with a key (``kept``, lined up with the
    base in ``aligned``) and the new rows (``new``, no key: the service would assign it)."""

    kept: Mapping[str, pd.DataFrame]
    new: Mapping[str, pd.DataFrame]
    aligned: Mapping[str, KeyAlignment]


def read_edited(before: ProgramSnapshot, frames: Mapping[str, pd.DataFrame]) -> EditedFrames:
    """Conform and check every edited frame against ``before``; ``EditError`` else."""
    unknown = sorted(set(frames) - set(FRAME_NAMES))
    if unknown:
        raise EditError(f"after: unknown frames {unknown}; known: {list(FRAME_NAMES)}")
    kept, new, aligned = {}, {}, {}
    for kind, frame in frames.items():
        base = getattr(before, kind)
        edited = conformed(kind, base, frame)
        is_new = edited["reward_id" if kind == "reward_costs" else "id"].isna().to_numpy()
        if is_new.any():
            kept[kind], new[kind] = edited[~is_new], edited[is_new]
        else:  # the usual case: no rows to take
            kept[kind], new[kind] = edited, edited.iloc[:0]
        if len(base) or len(kept[kind]):
            aligned[kind] = align(kind, base, kept[kind])
            check_keys(kind, kept[kind], aligned[kind])
    return EditedFrames(kept, new, aligned)


def row_label(kind: str, label: Any, column: str) -> str:
    return f"{kind} row {label}, column {column!r}"


def conformed(kind: str, base: pd.DataFrame, edited: pd.DataFrame) -> pd.DataFrame:
    """``edited`` with the base's columns and dtypes; ``EditError`` names what does not fit."""
    if not isinstance(edited, pd.DataFrame):
        raise EditError(f"{kind}: expected a DataFrame, not {type(edited).__name__}")
    for name in base.columns:
        if name not in edited.columns:
            raise EditError(f"{kind}: column {name!r} is missing from the edited frame")
    for name in edited.columns:
        if name not in base.columns:
            raise EditError(f"{kind}: column {name!r} is not a column of {kind}")
    columns = list(base.columns)
    out = edited if list(edited.columns) == columns else edited[columns]
    unlike = [
        (name, wanted)
        for name, dtype, wanted in zip(columns, out.dtypes, base.dtypes, strict=True)
        if dtype != wanted
    ]
    if unlike:  # a shallow copy (copy-on-write): a converted column replaces the copy's only
        out = out.copy(deep=False)
        for name, wanted in unlike:
            out[name] = _as_dtype(kind, name, out[name], wanted)
    return out


def _as_dtype(kind: str, name: str, column: pd.Series[Any], dtype: Any) -> pd.Series[Any]:
    """``column`` in the base's ``dtype``; ``EditError`` names the first cell that does not fit.

    Text in a number or boolean column is refused even when it reads as one (``"50"``):
    a string set into a number column is most likely a mistake (a value copied with its
    quotes, a column of the wrong frame), and the plan would send what the analyst did
    not type; so is a boolean in a number column. Text in a date-and-time column is read
    as pandas reads it when setting one (``"2026-01-01"``); text that is no date is
    refused. (The edited-CSV reader, whose cells are all text, accepts spreadsheet
    spellings: see ``reports.read_edited_frames``.)"""
    if column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
        _refuse_wrong_kind(kind, name, column, dtype)  # text, booleans, lists: by name
    if isinstance(dtype, pd.CategoricalDtype):
        unfit = column.notna() & ~column.isin(dtype.categories)
    else:
        try:
            unfit = column.notna() & column.astype(dtype).isna()
        except (TypeError, ValueError):  # some cell does not convert: find it
            unfit = column.map(lambda value: not _fits(value, dtype)).astype(bool)
    if unfit.any():
        at = int(unfit.to_numpy().argmax())
        raise _unfit(kind, name, column, at, dtype)
    try:
        return column.astype(dtype)
    except (TypeError, ValueError) as exc:  # each cell fits alone, not all together
        raise EditError(
            f"{kind}: column {name!r} (the edited column is {column.dtype}) does not convert"
            f" to the column's dtype {dtype}: {exc}"
        ) from None


def _unfit(kind: str, name: str, column: pd.Series[Any], at: int, dtype: Any) -> EditError:
    return EditError(
        f"{row_label(kind, column.index[at], name)}: {column.iloc[at]!r} does not fit the"
        f" column's dtype {dtype} (the edited column is {column.dtype})"
    )


_CONTAINERS = (list, tuple, dict, set, frozenset, np.ndarray, pd.Series, pd.DataFrame)


def _refuse_wrong_kind(kind: str, name: str, column: pd.Series[Any], dtype: Any) -> None:
    """Refuse the first cell holding a container (a list, a dict...) in any column, and
    the first text (or boolean) cell of a number or boolean column, by name."""
    boolean = pd.api.types.is_bool_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype)
    number = pd.api.types.is_numeric_dtype(dtype) and not boolean
    for at, value in enumerate(column.tolist()):
        if isinstance(value, _CONTAINERS):
            problem = f"is a {type(value).__name__}, not one value"
        elif isinstance(value, str) and (number or boolean):
            holds = "numbers" if number else "booleans (True or False)"
            problem = f"is text, and the column holds {holds} ({dtype})"
            if number and pd.notna(pd.to_numeric(value, errors="coerce")):
                problem += f": set the number {value.strip()}, not its text"
        elif number and isinstance(value, bool | np.bool_):
            problem = f"is a boolean, and the column holds numbers ({dtype})"
        else:
            continue
        raise EditError(f"{row_label(kind, column.index[at], name)}: {value!r} {problem}")


def _fits(value: Any, dtype: Any) -> bool:
    if pd.isna(value):
        return True
    try:
        return bool(pd.Series([value]).astype(dtype).notna().all())
    except (TypeError, ValueError):
        return False


def check_keys(kind: str, kept: pd.DataFrame, rows: KeyAlignment) -> None:
    """Refuse a repeated key, and an ``id`` the base does not hold, among the ``kept`` rows
    (those with a key; ``rows`` lines them up with the base: the diff's own key index)."""
    key = list(KEYS[kind])
    repeated = rows.repeated_after
    if repeated.any():
        if len(key) > 1:  # a key with a blank part is not refused as a repeat
            repeated = repeated & kept[key].notna().all(axis=1).to_numpy()
        for at in np.flatnonzero(repeated)[:1]:
            values = "/".join(str(v) for v in kept.iloc[at][key])
            raise EditError(
                f"{row_label(kind, kept.index[at], '/'.join(key))}: the key {values} repeats a row"
            )
    if key == ["id"]:  # a kept row has an id: it must be the base's
        for at in np.flatnonzero(rows.at_before < 0)[:1]:
            raise EditError(
                f"{row_label(kind, kept.index[at], 'id')}: {kept['id'].iloc[at]} is not in the base"
                " snapshot; leave id empty in a new row (the service assigns it)"
            )
