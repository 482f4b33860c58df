"""Numeric bounds of the interface: integers fit a signed 64-bit integer, numbers are finite.

``Int64`` and ``FiniteFloat`` are annotated types for model fields;
``find_out_of_bounds`` walks any JSON-like value (a request body about to be
sent) and names the first number outside those bounds by its dotted path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "FiniteFloat",
    "Int64",
    "find_out_of_bounds",
    "number_problem",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

Int64 = Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
"""An integer that fits a signed 64-bit integer."""

FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
"""A float that is neither infinite nor NaN."""


def number_problem(value: Any) -> str | None:
    """Why ``value`` is a number the interface cannot carry; None for any other value."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        return "must fit a signed 64-bit integer (from -2**63 to 2**63 - 1)"
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, got {value!r}"
    return None


def find_out_of_bounds(value: Any) -> tuple[str, str] | None:
    """The dotted path and the reason of the first out-of-bounds number in ``value``, if any."""
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        problem = number_problem(item)
        if problem is not None:
            return ".".join(path) or "body", problem
        if isinstance(item, Mapping):
            children = [((*path, str(k)), v) for k, v in item.items()]
        elif isinstance(item, Sequence) and not isinstance(item, str | bytes):
            children = [((*path, str(i)), v) for i, v in enumerate(item)]
        else:
            continue
        stack.extend(reversed(children))
    return None
