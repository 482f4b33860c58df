"""Reading bulk input files (CSV) into checked rows; each error names its row and column.

Nothing here talks to the service: a row is checked with the models' own
rules, so an invalid one is reported before any plan is made from it.
"""

from .benefit_rows import (
    FLAT_COLUMNS,
    CheckedBenefit,
    check_benefit_rows,
    column_for,
    flat_row_to_body,
    frame_rows,
)
from .benefits_csv import BenefitImport, ValidBenefits, benefits_from_csv, read_benefits_csv
from .csv_file import InputFileError

__all__ = [
    "FLAT_COLUMNS",
    "BenefitImport",
    "CheckedBenefit",
    "InputFileError",
    "ValidBenefits",
    "benefits_from_csv",
    "check_benefit_rows",
    "column_for",
    "flat_row_to_body",
    "frame_rows",
    "read_benefits_csv",
]
