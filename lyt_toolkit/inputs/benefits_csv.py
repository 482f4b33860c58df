"""Reading a benefit import CSV: every row checked, the valid bodies and one error per row."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..models import BenefitCreate
from .benefit_rows import FLAT_COLUMNS, CheckedBenefit, check_benefit_rows, frame_rows
from .csv_file import InputFileError, read_csv_table

__all__ = ["BenefitImport", "benefits_from_csv", "read_benefits_csv"]

_REQUIRED_COLUMNS = ("name", "type")


@dataclass
class BenefitImport:
    """Rows read from a CSV: the valid bodies, and one error per invalid row.

    Unpacks as ``rows, errors = benefits_from_csv(path)``; ``checked`` keeps
    every row, the invalid ones too, so a plan made from the import
    (``actions.create_benefits(imported)``) previews them next to the valid ones.
    """

    rows: list[BenefitCreate]
    errors: pd.DataFrame
    checked: list[CheckedBenefit]

    def __iter__(self) -> Iterator[Any]:
        yield self.rows
        yield self.errors


def read_benefits_csv(source: Any) -> pd.DataFrame:
    """The CSV as text columns, indexed by row number (1: the first row below the header).

    ``InputFileError`` (a ``ValueError``) names the file for a missing or unknown
    column, an encoding other than UTF-8, an empty file, an unclosed quote or
    another delimiter than the comma. Blank rows are left out.
    """
    table = read_csv_table(source)
    unknown = [c for c in table.header if c not in FLAT_COLUMNS]
    missing = [c for c in _REQUIRED_COLUMNS if c not in table.header]
    if unknown or missing:
        problems = []
        if missing:
            problems.append(f"missing column(s) {', '.join(missing)}")
        if unknown:
            problems.append(f"unknown column(s) {', '.join(unknown)}")
        raise InputFileError(
            f"{table.label}: {'; '.join(problems)}; expected columns: {', '.join(FLAT_COLUMNS)}"
        )
    index = pd.Index([n for n, _ in table.rows], dtype="int64", name="row")
    return pd.DataFrame(
        [cells for _, cells in table.rows], columns=table.header, index=index, dtype="str"
    )


def benefits_from_csv(source: str | os.PathLike[str] | bytes | io.IOBase) -> BenefitImport:
    """Read a benefit import CSV (a path, its text, its bytes or an open file).

    Rows are numbered from 1 for the first line below the header. A missing or
    unknown column, or a file that cannot be read as UTF-8 CSV, is an
    ``InputFileError`` (a ``ValueError``) for the whole file (a typo would
    silently drop data); a bad cell is an error of its row naming the column.
    """
    frame = read_benefits_csv(source)
    numbered = zip(frame.index, frame_rows(frame), strict=True)
    checked = check_benefit_rows((int(number), row) for number, (_, row) in numbered)
    valid = [c.body for c in checked if c.error is None and c.body is not None]
    errors = pd.DataFrame(
        [
            {"row": c.row, "name": c.name, "field": c.field, "error": c.error}
            for c in checked
            if c.error is not None
        ],
        columns=["row", "name", "field", "error"],
    )
    errors["row"] = errors["row"].astype("Int64")
    for column in ("name", "field", "error"):
        errors[column] = errors[column].astype("string")
    return BenefitImport(valid, errors, checked)
