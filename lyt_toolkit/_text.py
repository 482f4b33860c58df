"""Figures in messages, one style: a count with thousands separators from 1,000 up
(``figure(4689)`` is ``4,689``); counted nouns, ``counted(1, "call")`` is ``1 call``,
``counted(2500, "call")`` ``2,500 calls``; a figure given to three significant figures,
``about(24215)`` ``24,200``; points or minor units that may come as a float,
``amount(1500.0)`` ``1,500``; counts by what they count, ``tally([("succeeded", 1200),
("failed", 3)])`` ``1,200 succeeded, 3 failed``; names as words, ``joined(["cards",
"rewards", "tiers"])`` ``cards, rewards and tiers`` (every layer may use it: it imports
nothing). Years, IDs, HTTP codes, percentages and ports are no counts: they are written as
they are, and so are reprs that read as Python (``Quota(limit=5000, ...)``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["about", "amount", "counted", "figure", "joined", "tally"]


def figure(count: int) -> str:
    """``count`` with thousands separators: ``4,689``, ``312``."""
    return f"{count:,}"


def amount(value: float) -> str:
    """``value`` (points, minor units: counts a frame may hold as floats) as a ``figure`` when
    whole (``1,500`` for ``1500.0``), else with its decimals (``1,234.5``)."""
    return figure(int(value)) if float(value).is_integer() else f"{value:,}"


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


def tally(counts: Iterable[tuple[object, int]]) -> str:
    """Each count (a ``figure``) before what it counts, those of 0 left out: ``1,200
    succeeded, 3 failed`` (a ``value_counts().items()``); empty for none."""
    return ", ".join(f"{figure(int(n))} {what}" for what, n in counts if n)


def joined(names: Iterable[str]) -> str:
    """``names`` as words, the last two joined by ``and``: ``rewards``, ``cards and
    rewards``, ``cards, rewards and tiers`` (not a Python list); empty for none."""
    listed = list(names)
    if len(listed) < 2:
        return "".join(listed)
    return f"{', '.join(listed[:-1])} and {listed[-1]}"
