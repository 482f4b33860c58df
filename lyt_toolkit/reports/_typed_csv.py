"""A snapshot CSV's bytes parsed with the manifest's dtypes; a value pandas cannot give its
column's dtype is found (column, row) and refused in our own words.

pandas' message for such a value quotes it (``Unable to parse string '...'``), and a file
handed over may hold anything, a token included: the refusal names the column, the row
(1 for the first line below the header) and the kind of value the column holds, never the
value. The value is found by the rules pandas read the file by: each typed column read
again alone, and the refused one halved until one row is left.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = ["VALUE_KINDS", "parse_csv", "refused_value"]

VALUE_KINDS = {"Int64": "a whole number", "Float64": "a number", "boolean": "True or False"}
"""The dtypes pandas converts a CSV cell to (others are read as text), by what they hold."""


def parse_csv(raw: bytes, dtypes: Mapping[str, Any]) -> pd.DataFrame:
    """``raw`` as a snapshot CSV: ``dtypes`` by column, empty fields missing."""
    return pd.read_csv(io.BytesIO(raw), dtype=dict(dtypes), keep_default_na=False, na_values=[""])


def refused_value(raw: bytes, dtypes: Mapping[str, Any]) -> tuple[str, int, str] | None:
    """The first column of ``VALUE_KINDS`` whose values pandas cannot all give its dtype, the
    row of the first such value and the kind the column holds; None when none is found."""
    try:
        text = parse_csv(raw, dict.fromkeys(dtypes, "str"))
    except (ValueError, TypeError, OverflowError):
        return None
    for name, kind in dtypes.items():
        if kind in VALUE_KINDS and name in text and not _converts(text[name], kind):
            return name, _first_refused(text[name], kind), VALUE_KINDS[kind]
    return None


def _first_refused(values: pd.Series, kind: str) -> int:
    """The row (from 1) of the first of ``values`` that does not convert to ``kind``."""
    start, end = 0, len(values)  # the first refused value is in values[start:end]
    while end - start > 1:
        middle = (start + end) // 2
        if _converts(values.iloc[start:middle], kind):
            start = middle
        else:
            end = middle
    return start + 1


def _converts(values: pd.Series, kind: str) -> bool:
    """Whether pandas reads ``values``, written as a one-column CSV, as ``kind``."""
    written = values.rename("value").to_csv(index=False, lineterminator="\n")
    try:
        parse_csv(written.encode(), {"value": kind})
    except (ValueError, TypeError, OverflowError):
        return False
    return True
