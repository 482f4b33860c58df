"""Properties of the economics frames on generated programs built with ``from_frames``."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.economics import (
    ECONOMICS_SCHEMAS,
    burn_values,
    earn_rates,
    effective_return,
    point_values,
)
from lyt_toolkit.economics.value import values_from

from .conftest import snapshot_of
from .programs import STARS, card_definition, proportional, reward

FRAMES = {
    "earn_rates": earn_rates,
    "burn_values": burn_values,
    "point_values": point_values,
    "effective_return": effective_return,
}


@pytest.mark.parametrize("name", FRAMES)
def test_an_empty_program_gives_empty_frames_with_declared_dtypes(name: str) -> None:
    frame = FRAMES[name](ProgramSnapshot.from_frames({}))
    assert frame.empty
    assert list(frame.columns) == ECONOMICS_SCHEMAS[name].names
    assert frame.dtypes.to_dict() == ECONOMICS_SCHEMAS[name].dtypes


def _material(i: int, points: int) -> dict[str, object]:
    return reward(f"lrew_f{i:03x}", f"Thing {i}", [(points, STARS)], type="MATERIAL",
                  material={"type": "PRODUCT", "product": {"id": f"prod_f{i}"}})  # fmt: skip


def _coupon(i: int, points: int) -> dict[str, object]:
    return reward(f"lrew_c{i:03x}", f"Coupon {i}", [(points, STARS)], type="DIGITAL",
                  digital={"type": "DISCOUNT_COUPONS",
                           "discount_coupons": {"campaign_id": f"camp_c{i}"}})  # fmt: skip


FORMULAS = st.sampled_from([None, "POINTS + 1", "POINTS / 0", "max(POINTS, 3)", "POINTS"])
COSTS = st.lists(st.integers(0, 10_000), max_size=6)


@settings(max_examples=25)  # each example builds a snapshot and four frames
@given(formula=FORMULAS, materials=COSTS, coupons=COSTS)
def test_a_card_definition_without_observations_is_na_never_zero_or_inf(
    formula: str | None, materials: list[int], coupons: list[int]
) -> None:
    pay = {"type": "EXCHANGE_RATIO", "exchange_ratio": {"formula": formula}} if formula else {}
    program = {
        "card_definitions": [card_definition(STARS, "Stars", **({"pay_with_points": pay}
                                                                  if pay else {}))],
        "rewards": [_material(i, p) for i, p in enumerate(materials)]
        + [_coupon(i, p) for i, p in enumerate(coupons)],
    }  # fmt: skip
    snapshot = snapshot_of(program)
    burn = burn_values(snapshot)
    assert burn["value_per_point"].isna().all()
    assert burn["reason"].notna().all()
    values = point_values(snapshot)
    first = values.iloc[0]
    assert first["observations"] == 0
    assert first["source"] == "none"
    assert all(pd.isna(first[c]) for c in ("low", "median", "high", "exchange_ratio"))
    back = effective_return(snapshot, values).iloc[0]  # the values it takes by default
    assert pd.isna(back["return_median"])


PRICED = st.lists(st.tuples(st.integers(1, 100_000), st.integers(0, 10_000)), min_size=1,
                  max_size=8)  # fmt: skip


@settings(max_examples=25)
@given(priced=PRICED, scale=st.sampled_from([0.5, 2, 3, 10, 0.01]), free=st.integers(0, 3))
def test_values_scale_linearly_with_prices(
    priced: list[tuple[int, int]], scale: float, free: int
) -> None:
    program = {
        "card_definitions": [card_definition(STARS, "Stars")],
        "benefits": [proportional("lben_f001", "rate", STARS, "order.amount",
                                  {"every": 100, "value": 3})],
        "rewards": [_material(i, p) for i, (p, _) in enumerate(priced)]
        + [_material(100 + i, 0) for i in range(free)],
    }  # fmt: skip
    ids = [f"prod_f{i}" for i in range(len(priced))] + [f"prod_f{100 + i}" for i in range(free)]
    amounts = [v for _, v in priced] + [7] * free
    snapshot = snapshot_of(program)
    base = pd.DataFrame({"id": ids, "value": amounts})
    scaled = base.assign(value=base["value"] * scale)
    one, other = burn_values(snapshot, base), burn_values(snapshot, scaled)
    expected = one["value_per_point"] * scale
    assert (other["value_per_point"].isna() == expected.isna()).all()
    assert other["value_per_point"].dropna().tolist() == pytest.approx(expected.dropna().tolist())
    assert not any(math.isinf(v) for v in other["value_per_point"].dropna())
    # point_values(snapshot, prices) is values_from the burn values at those prices
    values, values_scaled = values_from(snapshot, one), values_from(snapshot, other)
    a, b = values.iloc[0], values_scaled.iloc[0]
    r1 = effective_return(snapshot, values).iloc[0]
    r2 = effective_return(snapshot, values_scaled).iloc[0]
    for level in ("low", "median", "high"):
        assert b[level] == pytest.approx(a[level] * scale)
        assert r2[f"return_{level}"] == pytest.approx(r1[f"return_{level}"] * scale)
