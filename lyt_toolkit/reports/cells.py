"""Text cells safe in spreadsheets: a leading ``'`` on any text a spreadsheet would run.

A spreadsheet reads a cell beginning with ``=``, ``+``, ``-`` or ``@`` (and,
in some, a tab or a carriage return) as a formula, so a reward named
``=HYPERLINK(...)`` would run when the report is opened. Such text is written
with a ``'`` in front, which spreadsheets show as plain text; text that
already begins with ``'`` gets one more, so removing exactly one leading
``'`` on reading (``unescape``) gives every value back unchanged.
"""

from __future__ import annotations

from typing import Any

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
        return series.cat.rename_categories(escape(pd.Series(cats, dtype="str")).tolist())
    needs = series.str.match(_PATTERN, na=False)
    if not needs.any():
        return series
    out = series.copy()
    out[needs] = PREFIX + series[needs]
    return out


def unescape(series: pd.Series[Any]) -> pd.Series[Any]:
    """``series`` with one leading prefix removed from every value (``escape`` undone)."""
    if not len(series):
        return series
    marked = series.str.startswith(PREFIX, na=False)
    if not marked.any():
        return series
    out = series.copy()
    out[marked] = series[marked].str.slice(1)
    return out


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
