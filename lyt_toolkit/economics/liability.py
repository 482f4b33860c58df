"""What the program owes: points outstanding and pending, valued, times expected redemption.

``liability`` follows the usual deferred-revenue reading (IFRS 15 B39-B43 / ASC 606): the
points are a separate obligation worth points x value per point x expected redemption rate,
and breakage is 1 - redemption rate. ``recognised_revenue`` is IFRS 15's allocation method for
the revenue of points as they are redeemed.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from numbers import Real

import pandas as pd
from pandas.api.extensions import ExtensionArray

from ..frames.registry import FRAME_NAMES
from ..models.enums import PendingBucketStatus
from ..snapshot.model import ProgramSnapshot
from ._common import definition_names, sum_by, weighted, whole
from .schemas import LIABILITY
from .unobserved import owed_reasons
from .value import point_values

__all__ = ["liability", "liability_from", "points_by_definition", "recognised_revenue"]

VALUE_COLUMNS = ("card_definition_id", "low", "median", "high")
"""The columns ``liability`` reads from a point values frame (see ``point_values``)."""


def liability(
    snapshot: ProgramSnapshot,
    values: pd.DataFrame | None = None,
    redemption_rate: float | None = 1.0,
) -> pd.DataFrame:
    """One row per card definition: outstanding and pending points and their value.

    Each value column is (outstanding + pending points) x value per point x
    ``redemption_rate``, in minor units. ``values`` is a frame with
    ``card_definition_id, low, median, high`` (minor units per point); by default
    ``point_values(snapshot)`` (pass your own for prices or overrides).
    ``redemption_rate`` is the share of the points expected to be redeemed, between 0
    and 1: 1.0 (the default) is the conservative figure; ``estimate_redemption_rate``
    gives one from a history; None leaves every value NA. A card definition without a
    point value, or with a card whose balance is unknown, has NA values, never 0; ``reason``
    says why (``no point value observed``, ``pending_buckets not pulled``), or why its
    values are not what the points are worth (``rewards not pulled``).
    """
    if values is None:
        values = point_values(snapshot)
    return liability_from(points_by_definition(snapshot), values, redemption_rate, snapshot.kinds)


def liability_from(
    points: pd.DataFrame,
    values: pd.DataFrame,
    redemption_rate: float | None = 1.0,
    kinds: Collection[str] = FRAME_NAMES,
) -> pd.DataFrame:
    """``liability`` from the points owed (``points_by_definition``) already summed, of a
    snapshot holding ``kinds``: a what-if that changes only the values per point values the
    same points again."""
    rate = _checked_rate(redemption_rate)
    prices = _checked_values(values)
    # The values' row of each card definition (-1: none), found once for the three columns;
    # the arithmetic on the columns' arrays, a frame built once: no join, no assign.
    at = pd.Index(prices["card_definition_id"]).get_indexer(points["card_definition_id"])
    low, median, high = (prices[c].array.take(at, allow_fill=True) for c in VALUE_COLUMNS[1:])
    outstanding = points["outstanding_points"].array
    pending = points["pending_points"].array
    total = (outstanding + pending).astype("Float64") * rate
    frame = pd.DataFrame(
        {
            "card_definition_id": points["card_definition_id"].array,
            "card_definition_name": points["card_definition_name"].array,
            "outstanding_points": outstanding,
            "pending_points": pending,
            "redemption_rate": pd.array([rate] * len(points), dtype="Float64"),
            "value_low": total * low,
            "value_median": total * median,
            "value_high": total * high,
            "outstanding_value_median": outstanding.astype("Float64") * rate * median,
            "pending_value_median": pending.astype("Float64") * rate * median,
        },
        index=points.index,
    )
    frame["reason"] = owed_reasons(frame, values, kinds).array
    return LIABILITY.conform(frame)


def points_by_definition(snapshot: ProgramSnapshot) -> pd.DataFrame:
    """Per card definition (listed or referenced by a card or bucket): points owed.

    Columns ``card_definition_id, card_definition_name, outstanding_points`` (sum of its
    cards' balances) and ``pending_points`` (sum of its PENDING buckets); 0 when it has
    none, NA when one of them is unknown, or when the snapshot was pulled without its
    kind (``kinds=``: no card or no bucket was read, which is not none). On a sampled
    snapshot the sums are weighted: the sample's estimates of the program's totals, to
    the nearest point.
    """
    buckets = snapshot.pending_buckets
    outstanding = _summed(snapshot, "cards", snapshot.cards, "balance_points")
    pending = buckets[buckets["status"] == PendingBucketStatus.PENDING]
    waiting = _summed(snapshot, "pending_buckets", pending, "points_total")
    listed = pd.Index(snapshot.card_definitions["id"].astype("string"))
    ids = listed.union(outstanding.index).union(waiting.index).dropna().unique().sort_values()
    return pd.DataFrame(
        {
            "card_definition_id": ids.astype("string").array,
            "card_definition_name": definition_names(snapshot, pd.Series(ids)),
            "outstanding_points": _owed(snapshot, "cards", outstanding, ids),
            "pending_points": _owed(snapshot, "pending_buckets", waiting, ids),
        }
    )


def _summed(snapshot: ProgramSnapshot, kind: str, rows: pd.DataFrame, column: str) -> pd.Series:
    """Per card definition, the (weighted) sum of ``rows[column]``; nothing when the
    snapshot does not hold ``kind``."""
    if kind not in snapshot.kinds:
        return pd.Series([], index=pd.Index([], dtype="string"), dtype="Int64")
    values = weighted(snapshot, rows, column)
    return whole(sum_by(values.groupby(rows["card_definition_id"].astype("string"))))


def _owed(snapshot: ProgramSnapshot, kind: str, sums: pd.Series, ids: pd.Index) -> ExtensionArray:
    """``sums`` for each of ``ids`` (0 for one without rows); all NA when the snapshot does
    not hold ``kind``: its points are unknown."""
    if kind not in snapshot.kinds:
        return pd.array([pd.NA] * len(ids), dtype="Int64")
    return sums.reindex(ids, fill_value=0).astype("Int64").array


def _checked_rate(rate: float | None, name: str = "redemption_rate") -> float:
    """The rate as a float (NaN for None); ValueError naming ``name`` unless 0 <= rate <= 1."""
    if rate is None:
        return math.nan
    if isinstance(rate, bool) or not isinstance(rate, Real) or not 0 <= float(rate) <= 1:
        raise ValueError(f"{name} must be a number from 0 to 1, got {rate!r}")
    return float(rate)


def _checked_values(values: pd.DataFrame) -> pd.DataFrame:
    """The point values' columns ``VALUE_COLUMNS`` typed; errors name the column at fault."""
    missing = [c for c in VALUE_COLUMNS if c not in values.columns]
    if missing:
        raise ValueError(f"values: lacks columns {missing} (as point_values returns them)")
    ids = values["card_definition_id"].astype("string")
    if ids.duplicated().any():
        raise ValueError(f"values: card_definition_id repeats {sorted(set(ids[ids.duplicated()]))}")
    out = {"card_definition_id": ids}
    for column in VALUE_COLUMNS[1:]:
        try:
            typed = values[column].array.astype("Float64")
        except (TypeError, ValueError):
            raise ValueError(f"values: column {column!r} holds a non-number") from None
        number = typed.to_numpy("float64", na_value=0.0)  # NA passes; NaN, inf, < 0 do not
        bad = ~((number >= 0) & (number < math.inf))
        if bad.any():
            row = bad.argmax()
            raise ValueError(
                f"values: column {column!r} must be finite and not negative; "
                f"card definition {ids.iloc[row]} has {typed[row]}"
            )
        out[column] = typed
    return pd.DataFrame(out, index=values.index)


def recognised_revenue(
    allocated: float, points_issued: float, expected_redemption: float, redeemed: float
) -> float:
    """Revenue recognised to date for points, by IFRS 15's allocation method (B39-B43).

    The transaction price ``allocated`` to the points (by relative standalone selling
    price, when they were issued) is recognised as they are redeemed, in proportion to
    the points expected to be redeemed::

        recognised = allocated x redeemed / (points_issued x expected_redemption)

    capped at ``allocated``; the rest (``allocated - recognised``) is the deferred revenue
    (the contract liability). The figure is cumulative: with a revised expectation the
    next period recognises the new cumulative figure less what was recognised before.

    Worked examples. IFRS 15's Illustrative Example 52: sales of 100,000 earn 10,000
    points whose standalone selling price is 9,500 (95 % expected to be redeemed), so
    100,000 x 9,500 / 109,500 = 8,676 is allocated to the points. After year 1, with
    4,500 redeemed, ``recognised_revenue(8_676, 10_000, 0.95, 4_500)`` = 4,110; after
    year 2, the expectation revised to 97 % and 8,500 redeemed in all,
    ``recognised_revenue(8_676, 10_000, 0.97, 8_500)`` = 7,603 cumulative (3,493 in the
    year). With 9,000 allocated, 97 % expected and 4,500 redeemed,
    ``recognised_revenue(9_000, 10_000, 0.97, 4_500)`` = 9,000 x 4,500 / 9,700 = 4,175
    (4,175.26), and 4,825 stays deferred.

    Amounts are in whatever unit ``allocated`` is in (minor units for the toolkit's
    figures); the result is not rounded.
    """
    _check_amount("allocated", allocated, positive=False)
    _check_amount("points_issued", points_issued, positive=True)
    _check_amount("redeemed", redeemed, positive=False)
    if expected_redemption is None:
        raise ValueError("expected_redemption must be a number from 0 to 1, got None")
    rate = _checked_rate(expected_redemption, "expected_redemption")
    if rate == 0:
        raise ValueError("expected_redemption must be above 0 (no points expected redeemed)")
    return min(float(allocated), float(allocated) * redeemed / (points_issued * rate))


def _check_amount(name: str, value: float, *, positive: bool) -> None:
    ok = (
        isinstance(value, Real)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (value > 0 if positive else value >= 0)
    )
    if not ok:
        needed = "above 0" if positive else "0 or more"
        raise ValueError(f"{name} must be a finite number {needed}, got {value!r}")
