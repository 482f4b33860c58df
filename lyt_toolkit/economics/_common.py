"""Small helpers shared by the economics frames."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..snapshot.model import ProgramSnapshot
from ._frames import names_of


def sum_by(grouped: Any) -> pd.Series:
    """The sum of each group of a ``SeriesGroupBy``; NA for a group holding an NA."""
    return grouped.sum().mask(grouped.count() < grouped.size())


def weighted(snapshot: ProgramSnapshot, frame: pd.DataFrame, column: str) -> pd.Series:
    """``frame[column]``, times each row's ``weight`` on a sampled snapshot: summed, the
    weighted values are the sample's estimate of the program's total."""
    if snapshot.sample is None:
        return frame[column]
    return frame[column].astype("Float64") * frame["weight"]


def whole(totals: pd.Series) -> pd.Series:
    """Totals as whole numbers (``Int64``): an estimate from a sample is rounded to the
    nearest point; a total of whole numbers is kept as it is (beyond 2**53 too)."""
    if pd.api.types.is_integer_dtype(totals.dtype):
        return totals.astype("Int64")
    return totals.astype("Float64").round().astype("Int64")


def first_of_month(stamps: pd.Series) -> pd.Series:
    """Each UTC instant's first day of the month, 00:00 UTC (``datetime64[ns, UTC]``):
    truncated to the month by numpy, in one pass (a period round trip takes four)."""
    naive = stamps.dt.tz_convert(None).to_numpy(dtype="datetime64[ns]")
    months = naive.astype("datetime64[M]").astype("datetime64[ns]")
    return pd.Series(months, index=stamps.index, name=stamps.name).dt.tz_localize("UTC")


def definition_names(snapshot: ProgramSnapshot, ids: pd.Series) -> Any:
    """The name of each card definition ID in ``ids`` (NA when it is not in the snapshot)."""
    return names_of(snapshot.card_definitions).astype("string").reindex(ids.astype("string")).array
