"""``compare_economics``: two economics of one program side by side, as a what-if shows them.

The headline figures before and after with their change, per card definition the earn
rate, value per point, effective return and liability before and after, and the reward
costs whose mispricing appears, resolves or moves. Of two sampled economics of the same
sample, the change of each estimated total gets its own 95 % interval from the members'
own changes (paired), narrower than the interval of either side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from .intervals import difference_estimates
from .schemas import (
    DEFINITION_CHANGE,
    DEFINITION_MEASURES,
    HEADLINE_CHANGE,
    MISPRICING_CHANGE,
    MispricingChange,
)
from .summary import ESTIMATED, Economics

__all__ = ["EconomicsChange", "compare_economics", "definition_measures"]

_COST_KEY = ["reward_id", "cost_id", "spending_index"]


@dataclass(frozen=True)
class EconomicsChange:
    """Two economics of one program compared: ``headline`` (``HEADLINE_CHANGE``),
    ``card_definitions`` (``DEFINITION_CHANGE``) and ``mispricing``
    (``MISPRICING_CHANGE``), each worked out when first read (a sweep reads none of them);
    ``before`` and ``after`` are the two ``Economics``."""

    before: Economics
    after: Economics

    @cached_property
    def headline(self) -> pd.DataFrame:
        """Each headline figure before, after and the change (``HEADLINE_CHANGE``)."""
        return _headline(self.before, self.after)

    @cached_property
    def card_definitions(self) -> pd.DataFrame:
        """Per card definition, each measure before, after and the change
        (``DEFINITION_CHANGE``)."""
        return _card_definitions(self.before, self.after)

    @cached_property
    def mispricing(self) -> pd.DataFrame:
        """The reward costs whose mispricing appears, resolves or moves
        (``MISPRICING_CHANGE``)."""
        return _mispricing(self.before, self.after)

    @property
    def not_pulled(self) -> dict[str, str]:
        """Headline figure -> why it is NA on both sides: the kinds it counts that the
        snapshot was pulled without (``Economics.not_pulled``; an edit on paper pulls
        nothing, so the edited side misses what the base misses)."""
        return {**self.before.not_pulled, **self.after.not_pulled}

    @property
    def not_given(self) -> dict[str, str]:
        """Headline figure -> why its change is NA: the reason both sides give it as None
        (``Economics.not_given``: ``"rewards not pulled"``, ``"no point value observed"``),
        or the one side's (``"before: no point value observed"``), or each side's."""
        return _side_by_side(self.before.not_given, self.after.not_given)

    def definition_not_given(self, card_definition_id: str) -> dict[str, str]:
        """Measure (``DEFINITION_MEASURES``: ``earn_points_per_unit``, ``value_median``,
        ``return_median``, ``liability_median``, ...) -> why the card definition's is NA on
        a side: the ``reason`` of the frame it is read from (the point values' for the
        values, ``"no point value observed"``; the return's for the earn rate and the
        return, ``"no ACTIVE benefit earns points on spend"``; the liability's for the
        liability, ``"a card balance unknown"``), the side named when the two differ as
        ``not_given`` names them; empty when each is given on both sides."""
        return _side_by_side(
            _measures_not_given(self.before, card_definition_id),
            _measures_not_given(self.after, card_definition_id),
        )

    def frames(self) -> dict[str, pd.DataFrame]:
        """Frame name -> frame: ``headline``, ``card_definitions``, ``mispricing``."""
        return {
            "headline": self.headline,
            "card_definitions": self.card_definitions,
            "mispricing": self.mispricing,
        }


def compare_economics(before: Economics, after: Economics) -> EconomicsChange:
    """``before`` and ``after`` (``summarise`` of a program and of an edit of it, with the
    same prices, redemption rate and override) compared. Two sampled economics must come
    from the same sample: the change's interval pairs each member with itself."""
    if (before.sample is None) != (after.sample is None) or (
        before.sample is not None and before.sample is not after.sample
    ):
        raise ValueError(
            "before and after: compare the economics of one snapshot and of an edit of it "
            "(the same sample, or none on both sides)"
        )
    return EconomicsChange(before, after)


def _headline(before: Economics, after: Economics) -> pd.DataFrame:
    """One row per headline figure: before, after, change, and for a sample the intervals."""
    old, new = before.headline, after.headline
    names = [name for name in old if "_ci_" not in name]

    def figures(side: dict[str, float | None], suffix: str = "") -> pd.Series:
        return pd.Series([side.get(f"{n}{suffix}") for n in names], dtype="Float64")

    was, now = figures(old), figures(new)
    columns: dict[str, Any] = {"figure": names, "before": was, "after": now, "change": now - was}
    for side, values in (("before", old), ("after", new)):
        for end in ("low", "high"):
            columns[f"{side}_ci_{end}"] = figures(values, f"_ci_{end}")
    if before.per_member is not None and after.per_member is not None and before.sample:
        program = _program_rows(
            difference_estimates(before.sample, before.per_member, after.per_member, _names(after))
        )
        for end, column in (("low", "ci_low"), ("high", "ci_high")):
            columns[f"change_ci_{end}"] = pd.Series(names).map(program[column])
    else:
        columns["change_ci_low"] = columns["change_ci_high"] = figures({})
    return HEADLINE_CHANGE.conform(pd.DataFrame(columns))


def _names(economics: Economics) -> pd.Series:
    """Card definition ID -> name, as the point values name them."""
    values = economics.point_values
    return pd.Series(values["card_definition_name"].array, index=values["card_definition_id"])


def _program_rows(estimates: pd.DataFrame) -> pd.DataFrame:
    """The program's totals (no card definition, no month) of ``ESTIMATES`` rows, by figure."""
    program = estimates[estimates["card_definition_id"].isna() & estimates["month"].isna()]
    return program[program["figure"].isin(ESTIMATED)].set_index("figure")


_MEASURE_SOURCES: dict[str, tuple[str, str]] = {
    "earn_points_per_unit": ("effective_return", "earn_points_per_unit"),
    "value_low": ("point_values", "low"),
    "value_median": ("point_values", "median"),
    "value_high": ("point_values", "high"),
    "return_median": ("effective_return", "return_median"),
    "liability_median": ("liability", "value_median"),
}
"""Each of ``DEFINITION_MEASURES`` -> the ``Economics`` frame and column it is read from;
that frame's ``reason`` says why it is NA."""


_REASON_ORDER = ("point_values", "liability", "effective_return")
"""The frames the measures are read from (``_MEASURE_SOURCES``), in the order
their ``reason`` joins in a card definition's."""


def definition_measures(economics: Economics) -> pd.DataFrame:
    """Per card definition ID (the index): the ``DEFINITION_MEASURES`` of one side of a
    what-if, its name, and ``reason``: why some of them are NA or not what they say (the
    point values', liability's and return's ``reason``, each once, joined by ``; ``)."""
    frames = _by_definition(economics)
    values, owed = frames["point_values"], frames["liability"]
    ids = values.index.union(frames["effective_return"].index).union(owed.index)
    names = (
        pd.concat([values["card_definition_name"], owed["card_definition_name"]])
        .groupby(level=0)
        .first()
    )
    measures = {m: frames[f][column].reindex(ids) for m, (f, column) in _MEASURE_SOURCES.items()}
    reasons = (frames[f]["reason"].reindex(ids) for f in _REASON_ORDER)
    return pd.DataFrame(
        {"card_definition_name": names.reindex(ids), **measures, "reason": _reasons(*reasons)},
        index=ids,
    )


def _by_definition(economics: Economics) -> dict[str, pd.DataFrame]:
    """The frames ``_MEASURE_SOURCES`` reads, by name, indexed by card definition ID."""
    return {
        name: getattr(economics, name).set_index("card_definition_id") for name in _REASON_ORDER
    }


def _measures_not_given(economics: Economics, card_definition_id: str) -> dict[str, str]:
    """Of one side of a what-if: measure (``DEFINITION_MEASURES``) -> why the card
    definition's is NA, the ``reason`` of the frame it is read from (``_MEASURE_SOURCES``:
    ``"no ACTIVE benefit earns points on spend"`` for the earn rate and the return, ``"no
    point value observed"`` for the values per point, ``"a card balance unknown"`` for the
    liability, ...); only the measures NA with a reason, in ``DEFINITION_MEASURES``' order."""
    frames = _by_definition(economics)
    out: dict[str, str] = {}
    for measure, _ in DEFINITION_MEASURES:
        name, column = _MEASURE_SOURCES[measure]
        rows = frames[name][frames[name].index == card_definition_id].head(1)
        for value, why in zip(rows[column], rows["reason"], strict=True):
            if pd.isna(value) and isinstance(why, str):
                out[measure] = why
    return out


def _side_by_side(was: dict[str, str], now: dict[str, str]) -> dict[str, str]:
    """Name -> one reason of a what-if from each side's reasons (``_sides``): those of
    ``was`` (before) first, then the others of ``now`` (after)."""
    names = [*was, *(n for n in now if n not in was)]
    return {name: str(_sides(was.get(name), now.get(name))) for name in names}


def _sides(before: str | None, after: str | None) -> str | None:
    """One reason of a what-if from each side's: the same on both sides as it is, else each
    side's named (``"before: no point value observed"``); None when neither has one."""
    if before == after:
        return before
    return "; ".join(
        f"{side}: {why}" for side, why in (("before", before), ("after", after)) if why
    )


def _reasons(*columns: pd.Series) -> pd.Series:
    """Per row, the reasons of ``columns`` that are set, each once, joined by ``; ``."""
    rows = zip(*(c.astype("object").tolist() for c in columns), strict=True)
    joined = [
        "; ".join(dict.fromkeys(r for r in row if isinstance(r, str))) or None for row in rows
    ]
    return pd.Series(joined, index=columns[0].index, dtype="string")


def _card_definitions(before: Economics, after: Economics) -> pd.DataFrame:
    """One row per card definition on either side, each measure before, after and change."""
    old, new = definition_measures(before), definition_measures(after)
    ids = old.index.union(new.index)
    old, new = old.reindex(ids), new.reindex(ids)
    columns: dict[str, Any] = {
        "card_definition_id": ids.astype("string"),
        "card_definition_name": new["card_definition_name"].fillna(old["card_definition_name"]),
    }
    for measure, _ in DEFINITION_MEASURES:
        a, b = old[measure].astype("Float64"), new[measure].astype("Float64")
        columns |= {
            f"{measure}_before": a.array,
            f"{measure}_after": b.array,
            f"{measure}_change": (b - a).array,
        }
    sides = zip(old["reason"].astype("object"), new["reason"].astype("object"), strict=True)
    columns["reason"] = pd.array(
        [_sides(*(r if isinstance(r, str) else None for r in pair)) for pair in sides],
        dtype="string",
    )
    return DEFINITION_CHANGE.conform(pd.DataFrame(columns).reset_index(drop=True))


def _mispricing(before: Economics, after: Economics) -> pd.DataFrame:
    """The reward costs mispriced on one side only, or on both with a different ratio."""
    was, now = _keyed(before.mispriced), _keyed(after.mispriced)
    keys = was.index.union(now.index)
    both = was.index.intersection(now.index)
    moved = both[~_same(was.loc[both, "ratio"], now.loc[both, "ratio"])]
    change = pd.Series(pd.NA, index=keys, dtype="object")
    change[keys.isin(now.index) & ~keys.isin(was.index)] = MispricingChange.APPEARED.value
    change[keys.isin(was.index) & ~keys.isin(now.index)] = MispricingChange.RESOLVED.value
    change[keys.isin(moved)] = MispricingChange.CHANGED.value
    keys = keys[change.notna().to_numpy()]
    if not len(keys):
        return MISPRICING_CHANGE.empty()
    old, new = _costs(before, keys), _costs(after, keys)
    frame = pd.DataFrame(
        {
            "change": change.reindex(keys).to_numpy(),
            "reward_id": keys.get_level_values(0),
            "reward_name": new["reward_name"].fillna(old["reward_name"]).to_numpy(),
            "cost_id": keys.get_level_values(1),
            "spending_index": keys.get_level_values(2),
            "card_definition_id": new["card_definition_id"]
            .fillna(old["card_definition_id"])
            .to_numpy(),
            "card_definition_name": new["card_definition_name"]
            .fillna(old["card_definition_name"])
            .to_numpy(),
            "points_before": old["points"].to_numpy(),
            "points_after": new["points"].to_numpy(),
            "value_per_point_before": old["value_per_point"].to_numpy(),
            "value_per_point_after": new["value_per_point"].to_numpy(),
            "median_before": old["median"].to_numpy(),
            "median_after": new["median"].to_numpy(),
            "ratio_before": (old["value_per_point"] / old["median"]).to_numpy(),
            "ratio_after": (new["value_per_point"] / new["median"]).to_numpy(),
        }
    )
    order = ["change", "reward_id", "cost_id", "spending_index"]
    return MISPRICING_CHANGE.conform(frame.sort_values(order).reset_index(drop=True))


def _keyed(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame indexed by reward, cost and spending entry."""
    return frame.set_index(_COST_KEY)


def _same(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Element-wise: equal but for rounding, or both NA."""
    x, y = a.astype("float64").to_numpy(), b.astype("float64").to_numpy()
    return np.asarray(np.isclose(x, y, rtol=1e-9, atol=0.0, equal_nan=True))


def _costs(economics: Economics, keys: pd.Index) -> pd.DataFrame:
    """The burn values of the spending entries ``keys``, in their order (NA rows where
    absent), with their card definition's median value per point. Only the rows of
    ``keys``' rewards are matched (a few of 50,000: keying them all cost more than the
    rest of a what-if)."""
    wanted = keys.to_frame(index=False)
    burn = economics.burn_values
    burn = burn[burn["reward_id"].isin(wanted["reward_id"])].drop_duplicates(_COST_KEY)
    rows = wanted.merge(burn, how="left", on=_COST_KEY)
    medians = economics.point_values.set_index("card_definition_id")["median"]
    rows["median"] = rows["card_definition_id"].map(medians).astype("Float64")
    rows["points"] = rows["points"].astype("Int64")
    rows["value_per_point"] = rows["value_per_point"].astype("Float64")
    return rows
