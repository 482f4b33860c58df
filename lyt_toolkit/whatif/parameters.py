"""The knobs of a what-if: a card definition's earn rate and the price of rewards, each an
edit of a snapshot's frames made from one number (what a sweep steps and a slider moves).

Neither is a change the service has a call for: a plan lists them as unsupported (make them
in the service's dashboard), while the figures move all the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..economics.earn_burn import AMOUNT_BASES
from ..models.enums import BenefitStatus, BenefitType
from ..snapshot import ProgramSnapshot

__all__ = ["EarnRate", "Parameter", "RewardPrice", "earn_rate", "reward_price"]


class Parameter:
    """A number that edits a snapshot: ``frames(snapshot, value)`` gives the edited frames
    by kind (the others as they are). ``name`` labels the value; ``unit`` says what it is."""

    name: str
    unit: str

    def check(self, value: float) -> None:
        """``ValueError`` naming ``value`` unless ``value`` is one the parameter can take."""
        raise NotImplementedError

    def frames(self, snapshot: ProgramSnapshot, value: float) -> dict[str, pd.DataFrame]:
        raise NotImplementedError

    def current(self, snapshot: ProgramSnapshot) -> float:
        """The parameter's value in ``snapshot`` as it is."""
        raise NotImplementedError


@dataclass(frozen=True)
class EarnRate(Parameter):
    """The points per minor unit of spend that ``card_definition_id``'s ACTIVE amount-based
    POINTS_PROPORTIONAL benefits credit: each set to ``value`` (``proportional_value`` =
    value x ``proportional_every``). 0.01 is 1 point per 100 minor units."""

    card_definition_id: str
    name: str = field(default="earn_points_per_unit", init=False)
    unit: str = field(default="points per minor unit of spend", init=False)

    def _earning(self, benefits: pd.DataFrame) -> np.ndarray:
        mask = (
            (benefits["card_definition_id"].astype("string") == self.card_definition_id)
            & (benefits["type"].astype("string") == BenefitType.POINTS_PROPORTIONAL.value)
            & (benefits["status"].astype("string") == BenefitStatus.ACTIVE.value)
            & benefits["proportional_basis"].astype("string").isin(AMOUNT_BASES)
            & benefits["proportional_every"].notna()
        )
        rows = mask.fillna(False).to_numpy(bool)
        if not rows.any():
            raise ValueError(
                f"card_definition_id: {self.card_definition_id} has no ACTIVE amount-based "
                "POINTS_PROPORTIONAL benefit whose earn rate could be set"
            )
        return rows

    def check(self, value: float) -> None:
        """A finite number at least 0."""
        _check_number("value", value, low=0.0)

    def frames(self, snapshot: ProgramSnapshot, value: float) -> dict[str, pd.DataFrame]:
        self.check(value)
        benefits = snapshot.benefits
        rows = self._earning(benefits)
        edited = benefits.copy()
        every = edited.loc[rows, "proportional_every"].astype("Float64")
        edited.loc[rows, "proportional_value"] = (every * value).astype(
            edited["proportional_value"].dtype
        )
        return {"benefits": edited}

    def current(self, snapshot: ProgramSnapshot) -> float:
        """The median rate of the benefits set (as ``effective_return`` reads it)."""
        benefits = snapshot.benefits
        rows = self._earning(benefits)
        rate = benefits.loc[rows, "proportional_value"].astype("float64") / benefits.loc[
            rows, "proportional_every"
        ].astype("float64")
        return float(rate.median())


@dataclass(frozen=True)
class RewardPrice(Parameter):
    """The points the chosen rewards cost, changed by a share: each spending entry's points
    x (1 + value), rounded to a whole point and at least 1 (-0.3: 30 % cheaper). The
    rewards are ``reward_ids``, else every reward spending ``card_definition_id``'s points."""

    reward_ids: tuple[str, ...] = ()
    card_definition_id: str | None = None
    name: str = field(default="price_change", init=False)
    unit: str = field(default="share of the points each reward costs (0.1 = 10 % dearer)",
                      init=False)  # fmt: skip

    def _rows(self, costs: pd.DataFrame) -> np.ndarray:
        spending = costs["spending_index"].notna() & costs["points"].notna()
        if self.reward_ids:
            chosen = costs["reward_id"].astype("string").isin(self.reward_ids)
            missing = set(self.reward_ids) - set(costs["reward_id"].astype("string").dropna())
            if missing:
                raise ValueError(f"reward_ids: no reward costs of {sorted(missing)}")
        else:
            chosen = costs["card_definition_id"].astype("string") == self.card_definition_id
        rows = (spending & chosen).fillna(False).to_numpy(bool)
        if not rows.any():
            raise ValueError(
                f"card_definition_id: no reward spends points of {self.card_definition_id}"
            )
        return rows

    def check(self, value: float) -> None:
        """A finite number above -1 (-1 would make every reward free)."""
        _check_number("value", value, low=-1.0, open_low=True)

    def frames(self, snapshot: ProgramSnapshot, value: float) -> dict[str, pd.DataFrame]:
        self.check(value)
        costs = snapshot.reward_costs
        rows = self._rows(costs)
        edited = costs.copy()
        points = edited.loc[rows, "points"].astype("float64") * (1.0 + value)
        edited.loc[rows, "points"] = np.maximum(np.round(points.to_numpy()), 1).astype("int64")
        return {"reward_costs": edited}

    def current(self, snapshot: ProgramSnapshot) -> float:
        """0: the prices as they are."""
        self._rows(snapshot.reward_costs)
        return 0.0


def earn_rate(card_definition_id: str) -> EarnRate:
    """The earn rate of ``card_definition_id`` as a what-if parameter (``EarnRate``)."""
    if not isinstance(card_definition_id, str) or not card_definition_id:
        raise ValueError(f"card_definition_id: expected an ID, got {card_definition_id!r}")
    return EarnRate(card_definition_id)


def reward_price(
    reward_ids: str | Iterable[str] | None = None, *, card_definition_id: str | None = None
) -> RewardPrice:
    """The price of rewards as a what-if parameter (``RewardPrice``): ``reward_ids`` (one or
    more), or every reward spending ``card_definition_id``'s points; give one of the two."""
    ids = (reward_ids,) if isinstance(reward_ids, str) else tuple(reward_ids or ())
    if bool(ids) == (card_definition_id is not None):
        raise ValueError("reward_price: give reward_ids or card_definition_id, not both or none")
    for reward_id in ids:
        if not isinstance(reward_id, str) or not reward_id:
            raise ValueError(f"reward_ids: expected reward IDs, got {reward_id!r}")
    return RewardPrice(ids, card_definition_id)


def _check_number(name: str, value: float, *, low: float, open_low: bool = False) -> None:
    ok = isinstance(value, int | float | np.number) and not isinstance(value, bool)
    ok = ok and np.isfinite(value) and (value > low if open_low else value >= low)
    if not ok:
        bound = f"above {low}" if open_low else f"at least {low}"
        raise ValueError(f"{name}: expected a finite number {bound}, got {value!r}")
