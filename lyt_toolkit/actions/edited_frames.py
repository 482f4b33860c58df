"""Reading the edited frames of a desired state: each conformed to its base frame's columns
and dtypes, its new rows (no key) told apart, its keys checked on the key index the diff
lines the rows up with. Every refusal is one ``EditError`` line naming frame, row and
column; a value, a name or an ID it quotes from the edited frame (an edited file) is
cut short, a bearer token in it masked (``_json_file.shown``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._json_file import shown, shown_names
from ..errors import LytError
from ..frames.parse import ValueRefused, typed_column
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
        raise EditError(f"after: unknown frames {shown_names(unknown)}; known: {list(FRAME_NAMES)}")
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
            raise EditError(f"{kind}: column {shown(name)} is not a column of {kind}")
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
    """``column`` in the base's ``dtype``, each cell read by ``frames.parse.typed_column``
    (text as typed in the grid or an edited CSV, or a value set in pandas: one set of
    rules); ``EditError`` names the first cell it refuses, with the parser's message."""
    try:
        return typed_column(column, dtype)
    except ValueRefused as exc:
        raise EditError(f"{row_label(kind, exc.label, name)}: {exc}") from None


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
                f"{row_label(kind, kept.index[at], '/'.join(key))}: the key {shown(values)}"
                " repeats a row"
            )
    if key == ["id"]:  # a kept row has an id: it must be the base's
        for at in np.flatnonzero(rows.at_before < 0)[:1]:
            raise EditError(
                f"{row_label(kind, kept.index[at], 'id')}: {shown(str(kept['id'].iloc[at]))} is"
                " not in the base snapshot; leave id empty in a new row (the service assigns it)"
            )
