"""Earn rates (points a benefit credits) and burn values (what a reward's points buy)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..models.enums import BenefitType, RewardStatus
from ..snapshot import ProgramSnapshot
from ._frames import columns, lookup, names_of
from ._spread import exchange_ratios, spread
from .schemas import BURN_VALUES, EARN_RATES, ValueSource

__all__ = [
    "AMOUNT_BASES",
    "active",
    "burn_from",
    "burn_values",
    "earn_rates",
    "observed",
    "prices_of",
    "repriced",
]

AMOUNT_BASES = frozenset(
    {"order.amount", "order.total_amount", "order_items.amount", "order_items.subtotal_amount"}
)
"""Proportional bases that are amounts of money in minor units (spend)."""

_EARNING = (BenefitType.POINTS.value, BenefitType.POINTS_PROPORTIONAL.value)


def earn_rates(snapshot: ProgramSnapshot) -> pd.DataFrame:
    """One row per POINTS / POINTS_PROPORTIONAL benefit with its rate (``EARN_RATES``)."""
    benefits = columns(
        snapshot.benefits,
        "benefits",
        [
            "id", "name", "status", "type", "card_definition_id", "points_value",
            "proportional_calculation_type", "proportional_basis", "proportional_every",
            "proportional_value",
        ],
    )  # fmt: skip
    b = benefits[benefits["type"].astype("string").isin(_EARNING)].reset_index(drop=True)
    proportional = b["type"].astype("string") == BenefitType.POINTS_PROPORTIONAL.value
    basis = b["proportional_basis"].astype("string")
    amount_based = basis.isin(AMOUNT_BASES).astype("boolean").mask(proportional & basis.isna())
    frame = pd.DataFrame(
        {
            "benefit_id": b["id"],
            "benefit_name": b["name"],
            "benefit_status": b["status"],
            "card_definition_id": b["card_definition_id"],
            "card_definition_name": lookup(
                b["card_definition_id"], names_of(snapshot.card_definitions)
            ),
            "type": b["type"],
            "calculation_type": b["proportional_calculation_type"],
            "basis": basis,
            "every": b["proportional_every"],
            "value": b["proportional_value"],
            "points": b["points_value"],
            "points_per_unit": b["proportional_value"] / b["proportional_every"],
            "amount_based": amount_based,
        }
    )
    return EARN_RATES.conform(frame)


def prices_of(prices: pd.DataFrame | None) -> pd.Series:
    """The user's ``prices`` (columns ``id``, ``value`` in minor units) as ID -> value.

    Raises ``ValueError`` naming the column, or the ID, that is wrong.
    """
    if prices is None:
        return pd.Series(dtype="Float64", index=pd.Index([], dtype="string"))
    if not isinstance(prices, pd.DataFrame):
        raise TypeError(f"prices must be a DataFrame with columns id, value; got {type(prices)}")
    missing = [c for c in ("id", "value") if c not in prices.columns]
    if missing:
        raise ValueError(f"prices lacks columns {missing} (expected: id, value in minor units)")
    ids = prices["id"].astype("string")
    if ids.isna().any():
        raise ValueError(f"prices: column 'id' is empty in row {ids.isna().to_numpy().argmax()}")
    repeated = ids[ids.duplicated()]
    if len(repeated):
        raise ValueError(f"prices: id {repeated.iloc[0]!r} is given more than once")
    values = pd.to_numeric(prices["value"], errors="coerce").astype("Float64")
    bad = values.isna() | ~np.isfinite(values.fillna(0).to_numpy(float)) | (values < 0)
    if bad.any():
        row = bad.to_numpy().argmax()
        raise ValueError(
            f"prices: value of id {ids.iloc[row]!r} is {prices['value'].iloc[row]!r}; "
            "expected a number at least 0 (minor units)"
        )
    return pd.Series(values.to_numpy(), index=pd.Index(ids.to_numpy()), dtype="Float64")


_SOURCE = BURN_VALUES.by_name["value_source"].dtype

_SPENDING = ["reward_id", "reward_name", "reward_status", "cost_id", "spending_index",
             "card_definition_id"]  # fmt: skip
"""The reward costs' columns ``observed`` reads besides ``points``."""

_REASONS = {
    "MATERIAL": "material reward: give a price for its SKU or product ID",
    "DISCOUNT_COUPONS": "discount coupon: give a price for its campaign ID",
    "LOYALTY_CARD_POINTS": "card points: the target card definition has no value per point",
}


def _costs(snapshot: ProgramSnapshot) -> pd.DataFrame:
    """Spending entries joined to their reward's type and the value fields it carries."""
    costs = columns(snapshot.reward_costs, "reward_costs", [*_SPENDING, "points"])
    rewards = columns(
        snapshot.rewards,
        "rewards",
        ["id", "type", "digital_type", "digital_gift_voucher_balance", "digital_points",
         "digital_points_card_definition_id", "material_product_id", "material_sku_id",
         "digital_campaign_id"],
    )  # fmt: skip
    spending = costs[costs["spending_index"].notna()]
    joined = spending.merge(
        rewards.drop_duplicates("id"), how="left", left_on="reward_id", right_on="id"
    )
    return joined.reset_index(drop=True)


def observed(snapshot: ProgramSnapshot, prices: pd.DataFrame | None) -> pd.DataFrame:
    """The ``BURN_VALUES`` columns from gift voucher balances and ``prices``; card-points
    rewards still without a value, and their ``credited`` / ``target`` columns added (the
    costs x rewards join ``burn_from`` finishes; ``repriced`` reuses it)."""
    c = _costs(snapshot)
    given = prices_of(prices)
    digital = c["digital_type"].astype("string")
    gift = (digital == "GIFT_VOUCHERS").fillna(False)
    balance = c["digital_gift_voucher_balance"].astype("Float64").where(gift)
    priced = pd.Series(pd.NA, index=c.index, dtype="Float64")
    for key in ("material_sku_id", "material_product_id", "digital_campaign_id"):
        if len(given):
            priced = priced.fillna(lookup(c[key], given, "Float64"))
    card_points = (digital == "LOYALTY_CARD_POINTS").fillna(False)
    priced = priced.where(~gift & ~card_points)
    value = balance.fillna(priced)
    source = pd.Series(pd.NA, index=c.index, dtype=_SOURCE)  # typed as BURN_VALUES types it
    source[balance.notna()] = ValueSource.GIFT_VOUCHER_BALANCE.value
    source[balance.isna() & priced.notna()] = ValueSource.PRICE.value
    reason = lookup(digital.fillna(c["type"].astype("string")), pd.Series(_REASONS))
    reason[gift & balance.isna()] = "gift voucher without a balance"
    return pd.DataFrame(
        {
            "reward_id": c["reward_id"],
            "reward_name": c["reward_name"],
            "reward_status": c["reward_status"],
            "reward_type": c["type"],
            "digital_type": c["digital_type"],
            "cost_id": c["cost_id"],
            "spending_index": c["spending_index"],
            "card_definition_id": c["card_definition_id"],
            "card_definition_name": lookup(
                c["card_definition_id"], names_of(snapshot.card_definitions)
            ),
            "points": c["points"],
            "value": value,
            "value_source": source,
            "value_per_point": _per_point(value, c["points"]),
            "reason": reason,
            "credited": c["digital_points"].astype("Float64").where(card_points),
            "target": c["digital_points_card_definition_id"],
        }
    )


def _per_point(value: pd.Series, points: pd.Series) -> pd.Series:
    """``value / points``; NA where either is unknown or points is 0 (never inf)."""
    points = points.astype("Float64")
    return (value.astype("Float64") / points.where(points > 0)).astype("Float64")


def active(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of ACTIVE rewards: what a point buys today."""
    return frame[(frame["reward_status"] == RewardStatus.ACTIVE.value).fillna(False)]


def burn_values(snapshot: ProgramSnapshot, prices: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per reward cost spending entry: points, the value they buy and the value
    per point (``BURN_VALUES``).

    The value is a gift voucher's balance, else the user's ``prices`` (columns ``id``: a
    SKU, product or campaign ID; ``value`` in minor units; looked up by SKU, then product,
    then campaign). A card-points reward is worth the points it credits x the target card
    definition's median value per point, taken from ACTIVE rewards' other observations and
    its exchange ratio. Where none applies, value is NA and ``reason`` says why.
    """
    return burn_from(snapshot, observed(snapshot, prices))


def repriced(seen: pd.DataFrame, snapshot: ProgramSnapshot) -> pd.DataFrame | None:
    """``seen`` (``observed`` of a snapshot) with ``snapshot``'s points, when ``snapshot``'s
    reward costs are the same spending entries but for their points (and its rewards, card
    definitions and prices are those ``seen`` was read with); None when they are not. A
    price edit need not join 50,000 costs to their rewards again."""
    costs = snapshot.reward_costs
    spending = costs[costs["spending_index"].notna()]
    if len(spending) != len(seen) or "points" not in spending:
        return None
    for name in _SPENDING:
        if name not in spending or not seen[name].array.equals(spending[name].array):
            return None
    out = seen.assign(points=spending["points"].array)
    out["value_per_point"] = _per_point(out["value"], out["points"])
    return out


def burn_from(snapshot: ProgramSnapshot, seen: pd.DataFrame) -> pd.DataFrame:
    """``burn_values`` from its ``observed`` part: card-points rewards valued, then the value
    per point and the reason."""
    frame = seen.copy(deep=False)
    ratios = exchange_ratios(snapshot.card_definitions)
    medians = spread(active(frame), ratios)["median"]
    worth = frame["credited"] * lookup(frame["target"], medians, "Float64")
    frame["value"] = frame["value"].fillna(worth)
    frame.loc[worth.notna(), "value_source"] = ValueSource.CARD_POINTS.value
    frame["value_per_point"] = _per_point(frame["value"], frame["points"])
    known = frame["value_per_point"].notna()
    reason = frame["reason"].fillna("no value in the data")
    reason[frame["value"].notna()] = "the cost charges no points"
    frame["reason"] = reason.mask(known)
    return BURN_VALUES.conform(frame)
