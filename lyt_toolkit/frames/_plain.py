"""Strict readers of the API's JSON values, for building rows without models.

The model-free frame path reads list items as parsed JSON (dicts, lists, str,
int, float) and must give exactly the rows the models would. Each reader here
accepts only the plain, canonical form of a value, the form the service sends,
whose model value is known without validating (an ISO instant ending in ``Z``,
an enum value the model lists, an ``int`` that is not a ``bool``...). Anything
else raises ``NotPlain``, and the caller builds that page's rows from models,
with their coercions, defaults and errors.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from enum import Enum
from typing import Any

__all__ = [
    "NotPlain",
    "enum_text",
    "id_pattern",
    "id_text",
    "instant",
    "mapping",
    "non_negative_number",
    "optional_mapping",
    "optional_text",
    "text",
    "values_of",
    "whole_number",
]


class NotPlain(Exception):
    """A value outside the plain form: build this page from models instead."""


_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z")
"""The service's instant form: UTC, optional fraction of up to microseconds, ``Z``."""


def values_of(enum: type[Enum]) -> frozenset[str]:
    """The wire values of ``enum``."""
    return frozenset(str(m.value) for m in enum)


def mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object."""
    if type(value) is not dict:
        raise NotPlain
    return value


def optional_mapping(value: Any) -> dict[str, Any] | None:
    """A JSON object or null."""
    return None if value is None else mapping(value)


def text(value: Any) -> str:
    """A JSON string."""
    if type(value) is not str:
        raise NotPlain
    return value


def optional_text(value: Any) -> str | None:
    """A JSON string or null."""
    return None if value is None else text(value)


def id_pattern(prefix: str) -> re.Pattern[str]:
    """The models' pattern of loyalty IDs with ``prefix``: the prefix, then lowercase hex."""
    return re.compile(re.escape(prefix) + "[a-f0-9]+")


def id_text(value: Any, pattern: re.Pattern[str]) -> str:
    """A loyalty ID matching ``pattern`` (from ``id_pattern``)."""
    if type(value) is not str or pattern.fullmatch(value) is None:
        raise NotPlain
    return value


def enum_text(value: Any, known: frozenset[str]) -> str:
    """A value of an enum (``known``: its wire values)."""
    if type(value) is not str or value not in known:
        raise NotPlain
    return value


def whole_number(value: Any) -> int:
    """A JSON integer (not a bool, not a float)."""
    if type(value) is not int:
        raise NotPlain
    return value


def non_negative_number(value: Any) -> int | float:
    """A finite JSON number at least 0 (an ``int`` stays an ``int``)."""
    if type(value) is int:
        if value < 0:
            raise NotPlain
        return value
    if type(value) is not float or not math.isfinite(value) or value < 0:
        raise NotPlain
    return value


def instant(value: Any) -> dt.datetime | None:
    """An instant in the service's form (or null), as an aware UTC datetime."""
    if value is None:
        return None
    if type(value) is not str or _INSTANT.fullmatch(value) is None:
        raise NotPlain
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError:
        raise NotPlain from None
