"""Reading a snapshot's frames for the economics: the columns needed, checked once."""

from __future__ import annotations

import pandas as pd

__all__ = ["columns", "names_of"]


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
    """Card definition ID -> name."""
    defs = columns(card_definitions, "card_definitions", ["id", "name"])
    return defs.drop_duplicates("id").set_index("id")["name"]
