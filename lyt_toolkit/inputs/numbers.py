"""Numbers in bulk input cells, parsed exactly: plain decimal digits, nothing else.

A whole number is parsed as an integer (never through a float, so
``9007199254740993`` stays exact) and must fit a signed 64-bit integer. A
number may have a decimal point. Scientific notation (``1e3``), digit group
separators (``1_000``, ``1,000``), digits other than ASCII 0-9, and
``inf``/``nan`` are refused, each with the reason.
"""

from __future__ import annotations

import math
import re

from ..models.numbers import INT64_MAX, INT64_MIN

__all__ = ["INT64_MAX", "INT64_MIN", "parse_number", "parse_whole"]


_WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"([+-]?[0-9]*)\.([0-9]*)", re.ASCII)
_NON_FINITE = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan", "-nan"}


def _why_not(text: str, kind: str) -> str:
    """Why ``text`` is not ``kind``: the message of a refused cell (the column is added later)."""
    lowered = text.lower()
    if lowered in _NON_FINITE:
        return f"must be a finite number, got {text!r}"
    if "_" in text:
        return f"must be written without underscores, got {text!r}"
    if any(c.isdigit() and not c.isascii() for c in text):
        return f"must use the digits 0-9, got {text!r}"
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+", text, re.ASCII):
        return f"must be written out in full, not in scientific notation, got {text!r}"
    return f"must be {kind}, got {text!r}"


def _int64(value: int, text: str) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError(f"is beyond the signed 64-bit integer range, got {text!r}")
    return value


def parse_whole(text: str) -> int:
    """``text`` as an exact whole number; ``ValueError`` says why not (``1.0`` is accepted)."""
    if _WHOLE.fullmatch(text):
        return _int64(int(text), text)
    decimal = _DECIMAL.fullmatch(text)
    if decimal and decimal.group(1).lstrip("+-") and not decimal.group(2).strip("0"):
        return _int64(int(decimal.group(1)), text)
    raise ValueError(_why_not(text, "a whole number"))


def parse_number(text: str) -> int | float:
    """``text`` as a whole number (exact) or a finite decimal; ``ValueError`` says why not."""
    try:
        return parse_whole(text)
    except ValueError as exc:
        if "64-bit" in str(exc):
            raise
    if _DECIMAL.fullmatch(text) and any(c.isdigit() for c in text):
        number = float(text)
        if not math.isfinite(number):
            raise ValueError(f"is too large for a number, got {text!r}")
        return number
    raise ValueError(_why_not(text, "a number"))
