"""Earn rates, burn values, point values and effective return on the small program of
``programs.py``, pulled over HTTP; every expected figure is worked out from the program."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from frame_reads import cell

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.economics import (
    ECONOMICS_SCHEMAS,
    burn_values,
    earn_rates,
    economics_over_time,
    effective_return,
    expiry_schedule,
    liability,
    mispriced,
    pending_schedule,
    point_values,
)

from .programs import GEMS, MILES, STARS

PRICES = pd.DataFrame({"id": ["prod_e0mug", "camp_e0coupon"], "value": [450, 100]})

# Values per point of ACTIVE rewards, by hand: balance (or price) / points charged.
STARS_VOUCHERS = [500 / 400, 1000 / 1000]
STARS_EXCHANGE = 1 / 50  # "POINTS / 50"
GEMS_VOUCHER = 1000 / 250


def by(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    return frame.set_index(column)


def test_earn_rates_are_value_per_every_for_proportional_benefits(
    pulled: ProgramSnapshot,
) -> None:
    rates = by(earn_rates(pulled), "benefit_id")
    assert sorted(rates.index) == [f"lben_e00{i}" for i in range(1, 7)]
    assert rates.loc["lben_e001", "points_per_unit"] == 2 / 100
    assert rates.loc["lben_e002", "points_per_unit"] == 3 / 100
    assert rates.loc["lben_e005", "points_per_unit"] == 1 / 200
    assert rates.loc["lben_e004", "points_per_unit"] == 10 / 1
    assert rates.loc["lben_e004", "basis"] == "customer.metadata"
    assert not rates.loc["lben_e004", "amount_based"]
    assert rates.loc["lben_e002", "basis"] == "order.total_amount"
    assert rates.loc["lben_e002", "amount_based"]
    assert rates.loc["lben_e006", "points"] == 100
    assert pd.isna(cell(rates, "lben_e006", "points_per_unit"))
    assert rates.loc["lben_e006", "card_definition_name"] == "Miles"


def test_burn_values_come_from_balances_and_card_points(pulled: ProgramSnapshot) -> None:
    burn = by(burn_values(pulled), "cost_id")
    assert burn.loc["lrcst_e0010", "value_per_point"] == 500 / 400
    assert burn.loc["lrcst_e0021", "value_per_point"] == 1000 / 250
    assert burn.loc["lrcst_e0010", "value_source"] == "gift_voucher_balance"
    # 80 Stars credited, at the Stars median of the other ACTIVE observations, for 100 Gems.
    stars_median = pd.Series([*STARS_VOUCHERS, STARS_EXCHANGE]).median()
    assert burn.loc["lrcst_e0050", "value"] == 80 * stars_median
    assert burn.loc["lrcst_e0050", "value_per_point"] == 80 * stars_median / 100
    assert burn.loc["lrcst_e0050", "value_source"] == "card_points"
    for cost, why in [("lrcst_e0030", "material"), ("lrcst_e0040", "coupon"),
                      ("lrcst_e0060", "card points")]:  # fmt: skip
        assert pd.isna(cell(burn, cost, "value_per_point"))
        assert why in cell(burn, cost, "reason")
    assert burn["reason"].isna().eq(burn["value_per_point"].notna()).all()


def test_prices_fill_material_and_coupon_values(pulled: ProgramSnapshot) -> None:
    burn = by(burn_values(pulled, PRICES), "cost_id")
    assert burn.loc["lrcst_e0030", "value_per_point"] == 450 / 300
    assert burn.loc["lrcst_e0040", "value_per_point"] == 100 / 200
    assert (burn.loc[["lrcst_e0030", "lrcst_e0040"], "value_source"] == "price").all()


def test_point_values_spread_active_observations_and_the_exchange_ratio(
    pulled: ProgramSnapshot,
) -> None:
    values = by(point_values(pulled), "card_definition_id")
    stars = [*STARS_VOUCHERS, STARS_EXCHANGE]  # the INACTIVE $20 voucher does not count
    assert values.loc[STARS, "observations"] == len(stars)
    assert values.loc[STARS, "low"] == min(stars)
    assert values.loc[STARS, "median"] == pd.Series(stars).median()
    assert values.loc[STARS, "high"] == max(stars)
    assert values.loc[STARS, "exchange_ratio"] == STARS_EXCHANGE
    gems = [GEMS_VOUCHER, 80 * pd.Series(stars).median() / 100]
    assert values.loc[GEMS, "median"] == pd.Series(gems).median()
    assert values.loc[GEMS, "low"] == min(gems)
    assert values.loc[GEMS, "source"] == "observed"
    assert values.loc[MILES, "observations"] == 0
    assert values.loc[MILES, ["low", "median", "high"]].isna().all()
    assert values.loc[MILES, "source"] == "none"


def test_prices_add_observations(pulled: ProgramSnapshot) -> None:
    values = by(point_values(pulled, PRICES), "card_definition_id")
    stars = [*STARS_VOUCHERS, STARS_EXCHANGE, 450 / 300, 100 / 200]
    assert values.loc[STARS, "observations"] == len(stars)
    assert values.loc[STARS, "median"] == pd.Series(stars).median()


def test_an_override_replaces_the_range(pulled: ProgramSnapshot) -> None:
    values = by(point_values(pulled, override={MILES: 0.75}), "card_definition_id")
    assert (values.loc[MILES, ["low", "median", "high"]] == 0.75).all()
    assert values.loc[MILES, "source"] == "override"
    assert values.loc[STARS, "source"] == "observed"


@pytest.mark.parametrize(
    ("override", "named"),
    [({"lcdef_nope": 1.0}, "lcdef_nope"), ({MILES: -1}, MILES), ({MILES: "1"}, MILES),
     ({MILES: float("inf")}, MILES)],
)  # fmt: skip
def test_a_bad_override_is_refused_naming_the_key(
    pulled: ProgramSnapshot, override: dict[str, object], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        point_values(pulled, override=override)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prices", "named"),
    [
        (pd.DataFrame({"id": ["prod_e0mug"]}), "value"),
        (pd.DataFrame({"sku": ["x"], "value": [1]}), "id"),
        (pd.DataFrame({"id": ["a", "a"], "value": [1, 2]}), "'a'"),
        (pd.DataFrame({"id": ["a"], "value": ["lots"]}), "'a'"),
        (pd.DataFrame({"id": ["a"], "value": [-5]}), "'a'"),
    ],
)
def test_bad_prices_are_refused_naming_the_column_or_id(
    pulled: ProgramSnapshot, prices: pd.DataFrame, named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        burn_values(pulled, prices)


def test_effective_return_is_the_median_earn_rate_times_the_point_values(
    pulled: ProgramSnapshot,
) -> None:
    back = by(effective_return(pulled), "card_definition_id")
    values = by(point_values(pulled), "card_definition_id")
    stars_earn = (2 / 100 + 3 / 100) / 2  # ACTIVE amount-based only: not the DRAFT, not visits
    assert back.loc[STARS, "earn_points_per_unit"] == stars_earn
    assert back.loc[STARS, "benefits"] == 2
    for level in ("low", "median", "high"):
        assert back.loc[STARS, f"return_{level}"] == pytest.approx(
            stars_earn * cell(values, STARS, level)
        )
        assert back.loc[GEMS, f"return_{level}"] == pytest.approx(
            1 / 200 * cell(values, GEMS, level)
        )
    assert back.loc[STARS, "return_median"] == pytest.approx(0.025 * 1.0)  # 2.5 % of spend
    assert back.loc[MILES, "benefits"] == 0
    assert back.loc[MILES, ["earn_points_per_unit", "return_median"]].isna().all()


def test_effective_return_takes_the_values_given(pulled: ProgramSnapshot) -> None:
    values = point_values(pulled, override={MILES: 2.0, STARS: 0.5})
    back = by(effective_return(pulled, values), "card_definition_id")
    assert back.loc[STARS, "return_low"] == pytest.approx((2 / 100 + 3 / 100) / 2 * 0.5)


def test_every_frame_has_its_declared_columns_and_dtypes(pulled: ProgramSnapshot) -> None:
    frames = {
        "earn_rates": earn_rates(pulled),
        "burn_values": burn_values(pulled),
        "point_values": point_values(pulled),
        "effective_return": effective_return(pulled),
        "liability": liability(pulled),
        "pending_schedule": pending_schedule(pulled),
        "expiry_schedule": expiry_schedule(pulled),
        "economics_over_time": economics_over_time([pulled]),
        "mispriced": mispriced(burn_values(pulled), point_values(pulled)),
    }
    assert frames.keys() == ECONOMICS_SCHEMAS.keys()
    for name, frame in frames.items():
        assert frame.dtypes.to_dict() == ECONOMICS_SCHEMAS[name].dtypes, name


MONEY = {
    "burn_values": ["value", "value_per_point"],
    "point_values": ["low", "median", "high", "exchange_ratio"],
}


@pytest.mark.parametrize(("kind", "names"), MONEY.items())
def test_money_columns_say_their_unit(kind: str, names: list[str]) -> None:
    for name in names:
        assert re.search(r"minor (currency )?units", ECONOMICS_SCHEMAS[kind].by_name[name].doc)


def test_a_snapshot_without_the_new_columns_is_refused_naming_them(
    pulled: ProgramSnapshot,
) -> None:
    old = ProgramSnapshot.from_frames(
        {"benefits": pulled.benefits.drop(columns=["proportional_every"])}
    )
    with pytest.raises(ValueError, match="proportional_every"):
        earn_rates(old)
