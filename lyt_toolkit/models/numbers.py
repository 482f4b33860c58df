"""The numbers the interface can carry, and a walk that finds the first one it cannot.

Every integer of the interface fits a signed 64-bit integer and every number is
finite. ``first_problem`` walks a decoded JSON document (iteratively, so depth
costs no recursion) and names the first field that breaks either rule, or that
sits deeper than a given nesting limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["INT64_MAX", "INT64_MIN", "NumberProblem", "first_problem", "number_problem"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class NumberProblem:
    """Where (a dotted path, list positions in brackets) and what is wrong."""

    where: str
    reason: str


def number_problem(value: Any) -> str | None:
    """Why ``value`` cannot travel as a number of the interface, or ``None`` if it can."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        return "integer outside the signed 64-bit range"
    if isinstance(value, float) and not math.isfinite(value):
        return "number is not finite (NaN, Infinity or beyond the double range)"
    return None


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def first_problem(document: Any, max_depth: int | None = None) -> NumberProblem | None:
    """The first field of ``document`` holding a number out of bounds, or nested too deep."""
    stack: list[tuple[str, Any, int]] = [("", document, 0)]
    while stack:
        path, value, depth = stack.pop()
        if isinstance(value, dict | list):
            if max_depth is not None and depth >= max_depth:
                return NumberProblem(path or "body", f"nested deeper than {max_depth} levels")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((_join(path, k), v, depth + 1) for k, v in reversed(list(items)))
            continue
        reason = number_problem(value)
        if reason is not None:
            return NumberProblem(path or "body", reason)
    return None
