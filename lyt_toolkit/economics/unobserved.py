"""Why a headline figure cannot be given. Those a point's value decides: whether a value was
observed (``point_values``: what ACTIVE rewards' costs buy, the exchange ratio) or given
(``override``); the liability the redemption rate decides; the totals of points unknown.

Of a snapshot holding every kind, a figure can still not be given: with no value per point
observed for the card definitions owing points, the liability would sum none of them and
read 0 (none owed), the highest return would be none, and no reward cost could be judged
mispriced (0 would read as none found); with no redemption rate (``redemption_rate=None`` and
no history to estimate it from) the liability would sum none of the points owed either.
``not_observed`` says so in ``NOT_OBSERVED``'s and ``NO_RATE``'s words; a liability of points
valued at 0, or of no points owed, is 0. A total of points one of which is unknown (a card
balance or a pending bucket's points left empty, as an edited cards frame may leave them) is
None, and so is the liability: ``unknown_points`` says so in ``BALANCE_UNKNOWN``'s and
``BUCKET_UNKNOWN``'s words. Which points are unvalued is decided by the point values
(``unpriced``), never by the reasons' words: a reason only says why. The other way round, a
figure
whose card definitions are all valued by the user's ``override`` needs no reward to value
them: ``overridden`` names those figures (``figure_kinds.not_pulled`` counts no rewards for
them). Per card definition, ``value_reasons``, ``owed_reasons`` and ``return_reasons`` give
the frames' ``reason`` column in the same words.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd

from .figure_kinds import OBSERVED_FROM, not_pulled_reason
from .mispricing import MIN_OBSERVATIONS
from .schemas import PointValueSource

__all__ = [
    "BALANCE_UNKNOWN",
    "BUCKET_UNKNOWN",
    "FEW_OBSERVED",
    "NOT_EARNED",
    "NOT_OBSERVED",
    "NO_RATE",
    "not_observed",
    "overridden",
    "owed_reasons",
    "return_reasons",
    "unknown_points",
    "unpriced",
    "value_reasons",
]

NOT_OBSERVED = "no point value observed"
"""Why a figure is None when no card definition it needs has a value per point."""

NO_RATE = "no redemption rate"
"""Why the redemption rate, and the liability of points owed, are None when no rate was
given or estimated (``summarise(redemption_rate=None)`` without a history)."""

BALANCE_UNKNOWN = "a card balance unknown"
"""Why the outstanding points, and the liability, are None when a card's balance is NA."""

BUCKET_UNKNOWN = "a pending bucket's points unknown"
"""Why the pending points, and the liability, are None when a PENDING bucket's points are NA."""

NOT_EARNED = "no ACTIVE benefit earns points on spend"
"""Why the highest effective return is None when no card definition has an earn rate."""

FEW_OBSERVED = f"fewer than {MIN_OBSERVATIONS} point values observed per card definition"
"""Why no reward cost can be judged mispriced (``mispricing.MIN_OBSERVATIONS``)."""

_LIABILITY = ("liability_low", "liability_median", "liability_high")


def not_observed(
    liability: pd.DataFrame,
    effective_return: pd.DataFrame,
    point_values: pd.DataFrame,
    burn_values: pd.DataFrame,
) -> dict[str, str]:
    """Headline figure -> why it cannot be given though every kind it counts was pulled:
    the liability when points are owed and none of them has a value per point (else, when
    points are owed and there is no redemption rate: ``NO_RATE``), the highest
    effective return when no earning card definition has one (or none earns on spend:
    ``NOT_EARNED``), the mispriced rewards when there are reward costs but no card
    definition has the observations a median needs (``mispricing.MIN_OBSERVATIONS``)."""
    valued = _valued(point_values)
    out: dict[str, str] = {}
    owed = _owed(liability)
    has_value = liability["card_definition_id"].isin(valued).to_numpy()
    if (owed[~has_value] > 0).any() and not (owed[has_value] > 0).any():
        out |= dict.fromkeys(_LIABILITY, NOT_OBSERVED)
    elif (owed[liability["redemption_rate"].isna().to_numpy(bool)] > 0).any():
        out |= dict.fromkeys(_LIABILITY, NO_RATE)  # one rate for the program: none valued
    earning = effective_return["earn_points_per_unit"].notna().to_numpy(bool)
    if not earning.any():
        out["highest_effective_return"] = NOT_EARNED
    elif not effective_return["card_definition_id"][earning].isin(valued).any():
        out["highest_effective_return"] = NOT_OBSERVED
    observations = point_values["observations"].fillna(0)
    if len(burn_values) and not (observations >= MIN_OBSERVATIONS).any():
        out["mispriced_rewards"] = NOT_OBSERVED if not (observations > 0).any() else FEW_OBSERVED
    return out


def unknown_points(liability: pd.DataFrame, point_values: pd.DataFrame) -> dict[str, str]:
    """Headline figure -> why it is None though its kinds were pulled: a total of points one
    of which is unknown (``BALANCE_UNKNOWN``, ``BUCKET_UNKNOWN``), the liability, and the
    unvalued points when the unknown points have no value per point (``unpriced``)."""
    out: dict[str, str] = {}
    balance = liability["outstanding_points"].isna().to_numpy(bool)
    bucket = liability["pending_points"].isna().to_numpy(bool)
    if bucket.any():
        out["pending_points"] = BUCKET_UNKNOWN
    if balance.any():
        out["outstanding_points"] = BALANCE_UNKNOWN
    why = out.get("outstanding_points", out.get("pending_points"))
    if why is not None:
        out |= dict.fromkeys(_LIABILITY, why)
        if ((balance | bucket) & unpriced(liability, point_values).to_numpy(bool)).any():
            out["unvalued_points"] = why
    return out


def unpriced(liability: pd.DataFrame, point_values: pd.DataFrame) -> pd.Series:
    """Per ``LIABILITY`` row: whether its card definition has no value per point among the
    ``point_values`` it was valued with (no row, or its median NA): the rows whose points
    ``unvalued_points`` counts. A valued row whose values are NA for its points unknown or
    no redemption rate is not unpriced: its points have a value, the liability has no sum.
    Decided by the values, not by ``reason``'s words."""
    return ~liability["card_definition_id"].isin(_valued(point_values))


def overridden(
    liability: pd.DataFrame, effective_return: pd.DataFrame, point_values: pd.DataFrame
) -> frozenset[str]:
    """The headline figures whose card definitions all take their value per point from the
    ``override``: the liability and unvalued points when every card definition owing points
    (or points unknown) is overridden, the highest return when every earning one is. Empty
    without an override."""
    given = point_values["card_definition_id"][
        (point_values["source"].astype("string") == PointValueSource.OVERRIDE.value).to_numpy(bool)
    ]
    if given.empty:
        return frozenset()
    out: set[str] = set()
    owing = liability["card_definition_id"][~(_owed(liability) == 0)]
    if owing.isin(given).all():
        out |= {*_LIABILITY, "unvalued_points"}
    earning = effective_return["card_definition_id"][
        effective_return["earn_points_per_unit"].notna().to_numpy(bool)
    ]
    if len(earning) and earning.isin(given).all():
        out.add("highest_effective_return")
    return frozenset(out)


def value_reasons(source: pd.Series, kinds: Collection[str]) -> pd.Series:
    """Per card definition (its ``POINT_VALUES`` ``source``): why its value per point is NA
    or not what a point is worth, in the headline's words: ``"rewards not pulled"`` (at most
    the exchange ratio: ``figure_kinds.OBSERVED_FROM``), ``"no point value observed"``; NA
    when observed from every kind, or overridden."""
    source = source.astype("string")
    reason = pd.Series(pd.NA, index=source.index, dtype="string")
    pulled = not_pulled_reason(OBSERVED_FROM, kinds)
    if pulled is not None:
        reason[(source != PointValueSource.OVERRIDE.value).fillna(True)] = pulled
    else:
        reason[(source == PointValueSource.NONE.value).fillna(False)] = NOT_OBSERVED
    return reason


def _of_values(ids: pd.Series, values: pd.DataFrame) -> pd.Series:
    """Per card definition of ``ids``, the reason its value per point gives (``values``'
    ``reason``, else ``NOT_OBSERVED`` where its median is NA or it has no row)."""
    at = pd.Index(values["card_definition_id"].array).get_indexer(ids.astype("string"))
    median = values["median"].array.take(at, allow_fill=True)  # NA where it has no row
    if "reason" in values:
        found = values["reason"].astype("string").array.take(at, allow_fill=True)
    else:
        found = pd.array([pd.NA] * len(at), dtype="string")
    found[median.isna() & found.isna()] = NOT_OBSERVED
    return pd.Series(found, index=ids.index, dtype="string")


def owed_reasons(
    liability: pd.DataFrame, values: pd.DataFrame, kinds: Collection[str]
) -> pd.Series:
    """Per ``LIABILITY`` row: why its values are NA or not what the points are worth: its
    points' kinds not pulled (``"pending_buckets not pulled"``), a point's value's reason
    (``value_reasons``), its points unknown (``BALANCE_UNKNOWN``, ``BUCKET_UNKNOWN``),
    ``NO_RATE``; NA when valued."""
    reason = _of_values(liability["card_definition_id"], values)
    words = reason.to_numpy(object)  # the words set row by row, NA where none is said
    balance = liability["outstanding_points"].isna().to_numpy(bool)
    bucket = liability["pending_points"].isna().to_numpy(bool)
    owed = ("cards", "pending_buckets")
    unpulled = not_pulled_reason(owed, kinds)
    if unpulled is not None:  # with the rewards too where the value lacks them
        by_kinds = (reason.notna() & (reason != NOT_OBSERVED)).to_numpy(bool)
        words[balance | bucket] = unpulled
        words[(balance | bucket) & by_kinds] = not_pulled_reason((*OBSERVED_FROM, *owed), kinds)
    unsaid = pd.isna(words)
    words[unsaid & bucket] = BUCKET_UNKNOWN
    words[unsaid & balance] = BALANCE_UNKNOWN
    words[pd.isna(words) & liability["redemption_rate"].isna().to_numpy(bool)] = NO_RATE
    return pd.Series(pd.array(words, dtype="string"), index=liability.index)


def return_reasons(
    effective_return: pd.DataFrame, values: pd.DataFrame, kinds: Collection[str]
) -> pd.Series:
    """Per ``EFFECTIVE_RETURN`` row: why its returns are NA or not what a point is worth:
    the benefits not pulled, ``NOT_EARNED``, a point's value's reason; NA when known."""
    reason = _of_values(effective_return["card_definition_id"], values)
    earning = effective_return["earn_points_per_unit"].notna().to_numpy(bool)
    why = not_pulled_reason(("benefits",), kinds) or NOT_EARNED
    return reason.mask(~earning, why)


def _valued(point_values: pd.DataFrame) -> pd.Series:
    """The IDs of the card definitions with a value per point (observed or overridden)."""
    return point_values["card_definition_id"][point_values["median"].notna().to_numpy(bool)]


def _owed(liability: pd.DataFrame) -> np.ndarray:
    """Per liability row, the points owed (outstanding + pending) as floats, NaN unknown."""
    points = liability["outstanding_points"] + liability["pending_points"]
    return points.astype("Float64").to_numpy("float64", na_value=float("nan"))
