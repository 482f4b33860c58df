"""A prices file: the value of what a reward gives, where the program's data has none.

A CSV with a header ``id,value``: ``id`` is a product, SKU or campaign ID a reward
points at, ``value`` what it is worth in the service's minor units (e.g. cents).
Economics uses it to value material and coupon rewards (``burn_values(prices=...)``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._json_file import shown
from ..frames.parse import parse_number
from .csv_file import InputFileError, read_csv_table

__all__ = ["PRICE_COLUMNS", "read_prices"]

PRICE_COLUMNS = ("id", "value")


def read_prices(source: Any) -> pd.DataFrame:
    """The prices of a CSV source (path, text, bytes or open file) as ``id`` (string) and
    ``value`` (Float64, minor units); ``InputFileError`` names the file, row and column."""
    table = read_csv_table(source)
    missing = [c for c in PRICE_COLUMNS if c not in table.header]
    if missing:
        raise InputFileError(
            f"{table.label}: missing column(s) {', '.join(missing)}; a prices file has "
            f"the header {','.join(PRICE_COLUMNS)}"
        )
    at = {c: table.header.index(c) for c in PRICE_COLUMNS}
    ids: list[str] = []
    values: list[float] = []
    seen: dict[str, int] = {}
    for number, cells in table.rows:
        ident, text = cells[at["id"]].strip(), cells[at["value"]].strip()
        if not ident:
            raise InputFileError(f"{table.label}: row {number}, column id: is empty")
        if ident in seen:
            raise InputFileError(
                f"{table.label}: row {number}, column id: {shown(ident)} is priced again "
                f"(first in row {seen[ident]})"
            )
        try:
            value = parse_number(text)
        except ValueError as exc:
            raise InputFileError(f"{table.label}: row {number}, column value: {exc}") from None
        if value < 0:
            raise InputFileError(
                f"{table.label}: row {number}, column value: must not be negative,"
                f" got {shown(text)}"
            )
        seen[ident] = number
        ids.append(ident)
        values.append(float(value))
    return pd.DataFrame(
        {"id": pd.array(ids, dtype="string"), "value": pd.array(values, dtype="Float64")}
    )
