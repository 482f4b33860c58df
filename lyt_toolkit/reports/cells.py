"""Text cells safe in spreadsheets: a leading ``'`` on any text a spreadsheet would run.

A spreadsheet reads a cell beginning with ``=``, ``+``, ``-`` or ``@`` (and,
in some, a tab or a carriage return) as a formula, so a reward named
``=HYPERLINK(...)`` would run when the report is opened. Such text is written
with a ``'`` in front, which spreadsheets show as plain text; text that
already begins with ``'`` gets one more, so removing exactly one leading
``'`` on reading (``unescape``) gives every value back unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ESCAPING", "PREFIX", "TRIGGERS", "escape", "escape_frame", "unescape"]

PREFIX = "'"
"""What is put in front of a text cell a spreadsheet would otherwise run."""

TRIGGERS = ("=", "+", "-", "@", "\t", "\r", PREFIX)
"""First characters that get the prefix (the prefix itself, so the round trip is exact)."""

_PATTERN = "[" + "".join("\\" + c if c in "-\\]^" else c for c in TRIGGERS) + "]"

ESCAPING: dict[str, Any] = {
    "prefix": PREFIX,
    "first_characters": list(TRIGGERS),
    "columns": "text and category",
    "restore": "remove one leading prefix from every text and category cell",
}
"""The manifest's ``text_escaping`` entry: what was done, so a reader can undo it."""


def _text_like(series: pd.Series[Any]) -> bool:
    """Text or category: what a spreadsheet could read as a formula."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return True
    return pd.api.types.is_string_dtype(series.dtype) and (
        series.dtype != object or pd.api.types.infer_dtype(series, skipna=True) == "string"
    )


def escape(series: pd.Series[Any]) -> pd.Series[Any]:
    """``series`` with the prefix in front of every value beginning with a trigger."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = series.cat.categories
        if not len(cats):
            return series
        names = pd.Series(cats, dtype="str")
        escaped = escape(names)
        if escaped is names and pd.api.types.is_string_dtype(cats):  # text needing none
            return series
        return series.cat.rename_categories(escaped.tolist())
    return _rewritten(series, _starting(series, TRIGGERS, _PATTERN), lambda v: PREFIX + v)


def unescape(series: pd.Series[Any]) -> pd.Series[Any]:
    """``series`` with one leading prefix removed from every value (``escape`` undone)."""
    return _rewritten(series, _starting(series, (PREFIX,), PREFIX), lambda v: v[1:])


SMALL = 1_000
"""Rows up to which a column's first characters are read in Python: a pandas string
method's own overhead (some 0.2 ms a call) costs more than the loop below it."""


def _starting(series: pd.Series[Any], first: tuple[str, ...], pattern: str) -> Any:
    """Where a text value of ``series`` begins with one of ``first`` (``pattern``: their
    regular expression), as a numpy bool array; a missing value never does."""
    if len(series) > SMALL:  # one prefix: a plain comparison, not a regular expression
        if len(first) == 1:
            return series.str.startswith(first[0], na=False).to_numpy(dtype=bool)
        return series.str.match(pattern, na=False).to_numpy(dtype=bool)
    return np.fromiter(
        (isinstance(v, str) and v[:1] in first for v in series),
        dtype=bool,
        count=len(series),
    )


def _rewritten(series: pd.Series[Any], where: Any, rewrite: Callable[[str], str]) -> pd.Series[Any]:
    """``series`` (itself when ``where`` marks nothing) with each value ``where`` marks
    rewritten; its dtype, index and name kept."""
    if not where.any():
        return series
    values = series.to_numpy(dtype=object, copy=True)
    values[where] = [rewrite(v) for v in values[where]]
    return pd.Series(values, index=series.index, dtype=series.dtype, name=series.name)


def escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its text and category columns escaped (itself when none needs it)."""
    if not len(frame):  # no cell to escape: its file is its header alone
        return frame
    changed: dict[Any, pd.Series[Any]] = {}
    for name in frame.columns:
        column = frame[name]
        if _text_like(column):
            escaped = escape(column)
            if escaped is not column:
                changed[name] = escaped
    if not changed:
        return frame
    out = frame.copy()
    for name, escaped in changed.items():
        out[name] = escaped
    return out
