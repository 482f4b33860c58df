"""Reading a benefit import CSV: every row checked, the valid bodies and one error per row."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..models import BenefitCreate
from .benefit_rows import FLAT_COLUMNS, CheckedBenefit, check_benefit_rows, frame_rows

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
    """The CSV as text columns; ``ValueError`` for a missing or unknown column."""
    if isinstance(source, bytes | bytearray | memoryview):
        source = io.BytesIO(bytes(source))
    elif isinstance(source, str) and "\n" in source:
        source = io.StringIO(source)
    frame = pd.read_csv(source, dtype=str, keep_default_na=False, skipinitialspace=False)
    unknown = [c for c in frame.columns if c not in FLAT_COLUMNS]
    missing = [c for c in _REQUIRED_COLUMNS if c not in frame.columns]
    if unknown or missing:
        problems = []
        if missing:
            problems.append(f"missing column(s) {', '.join(missing)}")
        if unknown:
            problems.append(f"unknown column(s) {', '.join(unknown)}")
        raise ValueError(
            f"benefit CSV: {'; '.join(problems)}; expected columns: {', '.join(FLAT_COLUMNS)}"
        )
    return frame


def benefits_from_csv(source: str | os.PathLike[str] | bytes | io.IOBase) -> BenefitImport:
    """Read a benefit import CSV (a path, its text, its bytes or an open file).

    Rows are numbered from 1 for the first data line. A missing or unknown
    column is a ``ValueError`` for the whole file (a typo would silently drop data).
    """
    if isinstance(source, Path):
        source = str(source)
    checked = check_benefit_rows(frame_rows(read_benefits_csv(source)))
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
