"""A value an input file gives, quoted in its ``InputFileError`` (a prices file, a benefit
import CSV): cut short, and a bearer token in it (another project's, pasted into the file)
masked whole, through the Python API as through ``lyt``."""

from __future__ import annotations

from pathlib import Path

import pytest

from lyt_toolkit.inputs import InputFileError, benefits_from_csv
from lyt_toolkit.inputs.prices import read_prices

FOREIGN = "eyJhbGciOiJIUzI1NiJ9.pasted-into-an-input-file.0123456789abcdef"
"""A bearer token no one configured here: masked whole wherever it is quoted."""
BEARER = f"Bearer {FOREIGN}"
LONG = "x" * 5000
NEGATIVE = "-0." + "1" * 5000
"""A negative number of 5,000 digits: read as a number, refused as one below 0."""
QUOTED = 400
"""At most this much of a message follows the file's name (the import's expected columns
take 200)."""

PRICES = {
    "a token priced again": (f"{BEARER},1\n{BEARER},2\n", "row 2, column id: 'Bearer ***' is"),
    "a long id priced again": (f"{LONG},1\n{LONG},2\n", "row 2, column id: 'xxx"),
    "a long negative value": (f"prod_mug,{NEGATIVE}\n", "must not be negative, got '-0.111"),
    "a token for a value": (f"prod_mug,{BEARER}\n", "column value: 'Bearer ***' is not a number"),
}


def _said(error: InputFileError, path: Path) -> str:
    """The message after the file's name, checked to be short and to show no token."""
    message = str(error)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    said = message.removeprefix(f"{path}: ")
    assert len(said) <= QUOTED and FOREIGN[:8] not in said, said
    return said


@pytest.mark.parametrize("case", PRICES)
def test_a_prices_file_s_value_is_quoted_short_and_a_token_in_it_masked(
    tmp_path: Path, case: str
) -> None:
    rows, quoted = PRICES[case]
    path = tmp_path / "prices.csv"
    path.write_text(f"id,value\n{rows}", encoding="utf-8")
    with pytest.raises(InputFileError) as caught:
        read_prices(path)
    assert quoted in _said(caught.value, path)


IMPORTS = {
    "a token for a column": (f"name,type,{BEARER}\n", "unknown column(s) 'Bearer ***'"),
    "a long column": (f"name,type,{LONG}\n", "unknown column(s) 'xxx"),
    "a token column twice": (f"name,type,{BEARER},{BEARER}\n", "column(s) 'Bearer ***' appear"),
    "a long column twice": (f"name,type,{LONG},{LONG}\n", "column(s) 'xxx"),
    "many columns": (
        "name,type," + ",".join(f"extra_{n}" for n in range(100)) + "\n",
        "unknown column(s) 'extra_0', 'extra_1', 'extra_2', 'extra_3', 'extra_4' and 95 more",
    ),
}


@pytest.mark.parametrize("case", IMPORTS)
def test_a_benefit_import_s_column_is_quoted_short_and_a_token_in_it_masked(
    tmp_path: Path, case: str
) -> None:
    header, quoted = IMPORTS[case]
    path = tmp_path / "benefits.csv"
    path.write_text(header + "B1,POINTS\n", encoding="utf-8")
    with pytest.raises(InputFileError) as caught:
        benefits_from_csv(path)
    assert quoted in _said(caught.value, path)
