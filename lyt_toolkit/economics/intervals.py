"""The program totals of a sampled snapshot, each with its 95 % confidence interval.

A sampled snapshot holds the cards and pending buckets of a stratified sample of members
(``ProgramSnapshot.sampled``). The economics frames then weigh each row by the members its
member stands for; ``estimates`` adds what the weighted sums cannot say: how far from them
the program's true totals may be. Each total is ``frames.sample.estimate_total`` of a figure
per sampled member (its points of a card definition, or their value), so the interval
accounts for members holding several cards. Values per point come from the rewards, which
are read whole: they are taken as fixed, and the intervals come from the points alone.
"""

from __future__ import annotations

import pandas as pd

from ..frames.sample import SampleDesign, estimate_totals
from ..models.enums import PendingBucketStatus
from ..snapshot.model import ProgramSnapshot
from ._common import first_of_month
from ._frames import names_of
from .liability import _checked_rate, _checked_values
from .schemas import ESTIMATES
from .value import point_values

__all__ = ["difference_estimates", "estimates", "estimates_and_members"]

_LEVELS = ("low", "median", "high")
_FIGURES = (
    "outstanding_points",
    "pending_points",
    *(f"liability_{level}" for level in _LEVELS),
    "pending_schedule_points",
)


def estimates(
    snapshot: ProgramSnapshot,
    values: pd.DataFrame | None = None,
    redemption_rate: float | None = 1.0,
) -> pd.DataFrame:
    """The totals of ``liability`` and ``pending_schedule`` with 95 % intervals (``ESTIMATES``).

    Per card definition and for the program (``card_definition_id`` NA): outstanding and
    pending points, and the liability at the low, median and high value per point
    (``values`` and ``redemption_rate`` as ``liability`` takes them; the program's
    liability sums the card definitions whose points have a value, as the headline does);
    per card definition x activation month, and per month for the program, the PENDING
    points. A census (every member sampled) gives exact figures (``se`` 0); a snapshot
    that is not sampled is refused: its totals are exact already.
    """
    return estimates_and_members(snapshot, values, redemption_rate)[0]


def estimates_and_members(
    snapshot: ProgramSnapshot,
    values: pd.DataFrame | None = None,
    redemption_rate: float | None = 1.0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``estimates``, and the figures per sampled member it sums (member ID x (figure,
    card definition, month)): what ``difference_estimates`` pairs."""
    if snapshot.sample is None:
        raise ValueError("estimates need a sampled snapshot (ProgramSnapshot.sampled)")
    rate = _checked_rate(redemption_rate)
    prices = _checked_values(point_values(snapshot) if values is None else values)
    prices = prices.set_index("card_definition_id")
    buckets = snapshot.pending_buckets
    waiting = buckets[buckets["status"] == PendingBucketStatus.PENDING]
    outstanding = _per_member(snapshot.cards, "balance_points")
    pending = _per_member(waiting, "points_total")
    listed = pd.Index(snapshot.card_definitions["id"].dropna().astype("string").unique())
    definitions = listed.union(outstanding.columns).union(pending.columns)
    members = outstanding.index.union(pending.index)
    outstanding = outstanding.reindex(index=members, columns=definitions, fill_value=0.0)
    pending = pending.reindex(index=members, columns=definitions, fill_value=0.0)
    held = {"outstanding_points": "cards", "pending_points": "pending_buckets"}
    figures = {
        name: frame
        for name, frame in (("outstanding_points", outstanding), ("pending_points", pending))
        if held[name] in snapshot.kinds  # a kind not pulled: its points are not estimated
    }
    medians = prices["median"].reindex(definitions)
    valued = list(medians.index[medians.notna()])
    owed = (outstanding + pending)[valued]
    for level in _LEVELS if len(figures) == len(held) else ():
        figures[f"liability_{level}"] = owed * (prices[level].astype("float64")[valued] * rate)
    parts = {name: _undated(_with_total(frame)) for name, frame in figures.items()}
    if "pending_buckets" not in snapshot.kinds:
        waiting = waiting.iloc[:0]
    dated = waiting[waiting["date"].notna()]
    month = first_of_month(dated["date"]).rename("month")
    schedule = pd.concat(
        [
            _per_member(dated, "points_total", month),
            _per_member(dated.assign(card_definition_id=_ALL), "points_total", month),
        ],
        axis=1,
    )
    if isinstance(schedule.columns, pd.MultiIndex):  # some bucket is dated
        parts["pending_schedule_points"] = schedule
    rows: pd.Index = pd.Index([], dtype="string", name="member_id")
    for part in parts.values():
        rows = rows.union(part.index)
    wide = pd.concat(  # a member without a row of a part holds 0 of it; NA stays unknown
        [part.reindex(rows, fill_value=0.0) for part in parts.values()], axis=1, keys=list(parts)
    )
    names = names_of(snapshot.card_definitions)
    return _estimates_frame(names, estimate_totals(snapshot.sample, wide)), wide


def difference_estimates(
    design: SampleDesign, before: pd.DataFrame, after: pd.DataFrame, names: pd.Series
) -> pd.DataFrame:
    """The change of each total from ``before`` to ``after`` (figures per member, as
    ``estimates_and_members`` gives them, of the same sample ``design``), estimated from
    the members' own differences: paired, so the interval is that of the change, not of
    either side (``ESTIMATES`` rows; ``names``: card definition ID -> name)."""
    columns = before.columns.union(after.columns, sort=False)
    members = before.index.union(after.index)
    change = after.reindex(index=members, columns=columns, fill_value=0.0) - before.reindex(
        index=members, columns=columns, fill_value=0.0
    )
    return _estimates_frame(names, estimate_totals(design, change))


def _undated(wide: pd.DataFrame) -> pd.DataFrame:
    """``wide``'s columns as (card definition, month NaT), as the schedule's are keyed."""
    columns = pd.MultiIndex.from_arrays(
        [wide.columns, pd.DatetimeIndex([pd.NaT] * len(wide.columns), tz="UTC")],
        names=["card_definition_id", "month"],
    )
    return wide.set_axis(columns, axis=1)


_ALL = ""
"""The key of a program total among card definition IDs (an ID is never empty)."""


def _per_member(rows: pd.DataFrame, column: str, *keys: pd.Series) -> pd.DataFrame:
    """Member x card definition (x ``keys``): the sum of ``column`` (NA when one of its
    values is unknown; 0 when the member has none)."""
    frame = pd.DataFrame(
        {
            "member_id": rows["member_id"].astype("string"),
            "card_definition_id": rows["card_definition_id"].astype("string"),
            **{str(k.name): k for k in keys},
            "value": rows[column].astype("float64"),
        }
    )
    names = ["card_definition_id", *(str(k.name) for k in keys)]
    grouped = frame.groupby(["member_id", *names])["value"]
    sums = grouped.sum().mask(grouped.count() < grouped.size())
    if sums.empty:
        return pd.DataFrame(index=pd.Index([], dtype="string", name="member_id"))
    return sums.unstack(names, fill_value=0)  # a member without such a row holds 0


def _with_total(wide: pd.DataFrame) -> pd.DataFrame:
    """``wide`` with a last column ``_ALL`` holding each member's sum across the columns."""
    return wide.assign(**{_ALL: wide.sum(axis=1, skipna=False)})


def _estimates_frame(names: pd.Series, totals: pd.DataFrame) -> pd.DataFrame:
    """``ESTIMATES`` rows from totals indexed by (figure, card definition[, month]);
    ``names``: card definition ID -> name."""
    index = totals.index
    ids = pd.Series(index.get_level_values(1), dtype="string")
    frame = pd.DataFrame(
        {
            "figure": index.get_level_values(0),
            "card_definition_id": ids.mask(ids == _ALL).array,
            "month": pd.DatetimeIndex(index.get_level_values(2)).tz_convert("UTC"),
            "estimate": totals["value"].to_numpy(),
            "ci_low": totals["low"].to_numpy(),
            "ci_high": totals["high"].to_numpy(),
            "se": totals["se"].to_numpy(),
        }
    )
    ids = frame["card_definition_id"].astype("string")
    frame["card_definition_name"] = names.astype("string").reindex(ids).array
    order = frame.assign(figure=pd.Categorical(frame["figure"], categories=_FIGURES))
    order = order.sort_values(["figure", "card_definition_id", "month"], na_position="last")
    return ESTIMATES.conform(frame.loc[order.index].reset_index(drop=True))
