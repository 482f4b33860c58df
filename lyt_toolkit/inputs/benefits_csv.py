"""Reading a benefit import CSV: every row checked, the valid bodies and one error per row."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .._deprecation import deprecated_attribute, deprecation
from .._json_file import shown_names
from ..models import BenefitCreate
from .benefit_rows import FLAT_COLUMNS, CheckedBenefit, check_benefit_rows, frame_rows
from .csv_file import InputFileError, read_csv_table

__all__ = ["BenefitImport", "ValidBenefits", "benefits_from_csv", "read_benefits_csv"]

_REQUIRED_COLUMNS = ("name", "type")

_PLANS: list[Callable[[BenefitImport], Any]] = []


def use_plans(create: Callable[[BenefitImport], Any]) -> None:
    """Make ``create`` (``actions.create_benefits``) what the deprecated
    ``BenefitImport.plan`` returns (the actions package calls this; inputs is below it)."""
    _PLANS[:] = [create]


def _plan(imported: BenefitImport) -> Any:
    if not _PLANS:
        raise AttributeError(
            "BenefitImport.plan needs lyt_toolkit.actions imported: "
            "use actions.create_benefits(imported)"
        )
    return _PLANS[0](imported)


class ValidBenefits(list[BenefitCreate]):
    """The bodies of an import's valid rows, each still knowing its row of the file.

    A plain list of bodies, plus ``checked``: those rows as checked, with their
    numbers, so ``actions.create_benefits(rows)`` previews and reports them under
    the file's row numbers, not renumbered 1, 2, ... (while the list is ``intact``).
    """

    def __init__(self, checked: list[CheckedBenefit]) -> None:
        self.checked = [c for c in checked if c.error is None and c.body is not None]
        super().__init__(c.body for c in self.checked if c.body is not None)

    def intact(self) -> bool:
        """Whether the list still holds exactly the bodies ``checked`` numbers."""
        return len(self) == len(self.checked) and all(
            body is c.body for body, c in zip(self, self.checked, strict=True)
        )


@dataclass
class BenefitImport:
    """Rows read from a CSV: the valid bodies, and one error per invalid row.

    Unpacks as ``rows, errors = benefits_from_csv(path)``; ``checked`` keeps
    every row, the invalid ones too, so a plan made from the import
    (``actions.create_benefits(imported)``) previews them next to the valid ones.
    Rows keep the file's numbers everywhere: in ``errors``, and in the preview and
    results of a plan made from the import or from ``rows`` alone.
    """

    rows: ValidBenefits
    errors: pd.DataFrame
    checked: list[CheckedBenefit]

    plan = deprecated_attribute(deprecation("lyt_toolkit.actions.BenefitImport.plan"), _plan)
    """Deprecated since 0.4.0, removed in 0.5.0: ``actions.create_benefits(imported)``, the
    plan (a ``CreateBenefits``) this attribute held up to 0.1.0, made anew on each read."""

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
            problems.append(f"unknown column(s) {shown_names(unknown)}")
        raise InputFileError(
            f"{table.label}: {'; '.join(problems)}; expected columns: {', '.join(FLAT_COLUMNS)}"
        )
    index = pd.Index([n for n, _ in table.rows], dtype="int64", name="row")
    return pd.DataFrame(
        [cells for _, cells in table.rows], columns=table.header, index=index, dtype="str"
    )


def benefits_from_csv(source: str | os.PathLike[str] | bytes | io.IOBase) -> BenefitImport:
    """Read a benefit import CSV (a path, its text, its bytes or an open file).

    Rows are numbered from 1 for the first line below the header (blank lines
    count), in the errors and in any plan made from the result. A missing or
    unknown column, or a file that cannot be read as UTF-8 CSV, is an
    ``InputFileError`` (a ``ValueError``) for the whole file (a typo would
    silently drop data); a bad cell is an error of its row naming the column.
    """
    checked = check_benefit_rows(frame_rows(read_benefits_csv(source)))
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
    return BenefitImport(ValidBenefits(checked), errors, checked)
