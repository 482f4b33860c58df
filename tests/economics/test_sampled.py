"""The economics of a sampled snapshot: weighted totals, their intervals, the report."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.economics import (
    ESTIMATES,
    Economics,
    economics_over_time,
    estimate_redemption_rate,
    summarise,
)
from lyt_toolkit.frames.sample import Sample
from lyt_toolkit.reports import ECONOMICS_HTML, MANIFEST, write_economics_report


@pytest.fixture(scope="module")
def every(generated: ProgramSnapshot) -> Economics:
    """The generated program's economics, every member read: summarised once per module."""
    return summarise(generated)


@pytest.fixture(scope="module")
def sampled(generated: ProgramSnapshot) -> ProgramSnapshot:
    """A sample of 60 of the generated program's 300 members (seed 3)."""
    return generated.sampled(Sample(60, seed=3))


@pytest.fixture(scope="module")
def sampled_economics(sampled: ProgramSnapshot) -> Economics:
    """The sample's economics, summarised once per module (the tests only read them)."""
    return summarise(sampled)


def test_a_census_sample_gives_the_full_snapshots_economics_exactly(
    generated: ProgramSnapshot, every: Economics
) -> None:
    census = summarise(generated.sampled(Sample(1_000, seed=1)))
    for name in ("liability", "pending_schedule", "expiry_schedule"):
        pd.testing.assert_frame_equal(getattr(census, name), getattr(every, name))
    headline = census.headline
    for name, value in every.headline.items():
        assert headline[name] == pytest.approx(value), name
    for name in ("outstanding_points", "pending_points", "liability_median"):
        assert headline[f"{name}_ci_low"] == headline[name] == headline[f"{name}_ci_high"]
    assert census.estimates is not None and (census.estimates["se"] == 0).all()


def test_a_samples_totals_are_weighted_and_come_with_intervals(
    every: Economics, sampled: ProgramSnapshot, sampled_economics: Economics
) -> None:
    summary = sampled_economics
    assert summary.sample is sampled.sample
    cards = sampled.cards
    weighted = (cards["balance_points"] * cards["weight"]).sum()
    raw = cards["balance_points"].sum()
    headline = summary.headline
    assert headline["outstanding_points"] == round(weighted) != raw
    assert summary.liability["outstanding_points"].sum() == pytest.approx(weighted, abs=4)
    low, high = headline["outstanding_points_ci_low"], headline["outstanding_points_ci_high"]
    assert low is not None and high is not None
    assert low < weighted < high
    for name in ("pending_points", "liability_low", "liability_median", "liability_high"):
        low, value, high = (headline[f"{name}{part}"] for part in ("_ci_low", "", "_ci_high"))
        assert low is not None and value is not None and high is not None, name
        assert low < value < high, name
    estimates = summary.frames()["estimates"]
    assert list(estimates.columns) == ESTIMATES.names
    assert estimates.dtypes.to_dict() == ESTIMATES.dtypes
    schedule = estimates[estimates["figure"] == "pending_schedule_points"]
    per_month = schedule[schedule["card_definition_id"].isna()]
    by_month = summary.pending_schedule.groupby("month")["points"].sum()
    assert per_month.set_index("month")["estimate"].to_numpy() == pytest.approx(
        by_month.to_numpy(), abs=10
    )
    assert "estimates" not in every.frames()


def test_the_report_says_it_is_a_sample_and_shows_the_intervals(
    sampled_economics: Economics, tmp_path: Path
) -> None:
    summary = sampled_economics
    written = write_economics_report(summary, tmp_path)
    assert tmp_path / "estimates.csv" in written
    page = (tmp_path / ECONOMICS_HTML).read_text(encoding="utf-8")
    assert (
        "estimated from 60 of 300 members (stratified sample by program, status, joined, "
        "seed 3); 95 % intervals"
    ) in page
    low = f"{summary.headline['outstanding_points_ci_low']:,}"
    assert f"95 % CI {low} to" in page
    manifest = json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["sample"].startswith("estimated from 60 of 300 members")
    assert "outstanding_points_ci_high" in manifest["headline"]


def test_economics_over_time_of_samples_estimates_the_programs_figures(
    generated: ProgramSnapshot, sampled: ProgramSnapshot, sampled_economics: Economics
) -> None:
    """A sampled snapshot's cards and buckets count for the members they stand for: per
    card definition the points are the liability's estimates, the members and cards the
    program's (each member of the generated program holds one card), not the sample's."""
    over = economics_over_time([sampled]).set_index("card_definition_id")
    owed = sampled_economics.liability.set_index("card_definition_id").loc[over.index]
    for column in ("outstanding_points", "pending_points"):
        assert list(over[column]) == list(owed[column]), column
    for column in ("members", "cards"):
        assert over[column].sum() == pytest.approx(len(generated.members), abs=len(over))
    assert over["outstanding_points"].sum() != sampled.cards["balance_points"].sum()


def test_a_redemption_rate_from_samples_counts_each_card_for_its_members(
    sampled: ProgramSnapshot,
) -> None:
    """Between two snapshots of one sample, every card but the first spends 10 points and
    the first, of a stratum read more (weight 2, the others 5), earns 1,000: the rate
    weighs each card's move by its weight, as the program's moves would be, not the
    sample's own moves alike."""
    cards = sampled.cards.copy()
    cards.loc[cards.index[0], "weight"] = 2.0  # its stratum read more than the others
    before = replace(sampled, cards=cards)
    weights = cards["weight"].astype(float)
    moved = cards.copy()
    moved["balance_points"] = moved["balance_points"] - 10
    moved.loc[moved.index[0], "balance_points"] += 1_010
    after = replace(before, cards=moved, pulled_at=before.pulled_at + pd.Timedelta(days=30))
    rate, method = estimate_redemption_rate([before, after])
    redeemed, issued = 10 * weights.iloc[1:].sum(), 1_000 * weights.iloc[0]
    assert rate == pytest.approx(min(1.0, redeemed / issued))
    assert rate != pytest.approx(min(1.0, 10 * (len(weights) - 1) / 1_000))
    assert f"{round(redeemed):,} points left card balances" in method
