"""The demo program carries what program economics needs, and its declared economic defects.

The demo is pulled over HTTP; every expected figure below is worked out by hand from the
records documented in data/README.md ("The demo program: what each record is for").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox

DEMO = Path(__file__).resolve().parents[2] / "lyt_toolkit" / "sandbox" / "demo_program.json"
BEANS, GOLD, PERKS, MILES = (f"lcdef_c0ffee000{n}" for n in (1, 2, 3, 6))

# ACTIVE gift-voucher rewards: voucher balance (minor units) / points cost
VALUE_PER_POINT = {
    "lrew_c0ffee0009": (BEANS, 500 / 500),  # $5 Gift Card
    "lrew_c0ffee000a": (BEANS, 1000 / 950),  # $10 Gift Card
    "lrew_c0ffee0021": (BEANS, 200 / 200),  # $2 Gift Card
    "lrew_c0ffee0022": (BEANS, 2000 / 400),  # $20 Gift Card: 5.0, mispriced
    "lrew_c0ffee0023": (BEANS, 300 / 3000),  # $3 Gift Card: 0.1, mispriced
    "lrew_c0ffee0024": (GOLD, 500 / 50),  # $5 Gold Gift Card
    "lrew_c0ffee0025": (GOLD, 1500 / 150),  # $15 Gold Gift Card
}
# medians by hand: Beans sorted 0.1, 1.0, 1.0, 1.0526, 5.0 -> 1.0; Gold 10.0, 10.0 -> 10.0
MEDIAN = {BEANS: 1.0, GOLD: 10.0}


@pytest.fixture(scope="module")
def demo(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> Iterator[ProgramSnapshot]:
    with start_sandbox() as sb, make_client(sb) as client:
        yield ProgramSnapshot.pull(client, progress=False)


def gift_voucher_values(snapshot: ProgramSnapshot) -> pd.DataFrame:
    rewards = snapshot.rewards
    gift = rewards[(rewards["status"] == "ACTIVE") & (rewards["digital_type"] == "GIFT_VOUCHERS")]
    costs = snapshot.reward_costs.merge(gift, left_on="reward_id", right_on="id")
    costs["value_per_point"] = costs["digital_gift_voucher_balance"] / costs["points"]
    return costs.set_index("reward_id")


def test_gift_vouchers_give_the_documented_value_per_point(demo: ProgramSnapshot) -> None:
    values = gift_voucher_values(demo)
    assert set(values.index) == set(VALUE_PER_POINT)
    for reward_id, (card_definition, value) in VALUE_PER_POINT.items():
        assert values.loc[reward_id, "card_definition_id"] == card_definition
        assert values.loc[reward_id, "value_per_point"] == pytest.approx(value)
    medians = values.groupby("card_definition_id")["value_per_point"].median()
    assert medians.to_dict() == pytest.approx(MEDIAN)


def test_exactly_two_rewards_are_more_than_3x_from_their_median(demo: ProgramSnapshot) -> None:
    values = gift_voucher_values(demo)
    median = values["card_definition_id"].map(MEDIAN)
    ratio = values["value_per_point"] / median
    mispriced = values.index[(ratio > 3) | (ratio < 1 / 3)]
    assert sorted(mispriced) == ["lrew_c0ffee0022", "lrew_c0ffee0023"]


def test_one_active_card_definition_has_points_with_no_way_out(demo: ProgramSnapshot) -> None:
    benefits, costs = demo.benefits, demo.reward_costs
    earning = benefits[
        (benefits["status"] == "ACTIVE") & benefits["type"].isin(["POINTS", "POINTS_PROPORTIONAL"])
    ]
    on_active = earning["card_definition_status"] == "ACTIVE"
    spent = costs.loc[costs["reward_status"] == "ACTIVE", "card_definition_id"]
    assert set(earning.loc[on_active, "card_definition_id"]) - set(spent) == {PERKS}
    not_active = earning.loc[~on_active & earning["card_definition_found"], "id"]
    assert list(not_active) == ["lben_c0ffee0003"]  # on the DRAFT "Holiday Beans 2026"


def test_gold_stars_return_more_than_10_percent_of_spend(demo: ProgramSnapshot) -> None:
    # the benefits frame does not carry the proportional rates yet: read them from the file
    raw = json.loads(DEMO.read_text(encoding="utf-8"))
    active = set(demo.benefits.loc[demo.benefits["status"] == "ACTIVE", "id"])
    rates: dict[str, list[float]] = {}
    for benefit in raw["benefits"]:
        proportional = benefit.get("points_proportional") or {}
        amount = (
            proportional.get("order", {}).get("amount")
            or proportional.get("order", {}).get("total_amount")
            or proportional.get("order_items", {}).get("amount")
        )
        if benefit["id"] in active and amount:
            rate = amount["value"] / amount["every"]
            rates.setdefault(proportional["card_definition_id"], []).append(rate)
    assert rates[GOLD] == [1.5 / 100]
    assert sorted(rates[BEANS]) == [1 / 100, 2 / 100]
    assert rates[GOLD][0] * MEDIAN[GOLD] == pytest.approx(0.15)  # above the 10 % cap
    assert (1 / 100 + 2 / 100) / 2 * MEDIAN[BEANS] == pytest.approx(0.015)  # below it


def test_pending_points_arrive_over_the_coming_months(demo: ProgramSnapshot) -> None:
    buckets = demo.pending_buckets.drop_duplicates("id")
    miles = buckets[(buckets["card_id"] == "lcrd_c0ffee000a") & (buckets["status"] == "PENDING")]
    assert sorted(miles["points_total"]) == [600, 800, 1200, 1500]
    assert miles["date"].dt.strftime("%Y-%m").tolist() == [
        "2026-02", "2026-03", "2026-05", "2026-06"]  # fmt: skip  # now+40d, +75d, +110d, +160d
    card = demo.cards.drop_duplicates("id").set_index("id").loc["lcrd_c0ffee000a"]
    assert card["balance_pending_points"] == 600 + 800 + 1200 + 1500
    assert card["balance_points"] == 2400
    assert card["card_definition_id"] == MILES
