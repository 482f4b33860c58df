"""``summarise``: every economics frame of a snapshot at once, with its headline figures."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..frames.registry import FRAME_NAMES
from ..frames.sample import SampleDesign
from .earn_burn import burn_from, earn_rates, observed, repriced
from .figure_kinds import not_pulled
from .history import economics_over_time, estimate_redemption_rate
from .intervals import estimates_and_members
from .liability import liability_from, points_by_definition
from .mispricing import mispriced
from .schedules import expiry_from, pending_schedule
from .schemas import OVER_TIME
from .unobserved import NO_RATE, not_observed, overridden, unknown_points, unpriced
from .value import return_from, values_from

if TYPE_CHECKING:
    from ..snapshot.history import SnapshotHistory
    from ..snapshot.model import ProgramSnapshot

__all__ = ["ESTIMATED", "READS", "Economics", "resummarise", "summarise"]

_LEVELS = ("low", "median", "high")


@dataclass(frozen=True)
class Economics:
    """A snapshot's economics: each frame, where it came from, and the headline figures.

    Of a sampled snapshot (``ProgramSnapshot.sampled``), the totals are estimates: ``sample``
    says from which sample, ``estimates`` gives each total's 95 % interval, and the headline
    adds ``<figure>_ci_low`` and ``<figure>_ci_high`` after each total.
    """

    source: str
    pulled_at: pd.Timestamp
    redemption_rate: float
    redemption_method: str
    """Where ``redemption_rate`` comes from: given, the default, or the history's estimate."""
    earn_rates: pd.DataFrame
    burn_values: pd.DataFrame
    point_values: pd.DataFrame
    effective_return: pd.DataFrame
    liability: pd.DataFrame
    pending_schedule: pd.DataFrame
    expiry_schedule: pd.DataFrame
    mispriced: pd.DataFrame
    over_time: pd.DataFrame
    estimates: pd.DataFrame | None = None
    """Of a sampled snapshot: each total with its 95 % interval (``ESTIMATES``); else None."""
    sample: SampleDesign | None = None
    """The sample the totals are estimated from (None: every member was read)."""
    per_member: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    """Of a sampled snapshot: each sampled member's share of every estimated total (the
    figures ``estimates`` sums), so that a what-if's difference is estimated from the same
    members (paired); else None."""
    owed_points: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    """The points owed per card definition (``points_by_definition``) the liability values:
    a what-if that changes only values per point reuses them."""
    observed: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    """The burn values' costs x rewards join (``earn_burn.observed``): a what-if that
    changes only reward costs' points reuses it."""
    kinds: frozenset[str] = field(default=frozenset(FRAME_NAMES), repr=False)
    """The kinds the snapshot holds (``ProgramSnapshot.kinds``): a headline figure counting
    one it was pulled without is None (``not_pulled``, ``not_given``)."""

    def frames(self) -> dict[str, pd.DataFrame]:
        """Frame name -> frame, in reading order (the report's CSV files); ``estimates``
        last, for a sampled snapshot."""
        extra = {} if self.estimates is None else {"estimates": self.estimates}
        return {
            "earn_rates": self.earn_rates,
            "burn_values": self.burn_values,
            "point_values": self.point_values,
            "effective_return": self.effective_return,
            "liability": self.liability,
            "pending_schedule": self.pending_schedule,
            "expiry_schedule": self.expiry_schedule,
            "mispriced": self.mispriced,
            "economics_over_time": self.over_time,
            **extra,
        }

    @property
    def headline(self) -> dict[str, float | None]:
        """The figures a reader wants first (money in minor units; NA as None).

        Liability sums the card definitions whose points have a value; ``unvalued_points``
        are the outstanding and pending points of those without a value per point (with
        no redemption rate, or points unknown, the points valued are not unvalued). A total
        of points some of which are unknown (a balance left unknown) is None, and so is the
        liability. A figure counting a kind the snapshot was pulled without (``kinds=``: the
        pending points without the pending buckets, the liability and the return without the
        rewards a point's value is observed from, unless the override values every card
        definition they need, the mispriced rewards without the card definitions, ...;
        ``figure_kinds.FIGURE_KINDS``) is None, and so is one that no observed value per
        point can give (points owed and none of them valued: not a liability of 0;
        ``unobserved``), and the liability of points owed with no redemption rate;
        ``not_given`` says why.
        Of a sampled snapshot, each total is the sample's estimate, followed by its 95 %
        interval's ends (``outstanding_points_ci_low``, ``outstanding_points_ci_high`` and
        so on).
        """
        owed = self.liability
        points = owed["outstanding_points"] + owed["pending_points"]
        unvalued = owed["value_median"].isna()
        known = not points.isna().any()  # else what some points are worth is unknown too
        figures = {
            "card_definitions": len(owed),
            "outstanding_points": _total(owed["outstanding_points"]),
            "pending_points": _total(owed["pending_points"]),
            "redemption_rate": self.redemption_rate,
            **{
                f"liability_{level}": _total(owed[f"value_{level}"][~unvalued]) if known else None
                for level in _LEVELS
            },
            "unvalued_points": _total(points[unpriced(owed, self.point_values)]),
            "highest_effective_return": _plain(self.effective_return["return_median"].max()),
            "mispriced_rewards": self.mispriced["reward_id"].nunique(),
        }
        left = self.not_given
        figures |= dict.fromkeys(left)  # no finding: a kind it counts was not read, ...
        if self.estimates is None:
            return figures
        return _with_intervals(figures, self.estimates, left)

    @property
    def not_pulled(self) -> dict[str, str]:
        """Headline figure -> why it is None: the kinds it counts that the snapshot was
        pulled without (``"rewards, reward_costs not pulled"``; ``figure_kinds``); empty
        of a snapshot holding every kind. The rewards and reward costs are not counted for
        a figure whose card definitions the override values all (``unobserved.overridden``)."""
        return not_pulled(
            self.kinds, overridden(self.liability, self.effective_return, self.point_values)
        )

    @property
    def not_given(self) -> dict[str, str]:
        """Headline figure -> why ``headline`` gives it as None: ``not_pulled``'s reasons,
        and ``"no point value observed"`` for a figure no value per point observed can give
        though every kind it counts was pulled (``unobserved.not_observed``), ``"no
        redemption rate"`` for the rate and the liability of points owed at
        ``redemption_rate=None`` with no history to estimate it from, ``"a card balance
        unknown"`` (``unobserved.unknown_points``) for the totals of points one of which is
        unknown and the liability; empty when every figure is given."""
        return dict(self._not_given)

    @cached_property
    def _not_given(self) -> dict[str, str]:
        """``not_given``, worked out once: a report and a what-if read it several times."""
        seen = not_observed(
            self.liability, self.effective_return, self.point_values, self.burn_values
        )
        rate = {"redemption_rate": NO_RATE} if math.isnan(self.redemption_rate) else {}
        unknown = unknown_points(self.liability, self.point_values)
        return {**rate, **seen, **unknown, **self.not_pulled}


ESTIMATED = ("outstanding_points", "pending_points", *(f"liability_{x}" for x in _LEVELS))
"""The headline figures a sample estimates (with an interval)."""


def _with_intervals(
    figures: dict[str, float | None], estimates: pd.DataFrame, left: Collection[str]
) -> dict[str, float | None]:
    """The headline with each estimated total taken from ``estimates`` (so that it is the
    middle of its interval) and followed by the interval's ends; but those ``left`` (a
    kind they count not pulled, no point value observed), which stay None."""
    program = estimates[estimates["card_definition_id"].isna() & estimates["month"].isna()]
    rows = program.set_index("figure")
    out: dict[str, float | None] = {}
    for name, value in figures.items():
        if name not in ESTIMATED or name not in rows.index or name in left:
            out[name] = value
            continue
        row = rows.loc[name]
        points = name.endswith("_points")  # to the nearest point, as the liability frame
        for key, column in ((name, "estimate"), (f"{name}_ci_low", "ci_low"),
                            (f"{name}_ci_high", "ci_high")):  # fmt: skip
            figure = _plain(row[column])
            out[key] = round(figure) if points and figure is not None else figure
    return out


def _plain(value: Any) -> float | None:
    """A figure as a plain float, None when unknown."""
    return None if value is None or pd.isna(value) else float(value)


def _total(column: pd.Series) -> float | None:
    """The sum, None when a value in it is unknown."""
    return _plain(column.sum(min_count=0, skipna=False))


def summarise(
    snapshot: ProgramSnapshot,
    prices: pd.DataFrame | None = None,
    redemption_rate: float | None = 1.0,
    history: SnapshotHistory | None = None,
    override: Mapping[str, float] | None = None,
) -> Economics:
    """Every economics frame of ``snapshot``: point values from its rewards (and ``prices``:
    ``id``, ``value`` in minor units; ``override``: card definition ID -> minor units per
    point, replacing what was observed), liability at ``redemption_rate`` (1.0: every point
    redeemed, the conservative figure; None: estimated from the ``history``, which needs at
    least two snapshots), and the ``history``'s liability over time at today's point values.
    Of a sampled snapshot the totals are estimates, each with its 95 % interval
    (``Economics.estimates``)."""
    return _summarise(snapshot, prices, redemption_rate, history, override, None, ())


READS: Mapping[str, frozenset[str]] = {
    "earn_rates": frozenset({"benefits", "card_definitions"}),
    "burn_values": frozenset({"rewards", "reward_costs", "card_definitions"}),
    "point_values": frozenset({"card_definitions"}),
    "liability": frozenset({"cards", "pending_buckets", "card_definitions"}),
    "pending_schedule": frozenset({"pending_buckets", "programs", "members", "card_definitions"}),
    "expiry_schedule": frozenset({"cards", "pending_buckets", "card_definitions"}),
}
"""Economics frame -> the snapshot's kinds it reads beside the frames it is computed from
(point values from burn values, the return from earn rates and point values, ...):
``resummarise`` computes a frame again only when one of them changed."""


def resummarise(
    previous: Economics,
    snapshot: ProgramSnapshot,
    changed: Collection[str],
    prices: pd.DataFrame | None = None,
    redemption_rate: float | None = 1.0,
    history: SnapshotHistory | None = None,
    override: Mapping[str, float] | None = None,
) -> Economics:
    """``summarise(snapshot, ...)``, given the ``previous`` economics, with the same
    arguments, of a snapshot that differs from ``snapshot`` only in the kinds ``changed``:
    each frame reading none of them (``READS``), nor any frame computed again, is taken
    from ``previous`` as it is. A what-if of an edit to the rewards does not value the
    members' points again."""
    return _summarise(snapshot, prices, redemption_rate, history, override, previous, changed)


def _summarise(
    snapshot: ProgramSnapshot,
    prices: pd.DataFrame | None,
    redemption_rate: float | None,
    history: SnapshotHistory | None,
    override: Mapping[str, float] | None,
    previous: Economics | None,
    changed: Collection[str],
) -> Economics:
    """``summarise``; with ``previous``, reusing each frame no ``changed`` kind reaches."""
    if redemption_rate is None and history is not None:
        redemption_rate, method = estimate_redemption_rate(history)
    elif redemption_rate is None:
        method = "not stated and no history to estimate it from: liability values are NA"
    elif redemption_rate == 1.0:
        method = "1.0, the conservative default: every point is redeemed"
    else:
        method = f"{redemption_rate} as given"
    kinds = frozenset(changed)

    def again(name: str, *inputs: bool) -> bool:
        return previous is None or bool(READS.get(name, frozenset()) & kinds) or any(inputs)

    old = previous
    new_rates = again("earn_rates")
    rates = earn_rates(snapshot) if new_rates or old is None else old.earn_rates
    new_burn = again("burn_values")
    seen: pd.DataFrame | None
    if new_burn or old is None:
        seen = _observed(snapshot, prices, old, kinds)
        burn = burn_from(snapshot, seen)
    else:
        burn, seen = old.burn_values, old.observed
    new_values = again("point_values", new_burn)
    if new_values or old is None:
        values = values_from(snapshot, burn, override)
    else:
        values = old.point_values
    if history is None:
        over_time = OVER_TIME.empty()
    elif new_values or old is None:
        over_time = economics_over_time(history, values, redemption_rate)
    else:
        over_time = old.over_time
    new_owed = again("liability", new_values)
    sampled = snapshot.sample is not None
    points: pd.DataFrame | None
    if old is None or new_owed:
        points = (
            old.owed_points
            if old is not None and old.owed_points is not None and not READS["liability"] & kinds
            else points_by_definition(snapshot)
        )
        owed = liability_from(points, values, redemption_rate, snapshot.kinds)
        totals, per_member = (
            estimates_and_members(snapshot, values, redemption_rate) if sampled else (None, None)
        )
    else:
        owed, totals, per_member = old.liability, old.estimates, old.per_member
        points = old.owed_points
    return Economics(
        source=snapshot.source,
        pulled_at=snapshot.pulled_at,
        redemption_rate=float("nan") if redemption_rate is None else float(redemption_rate),
        redemption_method=method,
        earn_rates=rates,
        burn_values=burn,
        point_values=values,
        effective_return=(
            return_from(rates, values, snapshot.kinds)
            if old is None or new_rates or new_values
            else old.effective_return
        ),
        liability=owed,
        pending_schedule=(
            pending_schedule(snapshot)
            if old is None or again("pending_schedule")
            else old.pending_schedule
        ),
        expiry_schedule=(
            expiry_from(snapshot, points_by_definition(snapshot) if points is None else points)
            if old is None or again("expiry_schedule")
            else old.expiry_schedule
        ),
        mispriced=mispriced(burn, values) if old is None or new_values else old.mispriced,
        over_time=over_time,
        estimates=totals,
        sample=snapshot.sample,
        per_member=per_member,
        owed_points=points,
        observed=seen,
        kinds=snapshot.kinds,
    )


def _observed(
    snapshot: ProgramSnapshot,
    prices: pd.DataFrame | None,
    old: Economics | None,
    kinds: frozenset[str],
) -> pd.DataFrame:
    """The burn values' costs x rewards join: ``old``'s with the new points when only
    reward costs changed, and only in their points; else joined again."""
    if (
        old is not None
        and old.observed is not None
        and READS["burn_values"] & kinds == {"reward_costs"}
    ):
        seen = repriced(old.observed, snapshot)
        if seen is not None:
            return seen
    return observed(snapshot, prices)
