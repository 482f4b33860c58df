"""Small helpers shared by the economics frames."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..snapshot.model import ProgramSnapshot
from ._frames import names_of


def sum_by(grouped: Any) -> pd.Series:
    """The sum of each group of a ``SeriesGroupBy``; NA for a group holding an NA."""
    return grouped.sum().mask(grouped.count() < grouped.size())


def first_of_month(stamps: pd.Series) -> pd.Series:
    """Each UTC instant's first day of the month, 00:00 UTC."""
    naive = stamps.dt.tz_convert("UTC").dt.tz_localize(None)
    return (
        naive.dt.to_period("M")
        .dt.to_timestamp()
        .dt.tz_localize("UTC")
        .astype("datetime64[ns, UTC]")
    )


def definition_names(snapshot: ProgramSnapshot, ids: pd.Series) -> Any:
    """The name of each card definition ID in ``ids`` (NA when it is not in the snapshot)."""
    return names_of(snapshot.card_definitions).astype("string").reindex(ids.astype("string")).array
