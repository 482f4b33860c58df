"""Stratified samples of a program's members, and the totals estimated from them.

Reading a member (its cards, then its pending buckets) costs a call per member, while listing
the members costs one call per 100: on a program of 20,000 members a full pull spends the
service's hourly allowance several times over. A sampled pull lists every member, draws a
stratified simple random sample from the list (``draw_sample``) and reads only those members;
``estimate_total`` then turns a figure per sampled member into a program total with a 95 %
confidence interval.

The design is the textbook one (Cochran, *Sampling Techniques*, ch. 5). Members are cut into
strata by what the list shows before a member is read (``Sample.by``): the program, the
status and the join date, cut into ``Sample.bands`` bands of equal size (quantiles of
``created_at``). By default the sample is drawn in two rounds: a pilot, each stratum's share
proportional to its size, is read first, and the rest goes where the pilot found the points
(each stratum's share proportional to its size times its pilot's mean points: Neyman's
allocation for points that spread in proportion to their level, as a lognormal tail does).
Every stratum gets at least two members when it has two (one member gives no variance), and
its members are drawn without replacement. Each sampled member stands for
``weight = N_h / n_h`` members of its stratum. A total is estimated by
``sum_h N_h * mean_h`` with variance ``sum_h N_h^2 (1 - n_h / N_h) s_h^2 / n_h``
(finite-population corrected, so a census has none).

The interval is not the symmetric estimate +- 1.96 standard errors. Points are heavy-tailed
(a few members hold much), and a sample that misses the few both estimates low and sees
little spread: the symmetric interval then covers the truth in about 88-91 of 100 samples
of generated programs instead of 95. So it is corrected for the estimator's skewness (its
third cumulant ``sum_h N_h^3 (1 - f_h)(1 - 2 f_h) m3_h / n_h^2`` over its variance to the
1.5), by Hall's monotone cubic transformation of the studentized total (P. Hall, "On the
removal of skewness by transformation", JRSS B 54, 1992): its upper end lies further from the
estimate than its lower end when the figure is skewed to the right, and coverage on the same
programs rises to about 91-93 of 100. A figure without skew gets the usual interval.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

from .._text import counted

__all__ = [
    "ALLOCATIONS",
    "PILOT_PER_STRATUM",
    "PILOT_SHARE",
    "SHRINK",
    "STRATA_BY",
    "Estimate",
    "Sample",
    "SampleDesign",
    "SampleDraw",
    "draw_sample",
    "estimate_total",
    "estimate_totals",
    "member_points",
]

STRATA_BY = ("program", "status", "joined")
"""What a stratum may be cut by, all visible in the members list: program, status, join band."""

ALLOCATIONS = ("adaptive", "proportional", "tenure")
"""How ``Sample.allocation`` may share the sample among the strata."""

PILOT_SHARE = 0.4
"""The share of an adaptive sample's ``n`` drawn first, proportionally, as its pilot."""

PILOT_PER_STRATUM = 15
"""An adaptive sample's pilot holds at least this many members a stratum: it cuts fewer join
bands than ``Sample.bands`` when it must (one at least), and when even that leaves fewer (a
small ``n`` over many programs), the sample is drawn in one round, proportionally. A pilot of
a few members a stratum cannot tell the strata apart: following it, 86 to 88 of 100 intervals
held the true total where one round's held 91 to 96 (``benchmarks/scale.py designs``)."""

SHRINK = 40
"""An adaptive sample allocates by each stratum's pilot mean drawn toward the pilot mean of its
group (its program and status, every join band) as if ``SHRINK`` more members had that: a
pilot of a few members per stratum is noisy, and following it blindly sends the sample after
chance draws (on generated programs 72 of 100 intervals then held the true total)."""

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95 % interval."""

_COLUMNS = {"program": "program_id", "status": "status", "joined": "joined"}
"""Each ``by`` name -> the column describing it in ``SampleDesign.strata``."""


@dataclass(frozen=True)
class Sample:
    """What a sampled pull reads: ``n`` members, drawn with ``seed``, stratified ``by``.

    ``by`` names what the members list shows before a member is read (``STRATA_BY``); ``()``
    is a simple random sample of the whole list. ``bands`` is how many join-date bands of
    equal size ``joined`` cuts the members into (more bands help when points grow with
    tenure). ``allocation`` shares ``n`` among the strata:

    - ``"adaptive"`` (the default): in two rounds. A pilot of ``PILOT_SHARE`` of ``n`` is
      drawn in proportion to the strata's sizes and read; the rest of ``n`` then goes where
      the points are, each stratum's share in proportion to its size times its pilot
      members' mean points (see ``SHRINK``), never below its pilot. That is Neyman's
      allocation when points spread in proportion to their level within a stratum, as a
      heavy (lognormal) tail does. The pilot holds ``PILOT_PER_STRATUM`` members a stratum:
      it cuts fewer join bands when it must, and is drawn in one round when even that
      leaves fewer.
    - ``"proportional"``: to the strata's sizes, in one round.
    - ``"tenure"``: to size x mean membership age (days from joining to the newest member's
      join, plus 30), in one round; it pays only when points grow with tenure.

    The same arguments and members (and, for an adaptive sample, pilot points) always give
    the same sample.
    """

    n: int
    seed: int = 0
    by: tuple[str, ...] = STRATA_BY
    bands: int = 8
    allocation: str = "adaptive"

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n must be a whole number of members, 1 or more, got {self.n!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a whole number, 0 or more, got {self.seed!r}")
        if isinstance(self.by, str) or not isinstance(self.by, Iterable):
            raise ValueError(f"by must be a tuple of names from {STRATA_BY}, got {self.by!r}")
        by = tuple(self.by)
        unknown = [b for b in by if b not in STRATA_BY]
        if unknown or len(set(by)) != len(by):
            raise ValueError(
                f"by must name each of {STRATA_BY} at most once, got {by!r}"
                + (f" (unknown: {unknown})" if unknown else "")
            )
        object.__setattr__(self, "by", by)
        if isinstance(self.bands, bool) or not isinstance(self.bands, int) or self.bands < 1:
            raise ValueError(f"bands must be a whole number, 1 or more, got {self.bands!r}")
        if self.allocation not in ALLOCATIONS:
            raise ValueError(f"allocation must be one of {ALLOCATIONS}, got {self.allocation!r}")


@dataclass(frozen=True, eq=False)
class SampleDesign:
    """A drawn sample: its strata and its members, each with the weight it carries.

    ``strata`` has one row per stratum: ``stratum`` (its label), the describing columns
    (``program_id``, ``status``, ``joined`` as ``by`` names them), ``population`` (members
    listed) and ``sampled``. ``units`` has one row per sampled member: ``member_id``,
    ``program_id``, ``stratum`` and ``weight`` (``population / sampled`` of its stratum: the
    members it stands for).

    ``seed``, ``by``, ``n``, ``bands`` and ``allocation`` are the ``Sample`` it was drawn by
    (``drawn_by``). ``n`` is None for a design saved before it was kept (the sample's size
    then stands for it), and ``bands`` and ``allocation`` take ``Sample``'s defaults there.
    """

    seed: int
    by: tuple[str, ...]
    strata: pd.DataFrame = field(repr=False)
    units: pd.DataFrame = field(repr=False)
    n: int | None = None
    bands: int = Sample.bands
    allocation: str = Sample.allocation

    def __post_init__(self) -> None:
        """A ``ValueError`` naming the field unless ``seed``, ``by``, ``n``, ``bands`` and
        ``allocation`` are a ``Sample``'s."""
        _ = self.drawn_by

    @property
    def drawn_by(self) -> Sample:
        """The ``Sample`` that draws this design (from the same members list and, for an
        adaptive sample, the same pilot points): a pull of it again draws the same sample."""
        n = max(self.size, 1) if self.n is None else self.n
        return Sample(n, self.seed, self.by, self.bands, self.allocation)

    @property
    def population(self) -> int:
        """Members listed: the population the sample is drawn from."""
        return int(self.strata["population"].sum())

    @property
    def size(self) -> int:
        """Members sampled (read)."""
        return len(self.units)

    @property
    def census(self) -> bool:
        """Every member was drawn: totals are exact."""
        return self.size == self.population

    def __str__(self) -> str:
        kind = "stratified sample" if self.by else "simple random sample"
        by = f"; by {', '.join(self.by)}" if self.by else ""
        return f"{kind} of {self.size:,} of {self.population:,} members (seed {self.seed}{by})"

    def keep(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``frame`` (cards, pending buckets) of the sampled members, ordered by
        member ID (a member's rows keep their order), each with its member's ``weight``:
        a sampled pull and ``ProgramSnapshot.sampled`` both give their frames this way."""
        kept = frame[frame["member_id"].isin(self.units["member_id"])]
        kept = kept.sort_values("member_id", kind="stable", ignore_index=True)
        return self.weigh(kept)

    def weigh(self, frame: pd.DataFrame, member_column: str = "member_id") -> pd.DataFrame:
        """``frame`` with a trailing Float64 column ``weight``: the weight of each row's
        member (NA for a member not in the sample)."""
        weights = pd.Series(
            self.units["weight"].array, index=self.units["member_id"].astype("string").array
        )
        members = frame[member_column].astype("string")
        found = weights.reindex(members.array).astype("Float64").array
        return frame.assign(weight=found)


@dataclass(frozen=True)
class Estimate:
    """A total estimated from a sample: ``value`` and its 95 % interval ``low`` to ``high``,
    ``se`` its standard error. An exact figure (a census) has ``low == high == value``."""

    value: float
    low: float
    high: float
    se: float

    @property
    def half_width(self) -> float:
        """Half the interval's width: the +- of the figure."""
        return (self.high - self.low) / 2

    @property
    def relative_half_width(self) -> float:
        """The +- as a share of the figure (0.1 = +-10 %; NaN for a figure of 0)."""
        return self.half_width / abs(self.value) if self.value else math.nan

    def __str__(self) -> str:
        if math.isnan(self.value):
            return "n/a"
        if self.se == 0:
            return f"{_figure(self.value)} (exact)"
        return f"{_figure(self.value)} (95 % CI {_figure(self.low)} to {_figure(self.high)})"


def _figure(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def draw_sample(
    members: pd.DataFrame,
    sample: Sample,
    points: Callable[[SampleDesign], pd.Series] | None = None,
) -> SampleDesign:
    """Draw ``sample`` from the members list (a ``members_frame``): a simple random sample
    without replacement in each stratum.

    An adaptive sample (``Sample.allocation``) is drawn in two rounds: ``points`` is given
    its pilot and returns each pilot member's points (indexed by member ID; a member it
    lacks holds none), from which the rest is allocated; see ``SampleDraw``.
    """
    draw = SampleDraw(members, sample)
    if not draw.adaptive:
        return draw.first
    if points is None:
        raise ValueError("points: an adaptive sample needs its pilot members' points")
    return draw.complete(points(draw.first))


def member_points(cards: pd.DataFrame) -> pd.Series:
    """The points each member holds on its cards (a ``cards_frame``), indexed by member ID:
    what an adaptive sample allocates its second round by."""
    points = cards["balance_points"].astype("Float64")
    return points.groupby(pd.Index(cards["member_id"].astype("string").array)).sum()


class SampleDraw:
    """A sample being drawn from a members list (a ``members_frame``).

    ``first`` is what to read first: the whole sample, or an adaptive sample's pilot;
    ``complete(points)`` is an adaptive sample's whole design once the pilot's points are
    known. Members are sorted by ID first, so the order the service listed them in does not
    matter; numpy's ``Generator(PCG64(seed))`` draws. When ``n`` reaches the members listed,
    every member is read (a census: weights 1, exact totals). Each stratum of two or more
    members gets at least two, so the sample may exceed ``n`` by a few when strata are many
    and small. ``reseeded(seed)`` is the same draw with another seed, the list's strata not
    worked out again.
    """

    def __init__(self, members: pd.DataFrame, sample: Sample) -> None:
        listed = members.loc[:, ["id", "program_id", "status", "created_at"]]
        listed = listed.sort_values("id", kind="stable", ignore_index=True)
        if listed["id"].isna().any() or listed["id"].duplicated().any():
            raise ValueError("members: every member needs an ID of its own to be sampled")
        self.sample = sample
        self.listed = listed
        pilot = round(sample.n * PILOT_SHARE)
        adaptive = sample.allocation == "adaptive" and sample.n < len(listed)
        if adaptive and "joined" in sample.by:
            sample = replace(sample, bands=self._bands_for(pilot))
        self.codes, self.describing = _strata_of(listed, sample)
        self.labels = _labels(self.describing)
        self.population = np.bincount(self.codes, minlength=len(self.labels))
        self._ids = listed["id"].astype("string").array
        self._index = pd.Index(self._ids)
        self._programs = listed["program_id"].astype("string").array
        self._stratum_labels = pd.array(self.labels, dtype="string")
        self._order = np.argsort(self.codes, kind="stable")
        """Members' positions, stratum by stratum: stratum ``h``'s are
        ``_order[_starts[h]:_starts[h + 1]]``."""
        self._starts = np.concatenate([[0], np.cumsum(self.population)])
        self.adaptive = adaptive and pilot >= PILOT_PER_STRATUM * len(self.labels)
        """Whether the sample is drawn in two rounds: a census, or a pilot too small to tell
        the strata apart (``PILOT_PER_STRATUM``), is drawn in one, proportionally."""
        self.first = self._draw_first()
        """The members to read first: the whole sample, or an adaptive sample's pilot."""

    def reseeded(self, seed: int) -> SampleDraw:
        """This draw with ``seed`` in place of its sample's: what ``SampleDraw(members,
        replace(sample, seed=seed))`` draws, from the strata already cut (a study of many
        seeds of one design sorts and cuts the members list once)."""
        again = copy.copy(self)
        again.sample = replace(self.sample, seed=seed)
        again.first = again._draw_first()
        return again

    def _bands_for(self, pilot: int) -> int:
        """The join bands an adaptive sample cuts: ``Sample.bands``, or fewer (one at least)
        so that its pilot holds ``PILOT_PER_STRATUM`` members a stratum."""
        others = [_COLUMNS[b] for b in self.sample.by if b != "joined"]
        groups = len(np.unique(_combined(self.listed[o] for o in others))) if others else 1
        return max(1, min(self.sample.bands, pilot // (PILOT_PER_STRATUM * groups)))

    def _draw_first(self) -> SampleDesign:
        sample, population = self.sample, self.population
        if self.adaptive:
            pilot = round(sample.n * PILOT_SHARE)
            return self._design(self._prefixes(_allocate(population, population, pilot)))
        share = population.astype(float)
        if sample.allocation == "tenure":
            share = share * _mean_tenure(self.listed["created_at"], self.codes, len(share))
        sampled = _allocate(population, share, sample.n)
        rng = np.random.Generator(np.random.PCG64(sample.seed))
        order, starts = self._order, self._starts
        chosen = [
            order[starts[h] : starts[h + 1]]
            if sampled[h] == population[h]
            else rng.choice(order[starts[h] : starts[h + 1]], size=sampled[h], replace=False)
            for h in range(len(population))
        ]
        return self._design(chosen)

    def complete(self, points: pd.Series) -> SampleDesign:
        """The whole adaptive sample, given ``points`` of the pilot's members (indexed by
        member ID; a member it lacks holds none; NA counts as none): each stratum keeps its
        pilot and gets a share of the rest of ``n`` in proportion to its size times its
        pilot's mean points (drawn toward its group's, see ``SHRINK``)."""
        if not self.adaptive:
            return self.first
        pilot = self.first.strata["sampled"].to_numpy(dtype=np.int64)
        ids = self.first.units["member_id"].astype("string")
        given = pd.Series(points, dtype="Float64").groupby(level=0).sum()
        found = given.reindex(ids.array).fillna(0).to_numpy(dtype=float)
        codes = self.codes[self._positions(ids)]
        sums = np.bincount(codes, weights=found, minlength=len(pilot))
        group = self._groups
        group_mean = np.bincount(group, weights=sums) / np.maximum(np.bincount(group, pilot), 1)
        means = (sums + SHRINK * group_mean[group]) / (pilot + SHRINK)
        sampled = _allocate(self.population, self.population * means, self.sample.n, pilot)
        return self._design(self._prefixes(sampled))

    @cached_property
    def _groups(self) -> np.ndarray:
        """Each stratum's group: the strata of its program and status (every join band), or
        all of them when the strata are not cut by join date."""
        if "joined" not in self.describing.columns:
            return np.zeros(len(self.labels), dtype=np.int64)
        others = [c for c in self.describing.columns if c != "joined"]
        if not others:
            return np.zeros(len(self.labels), dtype=np.int64)
        return np.unique(_combined(self.describing[c] for c in others), return_inverse=True)[1]

    def _positions(self, ids: pd.Series) -> np.ndarray:
        return np.asarray(self._index.get_indexer(ids.array))

    def _prefixes(self, sampled: np.ndarray) -> list[np.ndarray]:
        """The first ``sampled[h]`` members of each stratum in one seeded random order: a
        pilot and the whole sample drawn from it share their first members."""
        rng = np.random.Generator(np.random.PCG64(self.sample.seed))
        order, starts = self._order, self._starts
        return [
            rng.permutation(order[starts[h] : starts[h + 1]])[: sampled[h]]
            for h in range(len(self.population))
        ]

    def _design(self, chosen: list[np.ndarray]) -> SampleDesign:
        codes = self.codes
        sampled = np.array([len(c) for c in chosen], dtype=np.int64)
        picked = np.sort(np.concatenate(chosen)) if chosen else np.array([], dtype=int)
        weight = self.population / np.maximum(sampled, 1)
        strata = pd.DataFrame(
            {
                "stratum": self._stratum_labels,
                **{column: self.describing[column].array for column in self.describing.columns},
                "population": pd.array(self.population, dtype="Int64"),
                "sampled": pd.array(sampled, dtype="Int64"),
            }
        )
        units = pd.DataFrame(
            {
                "member_id": self._ids.take(picked),
                "program_id": self._programs.take(picked),
                "stratum": self._stratum_labels.take(codes[picked]),
                "weight": pd.array(weight[codes[picked]], dtype="Float64"),
            }
        )
        sample = self.sample
        return SampleDesign(
            sample.seed, sample.by, strata, units, sample.n, sample.bands, sample.allocation
        )


def _combined(columns: Iterable[pd.Series]) -> np.ndarray:
    """One whole number per row for its values across ``columns`` (NA a value of its own):
    rows share a number exactly when they share every value."""
    key: np.ndarray | None = None
    for column in columns:
        codes, uniques = pd.factorize(column, use_na_sentinel=False)
        key = codes if key is None else key * len(uniques) + codes
    return np.zeros(0, dtype=np.int64) if key is None else key


def _strata_of(listed: pd.DataFrame, sample: Sample) -> tuple[np.ndarray, pd.DataFrame]:
    """Each member's stratum number, and per stratum number its describing values
    (``program_id``, ``status``, ``joined``) as text, in sorted order."""
    parts: list[tuple[str, np.ndarray, np.ndarray]] = []
    for name in sample.by:
        if name == "joined":
            codes, values = _join_bands(listed["created_at"], sample.bands)
        else:
            text = listed[_COLUMNS[name]].astype("string").fillna("(none)")
            codes, uniques = pd.factorize(text, sort=True)
            values = np.asarray(uniques, dtype=object)
        parts.append((_COLUMNS[name], codes, values))
    key = np.zeros(len(listed), dtype=np.int64)
    for _, codes, values in parts:
        key = key * len(values) + codes
    present, stratum = np.unique(key, return_inverse=True)
    describing = pd.DataFrame(index=range(len(present)))
    for column, _, values in reversed(parts):
        describing[column] = pd.array(values[present % len(values)], dtype="string")
        present = present // len(values)
    return stratum.reshape(-1), describing[[c for c, _, _ in parts]]


def _join_bands(created: pd.Series, bands: int) -> tuple[np.ndarray, np.ndarray]:
    """Each member's join band number and the bands' labels: ``bands`` bands of (nearly)
    equal size by ``created_at``, labelled by their first and last join day, oldest first;
    members without a date make a last band of their own."""
    stamps = created.to_numpy(dtype="datetime64[ns]", na_value=np.datetime64("NaT"))
    known = np.flatnonzero(~np.isnat(stamps))
    order = known[np.argsort(stamps[known], kind="stable")]
    count = min(bands, len(order))
    codes = np.full(len(stamps), count, dtype=np.int64)
    codes[order] = np.arange(len(order)) * count // max(len(order), 1)
    labels = []
    for b in range(count):
        days = stamps[order[codes[order] == b]]
        first, last = (np.datetime_as_string(d, unit="D") for d in (days[0], days[-1]))
        labels.append(f"{first} to {last}")
    if len(order) < len(stamps):
        labels.append("unknown")
    return codes, np.asarray(labels, dtype=object)


def _labels(describing: pd.DataFrame) -> np.ndarray:
    """One label per stratum: its describing values as ``column=value`` joined, or ``all``."""
    if describing.columns.empty:
        return np.asarray(["all"] * len(describing), dtype=object)
    rows = describing.astype(object).to_numpy()
    names = list(describing.columns)
    return np.asarray(
        [" | ".join(f"{c}={v}" for c, v in zip(names, row, strict=True)) for row in rows],
        dtype=object,
    )


def _mean_tenure(created: pd.Series, codes: np.ndarray, strata: int) -> np.ndarray:
    """Per stratum: the mean days from its members' joining to the newest member's, plus 30
    (a member of unknown join date counts as the median)."""
    days = (created.max() - created).dt.total_seconds().to_numpy(dtype=float, na_value=np.nan)
    days = np.nan_to_num(days / 86400, nan=float(np.nanmedian(days / 86400)) if len(days) else 0)
    sums = np.bincount(codes, weights=days, minlength=strata)
    return sums / np.maximum(np.bincount(codes, minlength=strata), 1) + 30


def _allocate(
    population: np.ndarray, weight: np.ndarray, n: int, least: np.ndarray | None = None
) -> np.ndarray:
    """Members to draw per stratum: in proportion to ``weight`` (largest remainders, so the
    shares add up to ``n``), at least ``min(size, 2)`` and ``least``, at most its size."""
    total = int(population.sum())
    if n >= total:
        return population.copy()
    floor = np.minimum(population, 2)
    if least is not None:
        floor = np.maximum(floor, least)
    low = np.zeros(len(population), dtype=bool)  # held at their floor
    high = np.zeros(len(population), dtype=bool)  # held at their size
    while True:
        free = ~(low | high)
        left = n - int(floor[low].sum()) - int(population[high].sum())
        share = np.zeros(len(population))
        weights = float(weight[free].sum())
        share[free] = left * weight[free] / weights if weights > 0 else 0.0
        alloc = np.floor(share).astype(int)
        rest = left - int(alloc[free].sum())
        if rest > 0:
            order = np.argsort(-(share - alloc), kind="stable")
            alloc[order[free[order]][:rest]] += 1
        short, over = free & (alloc < floor), free & (alloc > population)
        if not (short.any() or over.any()):
            alloc[low] = floor[low]
            alloc[high] = population[high]
            return alloc
        low |= short
        high |= over


def estimate_total(design: SampleDesign, per_member: pd.Series) -> Estimate:
    """The program total of a figure known for each sampled member, with its 95 % interval.

    ``per_member`` is indexed by member ID; a sampled member it lacks counts 0 (a member
    without a card holds no points). A member outside the sample is refused (its figure
    would be counted at the wrong weight); an NA figure makes the estimate NA.
    """
    frame = pd.DataFrame({"total": per_member})
    row = estimate_totals(design, frame).iloc[0]
    return Estimate(float(row["value"]), float(row["low"]), float(row["high"]), float(row["se"]))


def estimate_totals(design: SampleDesign, per_member: pd.DataFrame) -> pd.DataFrame:
    """``estimate_total`` of each column of ``per_member`` (indexed by member ID) at once:
    one row per column (the index), with ``value``, ``low``, ``high`` and ``se``."""
    members = pd.Index(design.units["member_id"].astype("string").array)
    given = per_member.set_axis(pd.Index(per_member.index.astype("string")))
    outside = given.index.difference(members)
    if len(outside):
        raise ValueError(
            f"per_member: {counted(len(outside), 'member')} not in the sample, e.g. {outside[0]!r}"
        )
    if given.index.has_duplicates:
        raise ValueError("per_member: a member appears more than once; sum its figures first")
    unknown = given.isna().any().to_numpy()
    values = given.reindex(members).astype("float64").fillna(0.0)
    totals = _totals(design, values.to_numpy())
    totals[unknown] = np.nan
    return pd.DataFrame(totals, index=per_member.columns, columns=["value", "low", "high", "se"])


def _totals(design: SampleDesign, y: np.ndarray) -> np.ndarray:
    """Per column of ``y`` (rows aligned with ``design.units``): the stratified expansion
    estimate of its total, the interval's ends and the standard error."""
    codes, labels = pd.factorize(design.units["stratum"].astype("string"))
    strata = pd.Index(design.strata["stratum"].astype("string").array)
    at = strata.get_indexer(labels)
    if (at < 0).any():
        raise KeyError(labels[np.flatnonzero(at < 0)[0]])
    population = design.strata["population"].to_numpy(dtype="float64")[at]
    labelled = np.flatnonzero(codes >= 0)  # a unit without a stratum counts in none
    order = labelled[np.argsort(codes[labelled], kind="stable")]  # by stratum, rows in order
    sizes = np.bincount(codes[labelled], minlength=len(labels))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    value = np.zeros(y.shape[1])
    variance = np.zeros(y.shape[1])
    cumulant = np.zeros(y.shape[1])
    for h in range(len(labels)):
        rows = y[order[starts[h] : starts[h + 1]]]
        n_h, big_n = len(rows), float(population[h])
        mean = rows.mean(axis=0)
        value += big_n * mean
        f_h = n_h / big_n
        deviations = rows - mean
        if 1 < n_h < big_n:  # the sample variance, as ``rows.var(axis=0, ddof=1)`` works it
            s2 = np.add.reduce(deviations * deviations, axis=0) / (n_h - 1)
            variance += big_n**2 * (1 - f_h) * s2 / n_h
        if 2 < n_h < big_n:
            third = n_h * (deviations**3).sum(axis=0) / ((n_h - 1) * (n_h - 2))
            cumulant += big_n**3 * (1 - f_h) * (1 - 2 * f_h) * third / n_h**2
    se = np.sqrt(variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = np.where(variance > 0, cumulant / variance**1.5, 0.0)
    low = value - se * _untransformed(Z_95, skew)
    high = value - se * _untransformed(-Z_95, skew)
    return np.column_stack([value, low, high, se])


def _untransformed(z: float, skew: np.ndarray) -> np.ndarray:
    """The studentized total whose Hall transform ``t + s t^2 / 3 + s^2 t^3 / 27 + s / 6``
    is ``z``, for the estimator's skewness ``s`` (``z`` itself without skew)."""
    flat = np.abs(skew) < 1e-9
    safe = np.where(flat, 1.0, skew)
    root = (3 / safe) * (np.cbrt(1 + safe * (z - safe / 6)) - 1)
    return np.where(flat, z, root)
