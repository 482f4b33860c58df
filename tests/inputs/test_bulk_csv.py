"""The bulk benefit CSV: exact numbers, encodings, malformed files, all in one clear line."""

from __future__ import annotations

import codecs
from enum import StrEnum
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lyt_toolkit.errors import LytError
from lyt_toolkit.frames.parse import ValueRefused, typed_value
from lyt_toolkit.inputs import InputFileError, benefits_from_csv, read_benefits_csv
from lyt_toolkit.models.enums import BenefitCreateStatus, BenefitType, DigitalBenefitType

CARD = "lcdef_c0ffee0001"
HEADER = "name,type,status,card_definition_id,points_value"


def points_csv(*values: str) -> str:
    """A POINTS benefit CSV, one row per ``points_value``."""
    rows = [f"B{i},POINTS,DRAFT,{CARD},{v}" for i, v in enumerate(values, start=1)]
    return "\n".join([HEADER, *rows]) + "\n"


def only_error(text: str) -> tuple[int, str, str]:
    """The single row error of ``text``: row, field and message."""
    imported = benefits_from_csv(text)
    assert len(imported.errors) == 1, imported.errors
    error = imported.errors.iloc[0]
    return int(error["row"]), str(error["field"]), str(error["error"])


def test_a_large_integer_is_parsed_exactly() -> None:
    imported = benefits_from_csv(points_csv("9007199254740993"))
    assert imported.rows[0].points is not None
    assert imported.rows[0].points.value == 9007199254740993


def test_the_largest_64_bit_integer_is_accepted() -> None:
    imported = benefits_from_csv(points_csv(str(2**63 - 1)))
    assert imported.rows[0].points is not None
    assert imported.rows[0].points.value == 2**63 - 1


@pytest.mark.parametrize("value", [str(2**63), "99999999999999999999999999999"])
def test_an_integer_beyond_64_bits_is_refused(value: str) -> None:
    row, field, error = only_error(points_csv(value))
    assert (row, field) == (1, "points_value")
    assert "64-bit" in error


@pytest.mark.parametrize("value", ["1e30", "1E3", "2.5e2"])
def test_scientific_notation_is_refused_naming_the_column(value: str) -> None:
    _, field, error = only_error(points_csv(value))
    assert field == "points_value"
    assert "scientific notation" in error


def test_digit_group_separators_are_refused_naming_the_column() -> None:
    _, field, error = only_error(points_csv("1_000"))
    assert field == "points_value"
    assert error == "points_value: '1_000' has digit group separators: write 1000"


@pytest.mark.parametrize(
    ("text", "value"), [("\u0661\u0662\u0663", 123), ("\uff11\uff12", 12), (" 7.0 ", 7)]
)
def test_any_decimal_digits_are_read_as_the_number_they_are(text: str, value: int) -> None:
    imported = benefits_from_csv(points_csv(text))  # Arabic-Indic 123, full-width 12
    assert imported.rows[0].points is not None
    assert imported.rows[0].points.value == value


@pytest.mark.parametrize(
    "text", ["5.5", "1 000", "1e3", "9223372036854775808", "lots", "nan", "\u00b2"]
)
def test_a_refused_number_has_the_message_of_every_typed_value(text: str) -> None:
    """The grid, an edited export and edited frames refuse the same text the same way."""
    _, field, error = only_error(points_csv(text))
    with pytest.raises(ValueRefused) as refused:
        typed_value(text, "Int64")
    assert (field, error) == ("points_value", f"points_value: {refused.value}")


@pytest.mark.parametrize("value", ["inf", "-Infinity", "nan", "NaN"])
def test_non_finite_numbers_are_refused_naming_the_column(value: str) -> None:
    _, field, error = only_error(points_csv(value))
    assert field == "points_value"
    assert "finite" in error


def test_a_non_finite_balance_is_refused_naming_the_column() -> None:
    text = (
        "name,type,campaign_id,digital_type,balance\n"
        "G,DIGITAL,camp_NwGiftCards01,GIFT_VOUCHERS,inf\n"
    )
    _, field, error = only_error(text)
    assert field == "balance"
    assert "finite" in error


def test_a_decimal_balance_is_kept() -> None:
    text = (
        "name,type,campaign_id,digital_type,balance\n"
        "G,DIGITAL,camp_NwGiftCards01,GIFT_VOUCHERS,12.5\n"
    )
    imported = benefits_from_csv(text)
    assert imported.checked[0].body is not None
    digital = imported.checked[0].body.digital
    assert digital is not None and digital.gift_vouchers is not None
    assert digital.gift_vouchers.balance == 12.5


@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_any_64_bit_integer_is_read_exactly(value: int) -> None:
    imported = benefits_from_csv(points_csv(str(value)))
    assert imported.rows[0].points is not None
    assert imported.rows[0].points.value == value


def test_a_trailing_comma_on_every_row_shifts_no_column() -> None:
    text = "".join(line + ",\n" for line in points_csv("7").splitlines())
    imported = benefits_from_csv(text)
    assert imported.rows[0].points is not None
    assert imported.rows[0].points.value == 7
    assert imported.rows[0].name == "B1"


def test_a_trailing_comma_on_data_rows_only_shifts_no_column() -> None:
    header, row = points_csv("7").splitlines()
    imported = benefits_from_csv(f"{header}\n{row},\n")
    assert imported.rows[0].name == "B1"


def test_extra_values_in_a_row_are_refused_naming_the_row() -> None:
    header, row = points_csv("7").splitlines()
    with pytest.raises(InputFileError, match="row 1 has 6 values"):
        read_benefits_csv(f"{header}\n{row},surplus\n")


def test_utf8_with_a_bom_is_accepted() -> None:
    data = codecs.BOM_UTF8 + points_csv("5").encode("utf-8")
    assert benefits_from_csv(data).rows[0].name == "B1"


def test_utf8_text_with_a_bom_character_is_accepted() -> None:
    assert benefits_from_csv("\ufeff" + points_csv("5")).rows[0].name == "B1"


def test_utf16_is_refused_in_one_line_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "benefits.csv"
    path.write_bytes(points_csv("5").encode("utf-16"))
    with pytest.raises(InputFileError) as caught:
        benefits_from_csv(path)
    assert str(path) in str(caught.value)
    assert "UTF-16" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_utf16_without_a_bom_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "benefits.csv"
    path.write_bytes(points_csv("5").encode("utf-16-le"))
    with pytest.raises(InputFileError, match="save it as UTF-8"):
        benefits_from_csv(path)


def test_latin1_bytes_are_refused_in_one_line_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "caf\u00e9.csv"
    path.write_bytes(points_csv("5").replace("B1", "Caf\u00e9").encode("latin-1"))
    with pytest.raises(InputFileError) as caught:
        benefits_from_csv(path)
    assert str(path) in str(caught.value)
    assert "not UTF-8" in str(caught.value)


@pytest.mark.parametrize("content", [b"", b"\n\n", b"  \r\n"])
def test_an_empty_file_gets_one_clear_message(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    with pytest.raises(InputFileError, match=r"empty\.csv: the file is empty"):
        benefits_from_csv(path)


def test_an_unclosed_quote_gets_one_clear_message_naming_the_row() -> None:
    text = points_csv("5", "6").replace("B2", '"B2')
    with pytest.raises(InputFileError, match="row 2: a quoted value is never closed"):
        benefits_from_csv(text)


@pytest.mark.parametrize(("sep", "name"), [(";", "';'"), ("\t", "tab")])
def test_another_delimiter_gets_one_clear_message(sep: str, name: str) -> None:
    text = points_csv("5").replace(",", sep)
    with pytest.raises(InputFileError, match=f"separated by {name}, not commas"):
        benefits_from_csv(text)


def test_a_file_error_is_a_toolkit_error_and_a_value_error() -> None:
    with pytest.raises(InputFileError) as caught:
        benefits_from_csv(b"")
    assert isinstance(caught.value, LytError)
    assert isinstance(caught.value, ValueError)


def test_a_missing_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.csv"
    with pytest.raises(InputFileError, match=r"nowhere\.csv: cannot be read"):
        benefits_from_csv(path)


def test_row_numbers_count_blank_lines_of_the_file() -> None:
    header, good, bad = points_csv("5", "x").splitlines()
    row, field, _ = only_error(f"{header}\n{good}\n\n{bad}\n")
    assert (row, field) == (3, "points_value")


def test_a_value_spanning_lines_is_one_row() -> None:
    header = "name,type,status,card_definition_id,points_value"
    text = f'{header}\n"Two\nlines",POINTS,DRAFT,{CARD},5\nB2,POINTS,DRAFT,{CARD},x\n'
    row, field, _ = only_error(text)
    assert (row, field) == (2, "points_value")


@pytest.mark.parametrize(
    ("text", "column", "choices"),
    [
        (f"{HEADER}\nA,POINTS, PAUSED ,{CARD},5\n", "status", BenefitCreateStatus),
        (f"{HEADER}\nA,points,DRAFT,{CARD},5\n", "type", BenefitType),
        ("name,type,campaign_id,digital_type\nG,DIGITAL,camp_1,gift\n", "digital_type", None),
    ],
)
def test_an_enumeration_cell_is_refused_with_the_message_of_every_typed_value(
    text: str, column: str, choices: type[StrEnum] | None
) -> None:
    _, field, error = only_error(text)
    typed = text.splitlines()[1].split(",")[text.splitlines()[0].split(",").index(column)]
    values = [m.value for m in choices or DigitalBenefitType]
    with pytest.raises(ValueRefused) as refused:
        typed_value(typed, pd.CategoricalDtype(values))
    assert (field, error) == (column, f"{column}: {refused.value}")


def test_an_enumeration_cell_is_read_without_the_spaces_around_it() -> None:
    imported = benefits_from_csv(f"{HEADER}\nA, POINTS , ACTIVE ,{CARD},5\n")
    assert imported.errors.empty
    assert (imported.rows[0].type, imported.rows[0].status) == ("POINTS", "ACTIVE")


def test_a_name_of_spaces_only_is_missing() -> None:
    row, field, error = only_error(f"{HEADER}\n   ,POINTS,DRAFT,{CARD},5\n")
    assert (row, field) == (1, "name")
    assert error.startswith("name: ")
