"""CSV text handed over as text (a string, a file opened in text mode) holding a lone surrogate
(``"\\ud800"``: no UTF-8 form, so no request can carry it) is refused as an
``InputFileError`` naming the row and column, before anything else reads it; it used to
escape as a bare ``UnicodeEncodeError``."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest

from lyt_toolkit.inputs import InputFileError, benefits_from_csv
from lyt_toolkit.inputs.prices import read_prices

NOT_TEXT = "holds a lone surrogate, not UTF-8 text"
BENEFITS = "name,type,points_value,status\n\nMug,POINTS,10,ACT\ud800IVE\n"


@pytest.mark.parametrize(
    ("read", "source", "expected"),
    [
        (benefits_from_csv, BENEFITS, f"the CSV text: row 2, column 'status': {NOT_TEXT}"),
        (
            benefits_from_csv,
            io.StringIO(BENEFITS),
            f"the CSV file: row 2, column 'status': {NOT_TEXT}",
        ),
        (
            benefits_from_csv,
            "name,ty\ud800pe\nMug,POINTS\n",
            f"the CSV text: the header, column 2: {NOT_TEXT}",
        ),
        (read_prices, "id,value\nprod_\ud800,5\n", f"the CSV text: row 1, column 'id': {NOT_TEXT}"),
    ],
    ids=["benefits-text", "benefits-file", "header", "prices"],
)
def test_csv_text_holding_a_lone_surrogate_is_refused_naming_row_and_column(
    read: Callable[[Any], Any], source: Any, expected: str
) -> None:
    with pytest.raises(InputFileError) as refused:
        read(source)
    assert str(refused.value) == expected
