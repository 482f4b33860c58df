"""Values per point gathered per card definition: the exchange ratio and the low /
median / high of the observations, shared by burn values and point values."""

from __future__ import annotations

import pandas as pd

from ._frames import columns

__all__ = ["exchange_ratios", "spread"]

_NUMBER = r"(\d+(?:\.\d+)?)"
_FORMULAS = (
    (rf"^\s*POINTS\s*/\s*{_NUMBER}\s*$", "divide"),
    (rf"^\s*POINTS\s*\*\s*{_NUMBER}\s*$", "times"),
    (rf"^\s*{_NUMBER}\s*\*\s*POINTS\s*$", "times"),
)


def exchange_ratios(card_definitions: pd.DataFrame) -> pd.Series:
    """Card definition ID -> value of one point by its pay-with-points formula (``POINTS /
    n``, ``POINTS * n`` or ``n * POINTS``, read as minor units); NA for any other formula."""
    defs = columns(card_definitions, "card_definitions", ["id", "pay_with_points_exchange_ratio"])
    formula = defs["pay_with_points_exchange_ratio"].astype("string").str.upper()
    ratio = pd.Series(pd.NA, index=defs.index, dtype="Float64")
    for pattern, kind in _FORMULAS:
        n = pd.to_numeric(formula.str.extract(pattern, expand=False), errors="coerce")
        n = n.astype("Float64")
        ratio = ratio.fillna(1 / n.where(n > 0) if kind == "divide" else n)
    return pd.Series(ratio.to_numpy(), index=defs["id"].to_numpy(), dtype="Float64")


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
