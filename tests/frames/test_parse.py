"""The one parser of typed values (``frames.parse``): its rules, its messages, and int64
text read exactly in any decimal digits."""

from __future__ import annotations

import datetime as dt
import unicodedata

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lyt_toolkit.frames.parse import ValueRefused, typed_column, typed_value

INSTANT = pd.DatetimeTZDtype("ns", "UTC")
STATUS = pd.CategoricalDtype(["ACTIVE", "DRAFT"])
ZERO_DIGITS = sorted(
    {chr(c - unicodedata.decimal(chr(c))) for c in range(0x110000) if chr(c).isdecimal()}
)
"""The zero of every run of Unicode decimal digits (ASCII, Arabic-Indic, full-width...)."""


def in_digits(text: str, zero: str) -> str:
    return "".join(chr(ord(zero) + int(c)) if c.isdigit() else c for c in text)


@given(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.sampled_from(ZERO_DIGITS),
    st.sampled_from(["", ".0", ".000", "."]),
    st.sampled_from(["", " ", "\u00a0", "\t"]),
)
def test_any_int64_text_is_read_exactly_in_any_decimal_digits(
    value: int, zero: str, fraction: str, space: str
) -> None:
    text = f"{space}{in_digits(str(value), zero)}{fraction}{space}"
    assert typed_value(text, "Int64") == value
    assert typed_column(pd.Series([text, None]), "Int64").tolist() == [value, pd.NA]


@pytest.mark.parametrize(
    ("dtype", "text", "value"),
    [
        ("Int64", "+7", 7),
        ("Int64", "5.0", 5),
        ("Int64", "  ", None),
        ("Int64", "0" * 5000 + "7", 7),
        ("Float64", "-" + "0" * 5000 + "7", -7),
        ("Float64", "1e-05", 1e-05),
        ("Float64", "\uff11\uff12.5", 12.5),
        ("Float64", "3", 3.0),
        ("boolean", "TRUE", True),
        ("boolean", " false ", False),
        (INSTANT, "2026-01-15", pd.Timestamp("2026-01-15", tz="UTC")),
        (INSTANT, "2026-01-15 12:00", pd.Timestamp("2026-01-15 12:00", tz="UTC")),
        (INSTANT, "2026-01-15T13:00:00+01:00", pd.Timestamp("2026-01-15 12:00", tz="UTC")),
        (STATUS, " DRAFT ", "DRAFT"),
        ("str", "  Bonus  ", "  Bonus  "),
        ("str", "", None),
    ],
)
def test_a_value_is_read_as_its_column_says(dtype: object, text: str, value: object) -> None:
    assert typed_value(text, dtype) == value


@pytest.mark.parametrize(
    ("dtype", "value", "message"),
    [
        ("Int64", "5.5", "'5.5' is not a whole number"),
        ("Int64", "1.23457E+18", "'1.23457E+18' is in scientific notation"),
        ("Int64", "1,000", "'1,000' has digit group separators: write 1000"),
        ("Int64", "1_000", "'1_000' has digit group separators: write 1000"),
        ("Float64", "1 000.5", "'1 000.5' has digit group separators: write 1000.5"),
        ("Int64", "9223372036854775808", "'9223372036854775808' is beyond the signed 64-bit"),
        ("Int64", "nan", "'nan' is not a finite number"),
        ("Int64", "9" * 5000, f"'{'9' * 49}...9999999' is beyond the signed 64-bit"),
        ("Float64", "9" * 5000, f"'{'9' * 49}...9999999' is not a finite number"),
        ("Float64", "1e999", "'1e999' is not a finite number"),
        ("Float64", "12€", "'12€' is not a number"),
        ("boolean", "1", "'1' is not True or False"),
        ("boolean", "yes", "'yes' is not True or False"),
        (INSTANT, "15/01/2026", "'15/01/2026' is not an ISO 8601 instant"),
        (INSTANT, "3000-01-01", "'3000-01-01' is outside the years 1677 to 2262"),
        (STATUS, "active", "'active' is not one of ['ACTIVE', 'DRAFT']"),
        ("Int64", 5.5, "5.5 is not a whole number"),
        ("Int64", True, "True is not a whole number"),
        ("Int64", 2.0**63, "9.223372036854776e+18 is beyond the signed 64-bit"),
        ("Float64", False, "False is not a number"),
        ("Float64", 10**400, "1000000000"),
        ("Float64", float("inf"), "inf is not a finite number"),
        ("boolean", 1, "1 is not True or False"),
        ("Int64", [1], "[1] is a list, not one value"),
    ],
)
def test_a_value_that_is_not_one_of_its_columns_is_refused_saying_why(
    dtype: object, value: object, message: str
) -> None:
    with pytest.raises(ValueRefused) as refused:
        typed_value(value, dtype)
    assert str(refused.value).startswith(message)


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "boolean", INSTANT, STATUS])
def test_a_bearer_token_in_a_refused_value_is_masked_whole_not_cut_short(dtype: object) -> None:
    """A cell may hold anyone's token (one pasted from a request): the refusal quotes the
    value with the token masked whole, not its first 50 characters."""
    with pytest.raises(ValueRefused) as refused:
        typed_value("see Bearer eyJhbGciOiJIUzI1NiJ9.pasted-from-a-request.0123456789", dtype)
    assert str(refused.value).startswith("'see Bearer ***' is not ")


def test_a_value_already_typed_follows_the_same_rules() -> None:
    assert typed_value(5.0, "Int64") == 5
    assert typed_value(dt.date(2026, 1, 2), INSTANT) == pd.Timestamp("2026-01-02", tz="UTC")
    assert typed_value(float("nan"), "Int64") is None


def test_an_int_beyond_pythons_digit_limit_is_refused_in_one_line() -> None:
    with pytest.raises(ValueRefused, match=r"^an integer of 16610 bits is beyond"):
        typed_value(10**5000, "Int64")


def test_a_column_names_the_row_of_its_first_refused_cell() -> None:
    with pytest.raises(ValueRefused) as refused:
        typed_column(pd.Series(["1", "x", "y"], index=[4, 5, 6]), "Int64")
    assert (refused.value.label, str(refused.value)) == (5, "'x' is not a whole number")


def test_a_text_column_refuses_a_container_and_empties_blank_text() -> None:
    assert typed_column(pd.Series([" a ", "  ", None], dtype="str"), "str").tolist()[0] == " a "
    assert typed_column(pd.Series(["  "], dtype="string"), "str").isna().all()
    with pytest.raises(ValueRefused, match=r"^\{'en': 'x'\} is a dict, not one value$"):
        typed_column(pd.Series(["a", {"en": "x"}], dtype=object), "str")
