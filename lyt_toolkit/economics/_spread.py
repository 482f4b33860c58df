"""Values per point gathered per card definition: the exchange ratio and the low /
median / high of the observations, shared by burn values and point values."""

from __future__ import annotations

import functools
import re

import pandas as pd

from ._frames import columns

__all__ = ["exchange_ratios", "spread"]

_NUMBER = r"(\d+(?:\.\d+)?)"
_FORMULAS = (
    (re.compile(rf"^\s*POINTS\s*/\s*{_NUMBER}\s*$"), "divide"),
    (re.compile(rf"^\s*POINTS\s*\*\s*{_NUMBER}\s*$"), "times"),
    (re.compile(rf"^\s*{_NUMBER}\s*\*\s*POINTS\s*$"), "times"),
)


def exchange_ratios(card_definitions: pd.DataFrame) -> pd.Series:
    """Card definition ID -> value of one point by its pay-with-points formula (``POINTS /
    n``, ``POINTS * n`` or ``n * POINTS``, read as minor units); NA for any other formula."""
    defs = columns(card_definitions, "card_definitions", ["id", "pay_with_points_exchange_ratio"])
    formulas = defs["pay_with_points_exchange_ratio"].tolist()
    ratios = [_ratio(f) if isinstance(f, str) else None for f in formulas]
    return pd.Series(ratios, index=defs["id"].to_numpy(), dtype="Float64")


@functools.lru_cache(maxsize=1024)
def _ratio(formula: str) -> float | None:
    """One formula's value of a point (None: not a formula of a number; ``POINTS / 0``
    included). Programs share a few formulas, so each is read once."""
    for pattern, kind in _FORMULAS:
        found = pattern.search(formula.upper())
        if found is None:
            continue
        n = float(found.group(1))
        if kind == "times":
            return n
        return 1 / n if n > 0 else None
    return None


def spread(per_point: pd.DataFrame, ratios: pd.Series) -> pd.DataFrame:
    """Per card definition ID: ``observations``, ``low``, ``median``, ``high`` of the
    values per point in ``per_point`` (columns ``card_definition_id``,
    ``value_per_point``) and of the exchange ratio where it is set."""
    seen = per_point["value_per_point"].astype("float64")
    ratio = ratios.dropna().astype("float64")
    value = pd.concat([seen, ratio], ignore_index=True)
    owner = pd.concat(
        [per_point["card_definition_id"].astype("string"), pd.Series(ratio.index, dtype="string")],
        ignore_index=True,
    )
    grouped = value[value.notna()].groupby(owner[value.notna()])
    return pd.DataFrame(
        {
            "observations": grouped.size(),
            "low": grouped.min(),
            "median": grouped.median(),
            "high": grouped.max(),
        }
    )
