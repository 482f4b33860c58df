"""Audit rules from the program's economics: mispriced rewards, points that cannot be spent,
and a program returning more of the spend than a cap.

A benefit crediting a card definition that is not ACTIVE is already covered by
``active-benefit-card-definition-not-active`` (ACTIVE benefits) and
``benefit-card-definition-not-active`` (DRAFT ones), so it has no rule here.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from .._text import amount
from ..economics import burn_values, effective_return
from ..economics.mispricing import MIN_OBSERVATIONS, MISPRICED_FACTOR, mispriced
from ..economics.value import values_from
from ..frames.pending import rows_of
from ..models.enums import PayWithPointsType
from ._view import Row, derived, now_of, rows, timestamp
from .registry import Finding, Severity, rule
from .rules import ACTIVE, _live_benefits, _reward_costs

if TYPE_CHECKING:
    import pandas as pd

    from ..snapshot import ProgramSnapshot

__all__ = ["EFFECTIVE_RETURN_CAP", "effective_return_cap"]

EFFECTIVE_RETURN_CAP = 0.10
"""The default cap of ``effective-return-above-cap``: 10 % of spend returned."""

_CAP: ContextVar[float] = ContextVar("effective_return_cap", default=EFFECTIVE_RETURN_CAP)


@contextmanager
def effective_return_cap(cap: float) -> Iterator[None]:
    """Within the block, ``effective-return-above-cap`` flags returns above ``cap`` (0.1 = 10 %)."""
    if isinstance(cap, bool) or not isinstance(cap, int | float) or not 0 < cap < math.inf:
        raise ValueError(f"effective_return_cap must be a positive share of spend, got {cap!r}")
    token = _CAP.set(float(cap))
    try:
        yield
    finally:
        _CAP.reset(token)


def _burn_and_point_values(snapshot: ProgramSnapshot) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``burn_values(snapshot)`` and ``point_values(snapshot)`` (computed from those burn
    values), once in an audit run however many rules read them."""

    def compute() -> tuple[pd.DataFrame, pd.DataFrame]:
        burn = burn_values(snapshot)
        return burn, values_from(snapshot, burn)

    return derived(snapshot, "burn and point values", compute)


@rule(
    "reward-mispriced",
    Severity.WARNING,
    f"A reward's value per point is more than {MISPRICED_FACTOR:g}x above or below its card "
    f"definition's median (a median of at least {MIN_OBSERVATIONS} observations).",
)
def reward_mispriced(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """Far too generous, or far too stingy, for the points it asks."""
    burn, values = _burn_and_point_values(snapshot)
    live = burn[burn["reward_status"].astype("string") != "DELETED"]
    for cost in rows_of(mispriced(live, values)):
        definition = cost["card_definition_name"] or cost["card_definition_id"]
        yield Finding(
            "reward",
            cost["reward_id"],
            cost["reward_name"],
            f"{cost['reward_status']} reward cost {cost['cost_id']}: {amount(cost['points'])} "
            f"points buy {amount(cost['value'])} minor units ({cost['value_per_point']:.4g} per "
            "point), "
            f"{_times(cost['ratio'])} the median {cost['median_value_per_point']:.4g} per point "
            f"of card definition {definition}",
        )


def _times(ratio: float) -> str:
    return f"{ratio:.1f}x" if ratio >= 1 else f"1/{1 / ratio:.1f} of"


@rule(
    "points-without-way-out",
    Severity.WARNING,
    "An ACTIVE card definition is credited by ACTIVE benefits, but no ACTIVE reward available "
    "now spends its points and they cannot pay for orders.",
)
def points_without_way_out(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """Members collect points they can do nothing with.

    Silent on a snapshot pulled without rewards or reward costs (it cannot tell).
    """
    if not {"rewards", "reward_costs"} <= snapshot.kinds:
        return
    earners: dict[str, list[str]] = defaultdict(list)
    for benefit in _live_benefits(snapshot):
        if benefit["status"] == ACTIVE and benefit.get("card_definition_id"):
            earners[benefit["card_definition_id"]].append(benefit["id"])
    now = now_of(snapshot)
    spent = {
        cost["card_definition_id"]
        for reward, cost in _reward_costs(snapshot)
        if reward["status"] == ACTIVE and _open(reward, now)
    }
    for definition in rows(snapshot, "card_definitions"):
        ident = definition["id"]
        pays = definition.get("pay_with_points_type") not in (None, PayWithPointsType.NO_PAYMENTS)
        if definition["status"] != ACTIVE or ident not in earners or ident in spent or pays:
            continue
        benefits = earners[ident]
        yield Finding(
            "card_definition",
            ident,
            definition.get("name"),
            f"ACTIVE card definition is credited by {len(benefits)} ACTIVE benefit"
            f"{'' if len(benefits) == 1 else 's'} ({', '.join(sorted(benefits))}), but no "
            "ACTIVE reward available now spends its points and they cannot pay for orders",
        )


def _open(reward: Row, now: pd.Timestamp) -> bool:
    """Whether the reward's availability window holds ``now``."""
    start, end = timestamp(reward.get("start_date")), timestamp(reward.get("end_date"))
    return (start is None or start <= now) and (end is None or now < end)


@rule(
    "effective-return-above-cap",
    Severity.WARNING,
    f"A card definition returns more than the cap of spend to members (median effective "
    f"return; default cap {EFFECTIVE_RETURN_CAP:.0%}; audit.effective_return_cap changes it).",
)
def effective_return_above_cap(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """Earn rate x point value above what the program can afford."""
    cap = _CAP.get()
    returns = effective_return(snapshot, _burn_and_point_values(snapshot)[1])
    above = returns[(returns["return_median"] > cap).fillna(False).astype(bool)]
    for row in rows_of(above):
        yield Finding(
            "card_definition",
            row["card_definition_id"],
            row["card_definition_name"],
            f"card definition returns {row['return_median']:.1%} of spend (median; "
            f"{row['return_low']:.1%} to {row['return_high']:.1%}), above the cap of {cap:.0%}",
        )
