"""Reading a snapshot's frames for the economics: the columns needed, checked once."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["columns", "lookup", "names_of"]


def columns(frame: pd.DataFrame, kind: str, names: list[str]) -> pd.DataFrame:
    """``frame[names]``; a frame without one of them (a snapshot written by an older
    version) raises ``ValueError`` naming the kind and the columns."""
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise ValueError(
            f"the snapshot's {kind} frame lacks columns {missing}: it was written by an older "
            "lyt_toolkit; pull the program again"
        )
    return frame.loc[:, names]


def names_of(card_definitions: pd.DataFrame) -> pd.Series:
    """Card definition ID -> name (the first row of a repeated ID)."""
    defs = columns(card_definitions, "card_definitions", ["id", "name"])
    first = ~defs["id"].duplicated().to_numpy()  # a mask: cheaper than drop_duplicates
    index = pd.Index(defs["id"].array[first], name="id")
    return pd.Series(defs["name"].array[first], index=index, name="name")


def lookup(keys: pd.Series, table: pd.Series, dtype: Any = "string") -> pd.Series:
    """``keys.map(table)`` as ``dtype``, each distinct key looked up once (NA: not found).

    Keys repeat (a card definition ID on 50,000 cost rows): factorising first hashes each
    row once and maps only the distinct keys.
    """
    codes, distinct = pd.factorize(keys, use_na_sentinel=True)
    found = pd.Series(distinct).map(table).astype(dtype).array
    return pd.Series(found.take(codes, allow_fill=True), index=keys.index, dtype=dtype)
