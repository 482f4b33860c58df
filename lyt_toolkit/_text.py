"""Counted nouns in messages: ``counted(1, "call")`` is ``1 call``, ``counted(2, "call")``
``2 calls``; a figure given to three significant figures, ``about(24215)`` ``24,200`` (every
layer may use it: it imports nothing)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["about", "counted"]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun plural (``plural``, else ``noun + "s"``) unless the
    count is exactly one."""
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"


def about(count: int, rounded: Callable[[float], int] = round) -> str:
    """``count`` to three significant figures, with thousands separators (``rounded`` to
    them: ``math.floor`` for an interval's low end and ``math.ceil`` for its high end, so the
    rounded interval holds the one worked out)."""
    step = 10 ** max(0, len(str(abs(count))) - 3)
    return f"{rounded(count / step) * step:,}"
