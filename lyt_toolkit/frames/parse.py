"""A typed value from what a person typed: one set of rules wherever a value is entered.

The editable grid (``widgets.EditPanel``), an edited export
(``reports.read_edited_frames``), the benefit import CSV and the prices file
(``inputs``) and edited frames set in pandas (``ChangePlan.from_frames``) all read a
cell with ``typed_value`` (or ``typed_column``), so a cell means the same, and a
refusal says the same, wherever it was typed. The rules:

- Missing: an empty cell, one of only spaces, ``None``, NA, NaN, NaT.
- Spaces around a value are dropped (a spreadsheet or a copy adds them, no-break
  spaces included); a text column keeps its text exactly as typed.
- Digits: every Unicode decimal digit reads as its digit (full-width ``\uff11\uff12``,
  Arabic-Indic ``\u0661\u0662``: 12); the sign, the decimal point (``.``) and ``e`` are ASCII.
- Whole numbers (``Int64``): read as text into an exact integer, never through a
  float, within the signed 64-bit range. A zero fraction is the same number and is
  read (``5.0`` is 5: pandas and spreadsheets write whole numbers so); any other
  fraction (``5.5``) is refused, never rounded. Scientific notation is refused: a
  spreadsheet writes a long number as ``1.23457E+18`` after dropping its digits.
- Decimal numbers (``Float64``): finite; scientific notation is read (Python and the
  export write ``1e-05`` so).
- Digit group separators (``1,000``, ``1 000``, ``1_000``, ``1'000``) are refused
  in every number: ``,`` and ``.`` mean one thing or the other by locale.
- Flags (``boolean``): ``true`` or ``false`` in any case; ``1``, ``0``, ``yes`` are
  refused (a number in a flag column is more likely a slip than a flag).
- Instants: ISO 8601 (``2026-01-15``, ``2026-01-15 12:00``, ``...T12:00:00Z``,
  with an offset); without a zone, UTC; within the years a frame holds (1677-2262).
- Enumerations (``category``): one of the column's values, exactly.
- A value already typed (set in pandas) follows the same rules: ``5.0`` is 5 in a
  whole-number column, ``5.5`` and ``True`` are refused there; a list is one value of
  no column.

A refusal is a ``ValueRefused`` whose message names the value and why
(``'5.5' is not a whole number``); the caller adds the place (file, row, column). The value
is cut to 60 characters and a ``Bearer <token>`` in it shows as ``Bearer ***``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionDtype

from .._secret import quoted
from .._unicode import encodable
from ..errors import LytError
from ..models.numbers import INT64_MAX, INT64_MIN
from .schema import DATETIME

__all__ = [
    "ValueRefused",
    "missing",
    "parse_choice",
    "parse_flag",
    "parse_instant",
    "parse_number",
    "parse_whole",
    "typed_column",
    "typed_value",
]


class ValueRefused(LytError, ValueError):
    """A value that is not one of its column's; ``label`` is its row's (``typed_column``)."""

    def __init__(self, message: str, label: Hashable = None) -> None:
        super().__init__(message)
        self.label = label


_WHOLE = re.compile(r"([+-]?[0-9]+)(?:\.0*)?", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_SCIENTIFIC = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+", re.ASCII)
_GROUPED = re.compile(r"[+-]?[0-9]{1,3}(?:[,_' \u00a0\u202f][0-9]{3})+(?:\.[0-9]*)?", re.ASCII)
_SEPARATORS = re.compile(r"[,_' \u00a0\u202f]")
_NON_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_FLAGS = {"true": True, "false": False}
_INSTANT = "an ISO 8601 instant (2026-01-15T12:00:00Z)"


def _q(value: Any) -> str:
    """``repr(value)`` for a message, every secret held or configured and any bearer token in
    it masked, cut to 60 characters."""
    try:
        shown = quoted(repr(value))
    except ValueError:  # an int beyond Python's 4300-digit limit
        return f"an integer of {value.bit_length()} bits"
    return shown if len(shown) <= 60 else f"{shown[:50]}...{shown[-8:]}"


def _plain(text: str) -> str:
    """``text`` without surrounding spaces, its Unicode decimal digits as ASCII ones."""
    text = text.strip()
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)


def _why_not(text: str, plain: str, kind: str) -> str:
    """Why ``text`` is not ``kind``: a refusal's message."""
    if _NON_FINITE.fullmatch(plain):
        return f"{_q(text)} is not a finite number"
    if _GROUPED.fullmatch(plain):
        bare = _SEPARATORS.sub("", plain)
        fixed = bare if len(bare) < 30 else "the digits alone"
        return f"{_q(text)} has digit group separators: write {fixed}"
    if kind == "a whole number" and _SCIENTIFIC.fullmatch(plain):
        return (
            f"{_q(text)} is in scientific notation, which a spreadsheet writes after dropping"
            " digits: write the whole number out"
        )
    return f"{_q(text)} is not {kind}"


def _beyond(shown: Any) -> ValueRefused:
    return ValueRefused(
        f"{_q(shown)} is beyond the signed 64-bit integer range ({INT64_MIN} to {INT64_MAX})"
    )


def _int64(value: int, shown: Any) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise _beyond(shown)
    return value


def _int64_text(digits: str) -> int | None:
    """``digits`` (``[+-]?[0-9]+``) as an int, None beyond 64 bits (a longer text than
    Python's 4300-digit limit included)."""
    significant = digits.lstrip("+-").lstrip("0") or "0"
    if len(significant) > len(str(INT64_MAX)):
        return None
    value = -int(significant) if digits.startswith("-") else int(significant)
    return value if INT64_MIN <= value <= INT64_MAX else None


def parse_whole(text: str) -> int:
    """``text`` as an exact whole number (``5.0`` is 5); ``ValueRefused`` says why not."""
    plain = _plain(text)
    whole = _WHOLE.fullmatch(plain)
    if whole is None:
        raise ValueRefused(_why_not(text, plain, "a whole number"))
    value = _int64_text(whole.group(1))
    if value is None:
        raise _beyond(text)
    return value


def parse_number(text: str) -> int | float:
    """``text`` as a finite number: an exact ``int`` when written whole (no point, no
    exponent) and within 64 bits, else a ``float``; ``ValueRefused`` says why not."""
    plain = _plain(text)
    if not _DECIMAL.fullmatch(plain):
        raise ValueRefused(_why_not(text, plain, "a number"))
    if plain.lstrip("+-").isdigit() and (value := _int64_text(plain)) is not None:
        return value
    number = float(plain)
    if not math.isfinite(number):
        raise ValueRefused(f"{_q(text)} is not a finite number")
    return number


def parse_flag(text: str) -> bool:
    """``text`` as True or False (any case); ``ValueRefused`` says why not."""
    flag = _FLAGS.get(text.strip().lower())
    if flag is None:
        raise ValueRefused(f"{_q(text)} is not True or False")
    return flag


def parse_instant(text: str) -> dt.datetime:
    """``text`` (ISO 8601) as a UTC instant; ``ValueRefused`` says why not."""
    try:
        moment = dt.datetime.fromisoformat(_plain(text))
    except ValueError:
        raise ValueRefused(f"{_q(text)} is not {_INSTANT}") from None
    return _instant(moment, text)


_EARLIEST, _LATEST = (pd.Timestamp(t, tz="UTC") for t in (pd.Timestamp.min, pd.Timestamp.max))
_SURELY_INSIDE = (_EARLIEST.year + 1, _LATEST.year - 1)
"""Years whose every instant, at any offset, a frame holds (1678 to 2261)."""


def _instant(moment: Any, shown: Any) -> dt.datetime:
    """``moment`` as a UTC instant (naive: UTC) that a frame's nanoseconds can hold."""
    if type(moment) is not dt.datetime:  # a Timestamp, a date, a numpy datetime64
        moment = pd.Timestamp(moment)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    inside = _SURELY_INSIDE[0] <= moment.year <= _SURELY_INSIDE[1]  # no Timestamp compared
    if not inside and not _EARLIEST <= moment <= _LATEST:
        raise ValueRefused(f"{_q(shown)} is outside the years 1677 to 2262 a frame holds")
    return moment.astimezone(dt.UTC)


# -- a value of a column's dtype ----------------------------------------------------------

Reader = Callable[[Any], Any]


def _whole(value: Any) -> int:
    if isinstance(value, str):
        return parse_whole(value)
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return _int64(int(value), value)
    if isinstance(value, float | np.floating) and math.isfinite(value) and value == int(value):
        return _int64(int(value), value)
    raise ValueRefused(f"{_q(value)} is not a whole number")


def _number(value: Any) -> float:
    if isinstance(value, str):
        return float(parse_number(value))
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    ):
        try:
            number = float(value)
        except OverflowError:  # an int beyond the floats
            number = math.inf
        if math.isfinite(number):
            return number
        raise ValueRefused(f"{_q(value)} is not a finite number")
    raise ValueRefused(f"{_q(value)} is not a number")


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return parse_flag(value)
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise ValueRefused(f"{_q(value)} is not True or False")


def _moment(value: Any) -> dt.datetime:
    if isinstance(value, str):
        return parse_instant(value)
    if isinstance(value, dt.date | np.datetime64):  # a datetime is a date
        return _instant(value, value)
    raise ValueRefused(f"{_q(value)} is not {_INSTANT}")


def parse_choice(text: str, choices: Sequence[str]) -> str:
    """``text`` as one of ``choices``, exactly; ``ValueRefused`` lists them."""
    chosen = text.strip()
    if chosen not in choices:
        raise ValueRefused(f"{_q(text)} is not one of {list(choices)}")
    return chosen


def _choice(categories: list[str]) -> Reader:
    def read(value: Any) -> str:
        if isinstance(value, str):
            return parse_choice(value, categories)
        raise ValueRefused(f"{_q(value)} is not one of {categories}")

    return read


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    if not encodable(text):  # set in pandas: no request, file or grid could carry it
        raise ValueRefused(f"{_q(text)} holds a lone surrogate, not UTF-8 text")
    return text


def reader(dtype: Any) -> Reader:
    """The function reading one present value (text or typed) as ``dtype``."""
    if isinstance(dtype, pd.CategoricalDtype):
        return _choice([str(c) for c in dtype.categories])
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(dtype):
        return _moment
    if pd.api.types.is_bool_dtype(dtype):
        return _flag
    if pd.api.types.is_integer_dtype(dtype):
        return _whole
    if pd.api.types.is_float_dtype(dtype):
        return _number
    return _text


_CONTAINERS = (list, tuple, dict, set, frozenset, np.ndarray, pd.Series, pd.DataFrame)


def missing(value: Any) -> bool:
    """Whether ``value`` is missing: ``None``, NA, NaN, NaT, or text empty or of spaces only."""
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, _CONTAINERS):
        return False
    return value is None or bool(pd.isna(value))


def typed_value(value: Any, dtype: Any) -> Any:
    """``value`` (text, or a value set in pandas) as a value of ``dtype``; ``None`` when
    missing; ``ValueRefused`` says why it is not one (see the module's rules)."""
    return _read(reader(dtype), value)


def _read(read: Reader, value: Any) -> Any:
    if missing(value):
        return None
    if isinstance(value, _CONTAINERS):
        raise ValueRefused(f"{_q(value)} is a {type(value).__name__}, not one value")
    return read(value)


def _cached(read: Reader, value: Any, seen: dict[tuple[type, Any], Any]) -> Any:
    """``_read(read, value)``, each distinct value read once (a column repeats its values)."""
    key = (type(value), value)
    try:
        if key not in seen:
            seen[key] = _read(read, value)
    except TypeError:  # unhashable: a container, which _read refuses
        return _read(read, value)
    return seen[key]


def typed_column(cells: pd.Series[Any], dtype: Any) -> pd.Series[Any]:
    """``cells`` as a column of ``dtype`` (same index), each read by ``typed_value``; the
    first cell refused raises ``ValueRefused`` with its row ``label``."""
    read = reader(dtype)
    text = isinstance(cells.dtype, pd.StringDtype)  # all text (an edited CSV's cells)
    if read is _text and text:  # at once
        if len(cells) > _AT_ONCE or any(isinstance(v, str) and not v.strip() for v in cells):
            cells = cells.mask(cells.str.strip().eq("").fillna(False))  # blank: missing
        return cells.astype(dtype)
    if text and isinstance(dtype, ExtensionDtype) and len(cells) > _AT_ONCE:
        return _text_column(cells, dtype, read)
    seen: dict[tuple[type, Any], Any] = {}
    values = cells.tolist()
    for at, value in enumerate(values):
        try:
            values[at] = _cached(read, value, seen)
        except ValueRefused as exc:
            raise ValueRefused(str(exc), cells.index[at]) from None
    if isinstance(dtype, pd.CategoricalDtype):
        return pd.Series(_categorical(values, dtype), index=cells.index, name=cells.name)
    return pd.Series(values, index=cells.index, name=cells.name, dtype=dtype)


def _categorical(values: Sequence[Any], dtype: pd.CategoricalDtype) -> Any:
    """``pd.Categorical(values, dtype=dtype)``, each value looked up among the categories
    once (a value not among them, or missing, is missing)."""
    codes = dtype.categories.get_indexer(pd.Index(values, dtype=object))
    return pd.Categorical.from_codes(codes, dtype=dtype)


# -- a column of text read at once ---------------------------------------------------------

_AT_ONCE = 500
"""Cells of text from which a column is read a distinct value at a time, converted at once
when plainly spelled (``_text_column``); below, pandas' own overhead costs more."""

_PLAIN_WHOLE = r"[+-]?[0-9]{1,18}(?:\.0*)?"
_PLAIN_DECIMAL = _DECIMAL.pattern
_PLAIN_INSTANT = (
    r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[T ]"
    r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{6})?Z?"
)
"""The spellings of a value that the rules above read as Python reads them, and pandas or
Python's number parsers read the same (ASCII digits, no spaces, no digit group, within 64
bits; an instant in the export's or a spreadsheet's spelling): a column of text all so
spelled is converted at once (``_at_once``)."""


def _text_column(cells: pd.Series[Any], dtype: Any, read: Reader) -> pd.Series[Any]:
    """``typed_column`` of text cells: each distinct text read once, in the order it first
    appears (so the first refused is the first cell refused), converted at once when every
    one is plainly spelled (``_at_once``), else one by one by ``read``."""
    codes, distinct = pd.factorize(cells)
    texts: list[str] = distinct.tolist()
    values = _at_once(distinct, texts, dtype)
    if values is None:
        values = []
        for at, text in enumerate(texts):
            try:
                values.append(_read(read, text))
            except ValueRefused as exc:
                first = int(np.argmax(codes == at))
                raise ValueRefused(str(exc), cells.index[first]) from None
    if isinstance(dtype, pd.CategoricalDtype):
        array: Any = _categorical(values, dtype).take(codes, allow_fill=True)
    else:
        array = pd.array(values, dtype=dtype).take(codes, allow_fill=True)
    return pd.Series(array, index=cells.index, name=cells.name)


def _at_once(distinct: pd.Index, texts: list[str], dtype: Any) -> Any:
    """The ``distinct`` texts (present; ``texts`` as a list) as values of ``dtype`` when every
    one is plainly spelled (see ``_PLAIN_INSTANT``); None when one is not (each is then read
    by the rules)."""
    if not texts:
        return None
    if isinstance(dtype, pd.CategoricalDtype):
        return texts if (dtype.categories.get_indexer(distinct) >= 0).all() else None
    kind = reader(dtype)
    patterns: dict[Reader, str] = {
        _whole: _PLAIN_WHOLE,
        _number: _PLAIN_DECIMAL,
        _moment: _PLAIN_INSTANT,
    }
    pattern = patterns.get(kind)
    if pattern is None or not distinct.str.fullmatch(pattern).all():
        return None
    if kind is _whole:
        return [int(text.partition(".")[0]) for text in texts]
    if kind is _number:
        numbers = [float(text) for text in texts]
        if not all(map(math.isfinite, numbers)):
            return None
        # a whole number is read through int: its zero has no sign (``-0`` is 0.0)
        whole = [n == 0 and t.lstrip("+-").isdigit() for n, t in zip(numbers, texts, strict=True)]
        return [0.0 if zero else n for n, zero in zip(numbers, whole, strict=True)]
    try:
        return pd.to_datetime(distinct, format="ISO8601", utc=True).astype(DATETIME)
    except (ValueError, OverflowError):  # an invalid date, or beyond a frame's years
        return None
