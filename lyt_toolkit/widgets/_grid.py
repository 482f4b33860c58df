"""Tables you can act on: DataFrames in an itables grid (sort, search, row selection).

``selected_rows`` of the grid are positions in the frame it shows, so a widget
reads its selection with :func:`selected` and turns those rows into a plan.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from itables.widget import ITable

__all__ = ["clear", "grid", "selected", "show"]

_LEFT = [{"className": "dt-left", "targets": "_all"}]
"""Headers and cells aligned alike (left), whatever the column's type."""


def grid(columns: Sequence[str], *, select: bool = False) -> ITable:
    """An empty grid with ``columns``; with ``select`` its rows can be selected
    (``selected_rows``).

    ``maxBytes=0``: never downsampled, so selected positions index the whole frame;
    ``nowrap``: a long cell widens its column instead of growing the row.
    """
    table = ITable(
        pd.DataFrame(columns=list(columns)),
        maxBytes=0,
        columnDefs=_LEFT,
        classes="display nowrap compact",
        select=select,
    )
    table.layout.width = "100%"
    return table


def show(table: ITable, frame: pd.DataFrame, columns: Sequence[str] | None = None) -> None:
    """Show ``frame`` (only ``columns`` that exist, when given) in ``table``; clears the
    selection. Values are shown as text, missing ones blank, nothing as HTML.

    ``table.df`` keeps that text as pandas ``string`` columns (pyarrow's where installed), not
    as Python objects: a grid holds its rows about as compactly as the frame they came from.
    """
    if columns is not None:
        frame = frame[[c for c in columns if c in frame.columns]]
    shown = frame.astype("string").fillna("").reset_index(drop=True)
    _fill(table, shown)


def clear(table: ITable) -> None:
    """Empty ``table``, keeping its columns."""
    shown = table.df
    _fill(table, shown.iloc[0:0] if shown is not None else pd.DataFrame())


def _fill(table: ITable, frame: pd.DataFrame) -> None:
    """``frame`` in ``table``, its selection cleared, with the options ``grid`` gave it:
    ``update`` keeps neither (it downsampled past 64 KB, some 1,170 rows of findings, so the
    browser showed only the first and last rows, and dropped the alignment)."""
    table.update(frame, selected_rows=[], maxBytes=0, columnDefs=_LEFT)


def selected(table: ITable, frame: pd.DataFrame | None) -> pd.DataFrame:
    """The rows of ``frame`` (the one shown in ``table``) that are selected, in frame order."""
    if frame is None or not table.selected_rows:
        return frame.iloc[0:0] if frame is not None else pd.DataFrame()
    positions = sorted(p for p in set(table.selected_rows) if 0 <= p < len(frame))
    return frame.iloc[positions]
