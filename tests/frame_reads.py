"""A frame's cells, labelled rows and records as the tests read them, typed as values.

pandas-stubs type ``frame.loc[label, column]`` as a union of every scalar pandas knows
(which ``pd.isna``, ``int`` and the client's methods do not accept), ``frame.loc[label]``
as ``Series | DataFrame`` and ``itertuples()``' fields as that union again; the tests read
the values the frames hold.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd


def cell(frame: pd.DataFrame, label: str | int, column: str) -> Any:
    """``frame.loc[label, column]``."""
    value: Any = frame.loc[label, column]
    return value


def row_of(frame: pd.DataFrame, label: str | int) -> Any:
    """``frame.loc[label]``: the row labelled ``label``, its fields read as attributes."""
    found: Any = frame.loc[label]
    return found


def records(frame: pd.DataFrame) -> Iterator[Any]:
    """``frame.itertuples()``: each row a named tuple of its index and columns."""
    yield from frame.itertuples()
