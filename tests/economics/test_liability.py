"""Liability per card definition and IFRS 15 revenue, checked against figures worked by hand."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from snapshot.helpers import frame, snapshot

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.economics import ECONOMICS_SCHEMAS, liability, recognised_revenue
from lyt_toolkit.economics.liability import liability_from, points_by_definition

from .owed_program import (
    BEANS,
    GIFT_CARD,
    SPARE,
    STARS,
    cards_of,
    hand_values,
    owed_program,
    pending_of,
    pull_program,
)


@pytest.fixture(scope="module")
def owed(start_sandbox: Callable[..., Any], make_client: Callable[..., Any]) -> ProgramSnapshot:
    return pull_program(start_sandbox, make_client, owed_program())


def _row(frame: pd.DataFrame, definition: str) -> pd.Series:
    rows = frame[frame["card_definition_id"] == definition]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_points_and_values_per_definition_by_hand(owed: ProgramSnapshot) -> None:
    program, values = owed_program(), hand_values().set_index("card_definition_id")
    owed_frame = liability(owed, hand_values(), redemption_rate=0.8)
    assert list(owed_frame["card_definition_id"]) == sorted([BEANS, STARS, SPARE])
    for definition in (BEANS, STARS):
        row = _row(owed_frame, definition)
        outstanding = sum(c["balance"]["points"] for c in cards_of(program, definition))
        pending = sum(b["points"]["total"] for b in pending_of(program, definition))
        assert (row["outstanding_points"], row["pending_points"]) == (outstanding, pending)
        assert row["redemption_rate"] == 0.8
        for level in ("low", "median", "high"):
            expected = (outstanding + pending) * values.loc[definition, level] * 0.8
            assert row[f"value_{level}"] == pytest.approx(expected)
        median = values.loc[definition, "median"]
        assert row["outstanding_value_median"] == pytest.approx(outstanding * median * 0.8)
        assert row["pending_value_median"] == pytest.approx(pending * median * 0.8)
    # Beans: (500 + 1200 + 120 + 80 + 40) x 1.0 x 0.8, the ACTIVATED bucket left out.
    assert _row(owed_frame, BEANS)["value_median"] == pytest.approx(1552.0)


def test_values_default_to_the_snapshots_point_values(owed: ProgramSnapshot) -> None:
    voucher = GIFT_CARD["digital"]["gift_vouchers"]["balance"]
    per_point = voucher / GIFT_CARD["costs"][0]["spending"][0]["points"]  # 200 / 400
    by_default = liability(owed, redemption_rate=0.8)
    row = _row(by_default, BEANS)
    owed_points = row["outstanding_points"] + row["pending_points"]
    for level in ("low", "median", "high"):
        assert row[f"value_{level}"] == pytest.approx(owed_points * per_point * 0.8)
    assert by_default["value_median"].isna().sum() == 2  # Stars and Spare: no observation


def test_definition_without_cards_or_value_owes_nothing_known(owed: ProgramSnapshot) -> None:
    row = _row(liability(owed, hand_values()), SPARE)
    assert (row["card_definition_name"], row["outstanding_points"], row["pending_points"]) == (
        "Spare",
        0,
        0,
    )
    for column in ("value_low", "value_median", "value_high", "pending_value_median"):
        assert pd.isna(row[column]), column


def test_definition_missing_from_values_is_na_and_unstated_rate_too(
    owed: ProgramSnapshot,
) -> None:
    only_beans = hand_values().iloc[:1]
    owed_frame = liability(owed, only_beans)
    assert pd.isna(_row(owed_frame, STARS)["value_median"])
    assert _row(owed_frame, BEANS)["value_median"] == pytest.approx(1940.0)
    unstated = liability(owed, hand_values(), redemption_rate=None)
    assert unstated["redemption_rate"].isna().all() and unstated["value_high"].isna().all()


@pytest.mark.parametrize("rate", [-0.1, 1.5, math.nan, True, "0.5"])
def test_redemption_rate_out_of_range_is_refused_by_name(owed: ProgramSnapshot, rate: Any) -> None:
    with pytest.raises(ValueError, match="redemption_rate"):
        liability(owed, hand_values(), redemption_rate=rate)


def test_values_frame_errors_name_the_column(owed: ProgramSnapshot) -> None:
    with pytest.raises(ValueError, match=r"lacks columns \['median'\]"):
        liability(owed, hand_values().drop(columns="median"))
    negative = hand_values().assign(high=pd.array([2.0, -3.0, None], dtype="Float64"))
    with pytest.raises(ValueError, match=rf"'high'.*{STARS}"):
        liability(owed, negative)
    with pytest.raises(ValueError, match="'low' holds a non-number"):
        liability(owed, hand_values().assign(low=["a", "b", "c"]))
    with pytest.raises(ValueError, match=f"repeats.*{BEANS}"):
        liability(owed, pd.concat([hand_values(), hand_values().iloc[:1]]))


def _snapshot(balances: list[int | None], pending: list[int]) -> ProgramSnapshot:
    """A snapshot built from frames: one card definition, these cards and PENDING buckets."""
    cards = [
        {"id": f"lcrd_{i}", "card_definition_id": BEANS, "balance_points": b}
        for i, b in enumerate(balances)
    ]
    buckets = [
        {"id": f"lcppb_{i}", "card_definition_id": BEANS, "points_total": p, "status": "PENDING"}
        for i, p in enumerate(pending)
    ]
    return snapshot(
        card_definitions=frame("card_definitions", {"id": BEANS, "name": "Beans"}),
        cards=frame("cards", *cards),
        pending_buckets=frame("pending_buckets", *buckets),
    )


points = st.lists(st.integers(0, 10**9), max_size=5)


@given(points, points, st.floats(0, 1e4), st.floats(0, 1))
def test_liability_is_linear_in_rate_and_point_value(
    balances: list[int | None], pending: list[int], value: float, rate: float
) -> None:
    """``liability`` of the cards and buckets by hand; at another rate or value per point, the
    same points (``points_by_definition``, what ``liability`` values) valued again."""
    owed = _snapshot(balances, pending)
    values = pd.DataFrame({"card_definition_id": [BEANS], "low": [value], "median": [value]})
    values["high"] = value
    at_rate = liability(owed, values, rate).iloc[0]
    points = points_by_definition(owed)
    at_one = liability_from(points, values, 1.0).iloc[0]
    assert at_rate["value_median"] == pytest.approx(at_one["value_median"] * rate)
    doubled = values.assign(median=2 * value)
    assert liability_from(points, doubled, rate).iloc[0]["value_median"] == pytest.approx(
        2 * at_rate["value_median"]
    )
    by_hand = (sum(b or 0 for b in balances) + sum(pending)) * value * rate
    assert at_rate["value_median"] == pytest.approx(by_hand)
    assert math.isfinite(at_rate["value_high"])


def test_unknown_balance_gives_na_never_zero() -> None:
    owed = _snapshot([100, None], [])
    values = pd.DataFrame({"card_definition_id": [BEANS], "low": [1.0], "median": [1.0]})
    row = liability(owed, values.assign(high=1.0)).iloc[0]
    assert pd.isna(row["outstanding_points"]) and pd.isna(row["value_median"])


def test_empty_program_gives_the_declared_dtypes() -> None:
    empty = ProgramSnapshot.from_frames({})
    owed = liability(empty, hand_values().iloc[:0])
    assert owed.empty
    assert dict(owed.dtypes) == ECONOMICS_SCHEMAS["liability"].dtypes


@pytest.mark.parametrize(
    ("kind", "names"),
    [
        ("liability", ["value_low", "value_median", "value_high", "pending_value_median"]),
        ("liability", ["outstanding_value_median"]),
        ("economics_over_time", ["liability_median"]),
    ],
)
def test_money_columns_say_their_unit(kind: str, names: list[str]) -> None:
    for name in names:
        assert re.search(r"minor (currency )?units", ECONOMICS_SCHEMAS[kind].by_name[name].doc), (
            name
        )


def test_ifrs15_illustrative_example_52() -> None:
    allocated = 100_000 * 9_500 / 109_500  # relative standalone selling prices: 8,676
    assert round(allocated) == 8_676
    year_1 = recognised_revenue(allocated, 10_000, 0.95, 4_500)  # 8,676 x 4,500 / 9,500
    year_2 = recognised_revenue(allocated, 10_000, 0.97, 8_500)  # 8,676 x 8,500 / 9,700
    assert (round(year_1), round(year_2), round(year_2 - year_1)) == (4_110, 7_603, 3_493)


def test_ifrs15_worked_example_reproduces_4175() -> None:
    issued, expected, redeemed, allocated = 10_000, 0.97, 4_500, 9_000
    by_hand = allocated * redeemed / (issued * expected)  # 9,000 x 4,500 / 9,700
    assert recognised_revenue(allocated, issued, expected, redeemed) == pytest.approx(by_hand)
    assert round(recognised_revenue(allocated, issued, expected, redeemed)) == 4_175
    # Every expected point redeemed (and more): everything allocated is recognised, no more.
    assert recognised_revenue(allocated, issued, expected, 9_800) == allocated


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((-1, 10_000, 0.97, 4_500), "allocated"),
        ((9_000, 0, 0.97, 4_500), "points_issued"),
        ((9_000, 10_000, 0, 4_500), "expected_redemption"),
        ((9_000, 10_000, 1.2, 4_500), "expected_redemption"),
        ((9_000, 10_000, 0.97, math.inf), "redeemed"),
    ],
)
def test_recognised_revenue_refuses_bad_inputs_by_name(args: tuple[Any, ...], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        recognised_revenue(*args)
