"""Strict readers of the API's JSON values, a column at a time, for building frames
without models.

The model-free frame path reads a page's items as parsed JSON (dicts, lists,
str, int, float) and must give exactly the rows the models would. Each reader
here takes one field of every item of a page (a column) and accepts only the
plain, canonical form of its values, the form the service sends, whose model
value is known without validating (an ISO instant ending in ``Z``, an enum
value the model lists, an ``int`` that is not a ``bool``...). Anything else
raises ``NotPlain``, and the caller builds that page's rows from models, with
their coercions, defaults and errors.

The checks run in C where they can: a set of the values' types, one regular
expression over a column's values joined by newlines, a set inclusion for
enum values. So a page costs a few passes per column instead of a few Python
calls per value.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from enum import Enum
from operator import itemgetter
from typing import Any

__all__ = [
    "INSTANT_FORM",
    "NotPlain",
    "enums",
    "field",
    "id_pattern",
    "ids",
    "instant",
    "instants",
    "non_negative_number",
    "only",
    "values_of",
]


class NotPlain(Exception):
    """A value outside the plain form: build this page from models instead."""


INSTANT_FORM = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z"
"""The service's instant form: UTC, optional fraction of up to microseconds, ``Z``."""

_INSTANTS = re.compile(f"{INSTANT_FORM}(?:\n{INSTANT_FORM})*")
_from_iso = dt.datetime.fromisoformat


def values_of(enum: type[Enum]) -> frozenset[str]:
    """The wire values of ``enum``."""
    return frozenset(str(m.value) for m in enum)


def field(items: list[dict[str, Any]], key: str, default: Any = None) -> list[Any]:
    """The ``key`` of every item (``default`` where an item lacks it); items are dicts."""
    try:
        return list(map(itemgetter(key), items))  # every item has it: the usual case
    except KeyError:
        return [item.get(key, default) for item in items]


def only(values: list[Any], *types: type) -> list[Any]:
    """``values`` when each is exactly one of ``types`` (``type(None)`` for null)."""
    if not set(map(type, values)).issubset(types):
        raise NotPlain
    return values


def id_pattern(prefix: str) -> re.Pattern[str]:
    """The models' loyalty IDs with ``prefix`` (the prefix, then lowercase hex), one per
    line: what ``ids`` matches a column against."""
    one = re.escape(prefix) + "[a-f0-9]+"
    return re.compile(f"{one}(?:\n{one})*")


def ids(values: list[Any], pattern: re.Pattern[str]) -> list[str]:
    """``values`` when each is a loyalty ID matching ``pattern`` (from ``id_pattern``)."""
    only(values, str)
    if values and not _each_matches(pattern, values):
        raise NotPlain
    return values


def _each_matches(pattern: re.Pattern[str], texts: list[str]) -> bool:
    """Whether every text matches ``pattern`` (one value per line), in one C call; a text
    holding a newline itself never passes."""
    joined = "\n".join(texts)
    return joined.count("\n") == len(texts) - 1 and pattern.fullmatch(joined) is not None


def enums(values: list[Any], known: frozenset[str]) -> list[str]:
    """``values`` when each is a value of an enum (``known``: its wire values)."""
    try:
        if known.issuperset(values):
            return values
    except TypeError:  # a list or object is not hashable, so not a known value
        pass
    raise NotPlain


def non_negative_number(value: Any) -> int | float:
    """A finite JSON number at least 0 (an ``int`` stays an ``int``)."""
    kind = type(value)
    if (kind is int or kind is float) and 0 <= value < math.inf:
        return value
    raise NotPlain


def instants(values: list[Any], *, required: bool = False) -> list[dt.datetime | None]:
    """Instants in the service's form (or null, unless ``required``) as aware UTC datetimes."""
    present = [v for v in values if v is not None]
    if not present:
        if required and values:
            raise NotPlain
        return [None] * len(values)
    if required and len(present) != len(values):
        raise NotPlain
    only(present, str)
    if not _each_matches(_INSTANTS, present):
        raise NotPlain
    try:
        return [None if v is None else _from_iso(v) for v in values]
    except ValueError:  # the form of an instant, not a real one (30 February)
        raise NotPlain from None


def instant(value: Any) -> dt.datetime | None:
    """One instant in the service's form (or null), as an aware UTC datetime."""
    return instants([value])[0]
