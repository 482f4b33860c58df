"""``summarise``: every economics frame at once, and headline figures computed by hand."""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd
import pytest
from audit.programs import clean_program
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.economics import ECONOMICS_SCHEMAS, Economics, summarise

from .priced_program import gift_card, returning, with_gift_cards


@pytest.fixture(scope="module")
def priced(
    start_sandbox: StartSandbox, make_client: Callable[..., LoyaltyClient]
) -> ProgramSnapshot:
    """The clean program (500 points on a card, 120 pending) with point value 0.5, earning
    5 points per 100 minor units spent."""
    with start_sandbox(returning(clean_program(), 5)) as sb, make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture(scope="module")
def summary(priced: ProgramSnapshot) -> Economics:
    """``summarise(priced)`` with its defaults, once per module (the tests only read it)."""
    return summarise(priced)


def test_headline_figures_by_hand(priced: ProgramSnapshot) -> None:
    summary = summarise(priced, redemption_rate=0.8)
    # (500 + 120) points x 0.5 per point x 0.8 redeemed = 248 minor units; one value, so
    # low = median = high. Return: 5 / 100 points per unit x 0.5 = 2.5 % of spend.
    assert summary.headline == {
        "card_definitions": 1,
        "outstanding_points": 500,
        "pending_points": 120,
        "redemption_rate": 0.8,
        "liability_low": 248.0,
        "liability_median": 248.0,
        "liability_high": 248.0,
        "unvalued_points": 0,
        "highest_effective_return": pytest.approx(0.025),
        "mispriced_rewards": 0,
    }
    assert summary.redemption_method == "0.8 as given"


def test_an_overridden_point_value_reaches_every_figure(priced: ProgramSnapshot) -> None:
    [definition] = priced.card_definitions["id"].tolist()
    summary = summarise(priced, override={definition: 2.0})
    # (500 + 120) points x 2.0 per point x 1.0 redeemed = 1,240; return 5 / 100 x 2.0 = 10 %.
    assert summary.headline["liability_median"] == 1_240.0
    assert summary.headline["highest_effective_return"] == pytest.approx(0.10)
    assert summary.point_values["source"].tolist() == ["override"]


def test_a_rate_neither_stated_nor_estimated_says_so(priced: ProgramSnapshot) -> None:
    summary = summarise(priced, redemption_rate=None)
    assert summary.liability["value_median"].isna().all()
    assert summary.redemption_method.startswith("not stated")


def test_frames_follow_their_schemas(summary: Economics) -> None:
    frames = summary.frames()
    schemas = ECONOMICS_SCHEMAS
    assert set(frames) == set(schemas)
    for name, frame in frames.items():
        assert list(frame.columns) == schemas[name].names, name
        assert frame.dtypes.tolist() == [c.dtype for c in schemas[name].columns], name


def test_points_without_a_value_are_counted_apart(
    start_sandbox: StartSandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    # No reward gives the clean program's points a value: no liability to give (not 0),
    # 620 unvalued.
    with start_sandbox(clean_program()) as sb, make_client(sb) as client:
        snapshot = ProgramSnapshot.pull(client, progress=False)
    summary = summarise(snapshot)
    headline = summary.headline
    assert headline["liability_median"] is None and headline["unvalued_points"] == 620
    assert summary.not_given["liability_median"] == "no point value observed"
    assert headline["highest_effective_return"] is None


def test_mispriced_rewards_are_counted(
    start_sandbox: StartSandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    program = with_gift_cards(
        clean_program(),
        *(gift_card(f"lrew_0a{i}", 500, 1000) for i in range(1, 4)),
        gift_card("lrew_0a9", 500, 100),  # 5 per point, 10x the median 0.5
    )
    with start_sandbox(program) as sb, make_client(sb) as client:
        summary = summarise(ProgramSnapshot.pull(client, progress=False))
    assert summary.mispriced["reward_id"].tolist() == ["lrew_0a9"]
    assert summary.mispriced["ratio"].tolist() == [10.0]
    assert summary.headline["mispriced_rewards"] == 1
    assert not math.isnan(summary.headline["liability_median"] or math.nan)


def test_an_empty_history_gives_an_empty_over_time_frame(summary: Economics) -> None:
    over = summary.over_time
    assert over.empty and list(over.columns) == ECONOMICS_SCHEMAS["economics_over_time"].names
    assert isinstance(over["pulled_at"].dtype, pd.DatetimeTZDtype)
