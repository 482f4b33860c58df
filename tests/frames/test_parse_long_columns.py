"""A long column of text (an edited CSV's, more than ``_AT_ONCE`` cells) is read a distinct
value at a time and, when plainly spelled, converted at once: it must read exactly as the
same cells read in short pieces, which go cell by cell, whatever their spellings, blanks and
refusals (the same values and dtype, or the same first refused cell, message and row)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from lyt_toolkit.frames.parse import _AT_ONCE, ValueRefused, typed_column

INSTANT = pd.DatetimeTZDtype("ns", "UTC")
STATUS = pd.CategoricalDtype(["ACTIVE", "DRAFT"])

SPELLINGS: dict[str, tuple[Any, list[str], list[str]]] = {
    "whole": (
        pd.Int64Dtype(),
        ["12", "-7", "0", "+3", "1.0", "40.000", "123456789012345678"],
        [" 12", "\u0661\u0662", "9223372036854775807", "9999999999999999999", "1e3", "12.5", "x"],
    ),
    "number": (
        pd.Float64Dtype(),
        ["1.5", "-0", "0", "3", "-2.25", "0.1"],
        ["-0.0", " 2.25", "1,5", "1e309", "nan", "\u0663.5", "1e-3"],
    ),
    "instant": (
        INSTANT,
        ["2026-01-15T10:00:00Z", "2026-01-15 10:00:00", "2026-01-15T10:00:00.123456Z"],
        ["2026-02-30T00:00:00Z", "2026-01-15T10:00:00+02:00", "2300-01-01T00:00:00Z", "soon"],
    ),
    "category": (STATUS, ["ACTIVE", "DRAFT"], ["active", " DRAFT", "NOPE"]),
    "text": (pd.StringDtype(), ["a", "b c", "é"], [" a ", "\u00a0"]),
}
"""Each kind's dtype (as a base frame's column has it), its plain spellings, and others (odd,
refused, or beyond what the at-once conversion takes); blank cells are drawn besides."""


def _read(cells: pd.Series[Any], dtype: Any) -> pd.Series[Any] | tuple[str, object]:
    try:
        return typed_column(cells, dtype)
    except ValueRefused as exc:
        return str(exc), exc.label


def _in_pieces(cells: pd.Series[Any], dtype: Any) -> pd.Series[Any] | tuple[str, object]:
    step = _AT_ONCE // 2
    pieces = []
    for start in range(0, len(cells), step):
        read = _read(cells.iloc[start : start + step], dtype)
        if isinstance(read, tuple):
            return read
        pieces.append(read)
    return pd.concat(pieces)


def _same_read(cells: pd.Series[Any], dtype: Any) -> None:
    whole, pieces = _read(cells, dtype), _in_pieces(cells, dtype)
    if isinstance(pieces, tuple):
        assert isinstance(whole, tuple), "read whole, refused in pieces"
        assert whole == pieces  # the same first refused cell: message and row
    else:
        assert not isinstance(whole, tuple), whole
        pd.testing.assert_series_equal(whole, pieces)
        assert list(map(repr, whole)) == list(map(repr, pieces))  # -0.0 is not 0.0


def _column(texts: list[str]) -> pd.Series[Any]:
    return pd.Series(texts, index=range(1, len(texts) + 1), dtype="string", name="column")


@pytest.mark.parametrize(
    ("kind", "other"),
    [(kind, other) for kind, (_, _, odd) in sorted(SPELLINGS.items()) for other in [*odd, ""]],
)
def test_one_other_spelling_among_plain_ones_reads_as_in_short_pieces(
    kind: str, other: str
) -> None:
    """Plain spellings, one other among them near the end: the column is read as its
    pieces are, whether that one is converted with the plain ones or not."""
    dtype, plain, _ = SPELLINGS[kind]
    texts = [plain[at % len(plain)] for at in range(_AT_ONCE + 100)]
    texts[_AT_ONCE + 50] = other
    _same_read(_column(texts), dtype)


@pytest.mark.parametrize("kind", sorted(SPELLINGS))
# Not shrunk: a failing column of 500 cells shrinks for minutes, and its diff says enough.
@settings(max_examples=15, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(data=st.data())
def test_a_long_column_reads_as_its_cells_read_in_short_pieces(kind: str, data: Any) -> None:
    dtype, plain, odd = SPELLINGS[kind]
    # one or two others at most: with more, the column is seldom all plain, and the at-once
    # conversion would be left untried beside them
    others = st.lists(st.sampled_from([*odd, "", "  "]), max_size=2, unique=True)
    pool = st.sampled_from(plain + data.draw(others, label="other spellings"))
    texts = data.draw(st.lists(pool, min_size=_AT_ONCE + 1, max_size=_AT_ONCE + 200))
    _same_read(_column(texts), dtype)
