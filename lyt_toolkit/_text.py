"""Figures in messages, one style: a count with thousands separators from 1,000 up
(``figure(4689)`` is ``4,689``); counted nouns, ``counted(1, "call")`` is ``1 call``,
``counted(2500, "call")`` ``2,500 calls``; a figure given to three significant figures,
``about(24215)`` ``24,200`` (every layer may use it: it imports nothing). Years, IDs, HTTP
codes, percentages and ports are no counts: they are written as they are."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["about", "counted", "figure"]


def figure(count: int) -> str:
    """``count`` with thousands separators: ``4,689``, ``312``."""
    return f"{count:,}"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` (a ``figure``) and ``noun``, the noun plural (``plural``, else ``noun +
    "s"``) unless the count is exactly one."""
    return f"{figure(count)} {noun if count == 1 else (plural or noun + 's')}"


def about(count: int, rounded: Callable[[float], int] = round) -> str:
    """``count`` to three significant figures, with thousands separators (``rounded`` to
    them: ``math.floor`` for an interval's low end and ``math.ceil`` for its high end, so the
    rounded interval holds the one worked out)."""
    step = 10 ** max(0, len(str(abs(count))) - 3)
    return figure(rounded(count / step) * step)
