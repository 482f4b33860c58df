"""What a point is worth per card definition, and the share of spend a program returns."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

import numpy as np
import pandas as pd

from ..frames.registry import FRAME_NAMES
from ..models.enums import BenefitStatus
from ..snapshot import ProgramSnapshot
from ._frames import columns
from ._spread import exchange_ratios, spread
from .earn_burn import active, burn_values, earn_rates
from .schemas import EFFECTIVE_RETURN, POINT_VALUES, PointValueSource
from .unobserved import return_reasons, value_reasons

__all__ = ["effective_return", "point_values"]

_RANGE = ("low", "median", "high")


def point_values(
    snapshot: ProgramSnapshot,
    prices: pd.DataFrame | None = None,
    override: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """One row per card definition: low / median / high value per point (``POINT_VALUES``).

    The observations are the values per point of ACTIVE rewards' burn values (see
    ``burn_values``; ``prices`` fills what the data lacks) and the exchange ratio where
    set. ``override`` (card definition ID -> minor units per point) replaces all three.
    ``reason`` says why a row's values are NA (``no point value observed``) or not what a
    point is worth (``rewards not pulled``: the exchange ratio alone).
    """
    return values_from(snapshot, burn_values(snapshot, prices), override)


def values_from(
    snapshot: ProgramSnapshot, burn: pd.DataFrame, override: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """``point_values`` from burn values already computed (``summarise`` reuses its own)."""
    defs = columns(snapshot.card_definitions, "card_definitions", ["id", "name", "status"])
    ratios = exchange_ratios(snapshot.card_definitions)
    seen = spread(active(burn), ratios)
    ids = defs["id"]
    aligned = seen.reindex(ids.to_numpy())  # one row per card definition, in its order
    observations = aligned["observations"].fillna(0).to_numpy("int64")
    frame = pd.DataFrame(
        {
            "card_definition_id": ids,
            "card_definition_name": defs["name"],
            "card_definition_status": defs["status"],
            "observations": pd.array(observations, dtype="Int64"),
            **{name: pd.array(aligned[name].to_numpy(), dtype="Float64") for name in _RANGE},
            "exchange_ratio": ids.map(ratios).astype("Float64"),
            "source": np.where(
                observations > 0, PointValueSource.OBSERVED.value, PointValueSource.NONE.value
            ),
        }
    )
    given = _override(override or {}, ids)
    if given:
        replaced = ids.isin(list(given))
        for name in _RANGE:
            frame[name] = frame[name].mask(replaced, ids.map(given)).astype("Float64")
        frame.loc[replaced, "source"] = PointValueSource.OVERRIDE.value
    frame["reason"] = value_reasons(frame["source"], snapshot.kinds).array
    return POINT_VALUES.conform(frame)


def _override(override: Mapping[str, float], ids: pd.Series) -> dict[str, float]:
    """``override`` checked: known card definition IDs, finite values at least 0."""
    known = set(ids.dropna())
    for key, value in override.items():
        if key not in known:
            raise ValueError(f"override: no card definition {key!r} in the snapshot")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"override: value of {key!r} is {value!r}; expected a number")
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"override: value of {key!r} is {value!r}; expected at least 0")
    return {k: float(v) for k, v in override.items()}


def effective_return(snapshot: ProgramSnapshot, values: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per card definition, the share of spend returned: the median points per minor unit
    of ACTIVE amount-based earning benefits x low / median / high point value
    (``EFFECTIVE_RETURN``). ``values`` defaults to ``point_values(snapshot)``; ``reason``
    says why a row's returns are NA or not what it gives back."""
    if values is None:
        values = point_values(snapshot)
    return return_from(earn_rates(snapshot), values, snapshot.kinds)


def return_from(
    rates: pd.DataFrame, values: pd.DataFrame, kinds: Collection[str] = FRAME_NAMES
) -> pd.DataFrame:
    """``effective_return`` from earn rates and point values already computed, of a
    snapshot holding ``kinds``."""
    reasons = values
    values = columns(values, "values", ["card_definition_id", "card_definition_name", *_RANGE])
    earning = rates[
        (rates["benefit_status"].astype("string") == BenefitStatus.ACTIVE.value)
        & rates["amount_based"].fillna(False)
        & rates["points_per_unit"].notna()
    ]
    per_unit = earning.astype({"points_per_unit": "float64"}).groupby("card_definition_id")[
        "points_per_unit"
    ]
    ids = values["card_definition_id"]
    earn = ids.map(per_unit.median()).astype("Float64")
    frame = pd.DataFrame(
        {
            "card_definition_id": ids,
            "card_definition_name": values["card_definition_name"],
            "earn_points_per_unit": earn,
            "benefits": ids.map(per_unit.size()).fillna(0).astype("Int64"),
            **{f"return_{name}": earn * values[name].astype("Float64") for name in _RANGE},
        }
    )
    frame["reason"] = return_reasons(frame, reasons, kinds).array
    return EFFECTIVE_RETURN.conform(frame)
