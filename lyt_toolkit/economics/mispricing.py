"""Mispriced rewards: reward costs whose value per point sits far from their currency's norm.

A reward cost is mispriced when its value per point is more than ``factor`` times its card
definition's median value per point, or less than the median divided by ``factor``. The
median must rest on at least ``min_observations`` observations: with two, the median is
their midpoint and cannot say which one is off.
"""

from __future__ import annotations

import pandas as pd

from .schemas import MISPRICED

__all__ = ["MIN_OBSERVATIONS", "MISPRICED", "MISPRICED_FACTOR", "mispriced"]

MISPRICED_FACTOR = 3.0
"""How far (either way) from the median a value per point is mispriced."""

MIN_OBSERVATIONS = 3
"""Observations a card definition's median needs before anything is called mispriced."""


def mispriced(
    burn_values: pd.DataFrame,
    point_values: pd.DataFrame,
    factor: float = MISPRICED_FACTOR,
    min_observations: int = MIN_OBSERVATIONS,
) -> pd.DataFrame:
    """The rows of ``burn_values`` (as ``burn_values(snapshot)`` returns them) priced more
    than ``factor`` x away from their card definition's median in ``point_values``."""
    if not factor > 1:
        raise ValueError(f"factor must be a number above 1, got {factor!r}")
    norms = point_values.set_index(point_values["card_definition_id"].astype("string"))
    joined = burn_values.join(norms[["median", "observations"]], on="card_definition_id")
    median = joined["median"].astype("Float64")
    ratio = (joined["value_per_point"].astype("Float64") / median).where(median > 0)
    far = (ratio > factor) | (ratio < 1 / factor)
    enough = joined["observations"].astype("Int64") >= min_observations
    chosen = (far & enough).fillna(False).astype(bool)
    out = joined.assign(median_value_per_point=median, ratio=ratio)[chosen]
    return MISPRICED.conform(out.reset_index(drop=True))
