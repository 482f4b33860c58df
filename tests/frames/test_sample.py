"""Stratified samples of members and the totals estimated from them, on frames built here.

The heavy-tailed frames are our own (lognormal balances growing with tenure), so these tests
do not depend on how the synthetic generator spreads its balances.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from frame_reads import row_of

from lyt_toolkit.frames import members_frame
from lyt_toolkit.frames.sample import (
    PILOT_SHARE,
    Estimate,
    Sample,
    SampleDesign,
    SampleDraw,
    draw_sample,
    estimate_total,
    estimate_totals,
)

NOW = pd.Timestamp("2026-01-15T12:00:00Z")


def members(count: int, *, seed: int = 1, programs: int = 2) -> pd.DataFrame:
    """A members list as ``members_frame`` builds it: joined over two years, 90 % ACTIVE."""
    rng = np.random.default_rng(seed)
    days = rng.uniform(0, 730, count)
    return members_frame(
        {
            "id": f"lmbr_{i:08x}",
            "program_id": f"lprg_{i % programs:04x}",
            "customer_id": f"cust_{i:08x}",
            "status": "ACTIVE" if rng.random() < 0.9 else "INACTIVE",
            "metadata": {},
            "created_at": (NOW - pd.Timedelta(days=float(d))).isoformat(),
        }
        for i, d in enumerate(days)
    )


def heavy_balances(listed: pd.DataFrame, *, sigma: float = 1.2, seed: int = 2) -> pd.Series:
    """Member ID -> lognormal balance whose median grows with tenure (heavy right tail)."""
    rng = np.random.default_rng(seed)
    tenure = (NOW - listed["created_at"]).dt.days.to_numpy()
    points = rng.lognormal(np.log(50 + 5 * tenure), sigma)
    return pd.Series(points.round(), index=listed["id"].to_numpy())


ONE_ROUND: dict[str, Any] = {"allocation": "proportional", "bands": 4}
"""The one-round design these tests were written for: proportional, in four join bands."""


def drawn(listed: pd.DataFrame, sample: Sample, balances: pd.Series | None = None) -> SampleDesign:
    """``draw_sample`` with the pilot's points read from ``balances`` (an adaptive sample)."""
    points = balances if balances is not None else heavy_balances(listed)
    return draw_sample(listed, sample, lambda pilot: points[pilot.units["member_id"].to_numpy()])


@pytest.fixture(scope="module")
def listed() -> pd.DataFrame:
    return members(2_000)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n": 0}, "n"),
        ({"n": 2.5}, "n"),
        ({"n": True}, "n"),
        ({"n": 10, "seed": -1}, "seed"),
        ({"n": 10, "by": ("program", "tier")}, "by"),
        ({"n": 10, "by": ("status", "status")}, "by"),
        ({"n": 10, "by": "status"}, "by"),
        ({"n": 10, "bands": 0}, "bands"),
        ({"n": 10, "allocation": "neyman"}, "allocation"),
        ({"n": 10, "allocation": None}, "allocation"),
    ],
)
def test_a_sample_refuses_what_it_cannot_draw_naming_the_field(
    kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValueError, match=rf"^{field} "):
        Sample(**kwargs)


def test_the_same_seed_and_members_give_the_same_sample_in_any_list_order(
    listed: pd.DataFrame,
) -> None:
    balances = heavy_balances(listed)
    for design in ({}, ONE_ROUND):
        first = drawn(listed, Sample(100, seed=5, **design), balances)
        shuffled = listed.sample(frac=1, random_state=3).reset_index(drop=True)
        again = drawn(shuffled, Sample(100, seed=5, **design), balances)
        pd.testing.assert_frame_equal(first.units, again.units)
        pd.testing.assert_frame_equal(first.strata, again.strata)
        other = drawn(listed, Sample(100, seed=6, **design))
        assert set(other.units["member_id"]) != set(first.units["member_id"])


def test_each_stratum_gets_its_proportional_share_and_at_least_two(listed: pd.DataFrame) -> None:
    design = draw_sample(listed, Sample(100, seed=1, **ONE_ROUND))
    strata = design.strata
    # 2 programs x 2 statuses x 4 join bands, the bands cut at the same dates for all.
    assert len(strata) == 16
    assert strata["joined"].nunique() == 4
    assert design.size == 100 == strata["sampled"].sum()
    assert design.population == 2_000 == strata["population"].sum()
    share = 100 * strata["population"] / 2_000
    assert ((strata["sampled"] - share).abs() < 1).all() or (strata["sampled"] == 2).any()
    assert (strata["sampled"] >= 2).all()
    counts = design.units.groupby("stratum")["member_id"].size()
    assert counts.to_dict() == strata.set_index("stratum")["sampled"].to_dict()
    weights = design.units.groupby("stratum")["weight"].first()
    by_stratum = strata.set_index("stratum")
    expected = by_stratum["population"] / by_stratum["sampled"]
    pd.testing.assert_series_equal(weights, expected.astype("Float64"), check_names=False)
    assert design.units["weight"].sum() == pytest.approx(2_000)
    assert str(design) == (
        "stratified sample of 100 of 2,000 members (seed 1; by program, status, joined)"
    )


def test_a_stratum_of_one_member_is_read_whole() -> None:
    listed = members(41, programs=1)
    listed.loc[0, "program_id"] = "lprg_lone"
    design = draw_sample(listed, Sample(8, by=("program",), allocation="proportional"))
    strata = design.strata.set_index("program_id")
    assert row_of(strata, "lprg_lone")[["population", "sampled"]].tolist() == [1, 1]
    assert strata.loc["lprg_0000", "sampled"] == 7


def test_a_sample_as_large_as_the_list_is_a_census_with_exact_totals(listed: pd.DataFrame) -> None:
    design = draw_sample(listed, Sample(5_000, seed=3))  # a census is read in one round
    assert design.census and design.size == 2_000
    assert (design.units["weight"] == 1).all()
    balances = heavy_balances(listed)
    total = estimate_total(design, balances)
    assert total == Estimate(balances.sum(), balances.sum(), balances.sum(), 0.0)
    assert str(total).endswith("(exact)")


def test_the_estimate_and_its_variance_follow_the_stratified_formulas() -> None:
    strata = pd.DataFrame(
        {
            "stratum": pd.array(["a", "b"], dtype="string"),
            "population": pd.array([10, 4], dtype="Int64"),
            "sampled": pd.array([3, 2], dtype="Int64"),
        }
    )
    units = pd.DataFrame(
        {
            "member_id": pd.array(["m1", "m2", "m3", "m4", "m5"], dtype="string"),
            "program_id": pd.array(["p"] * 5, dtype="string"),
            "stratum": pd.array(["a", "a", "a", "b", "b"], dtype="string"),
            "weight": pd.array([10 / 3] * 3 + [2.0, 2.0], dtype="Float64"),
        }
    )
    design = SampleDesign(0, ("program",), strata, units)
    # m3 has no card: it counts 0. Stratum a: mean 2, s^2 3; b: mean 7, s^2 2.
    per_member = pd.Series({"m1": 1.0, "m2": 5.0, "m4": 6.0, "m5": 8.0})
    total = estimate_total(design, per_member)
    variance = 10**2 * (1 - 3 / 10) * 7 / 3 + 4**2 * (1 - 2 / 4) * 2 / 2
    assert total.value == pytest.approx(10 * 2 + 4 * 7)
    assert total.se == pytest.approx(math.sqrt(variance))
    # Skewness: stratum a (1, 5, 0: deviations -1, 3, -2) has m3 = 3 * 18 / (2 * 1) = 27;
    # b has two members, too few for one. The interval inverts Hall's transform at +-1.96.
    skew = 10**3 * (1 - 3 / 10) * (1 - 6 / 10) * 27 / 3**2 / variance**1.5

    def untransformed(z: float) -> float:
        return (3 / skew) * (math.copysign(abs(1 + skew * (z - skew / 6)) ** (1 / 3), 1) - 1)

    assert total.low == pytest.approx(total.value - total.se * untransformed(1.959964))
    assert total.high == pytest.approx(total.value - total.se * untransformed(-1.959964))
    assert total.high - total.value > total.value - total.low  # skewed right: a longer upper arm
    symmetric = estimate_total(design, pd.Series({"m1": 1.0, "m2": 3.0, "m3": 2.0}))
    assert symmetric.high - symmetric.value == pytest.approx(1.959964 * symmetric.se)
    assert symmetric.value - symmetric.low == pytest.approx(1.959964 * symmetric.se)
    assert str(Estimate(1_234_567.0, 1_150_000.0, 1_320_000.0, 1.0)) == (
        "1,234,567 (95 % CI 1,150,000 to 1,320,000)"
    )
    with pytest.raises(ValueError, match="not in the sample"):
        estimate_total(design, pd.Series({"m1": 1.0, "m9": 2.0}))
    unknown = estimate_totals(design, pd.DataFrame({"x": [1.0, None]}, index=["m1", "m4"]))
    assert unknown.loc["x"].isna().all()


def test_weigh_appends_each_rows_member_weight(listed: pd.DataFrame) -> None:
    design = drawn(listed, Sample(50, seed=2))
    sampled = design.units["member_id"].iloc[0]
    rows = pd.DataFrame({"id": ["c1", "c2", "c3"], "member_id": [sampled, sampled, "lmbr_x"]})
    weighed = design.weigh(rows)
    assert list(weighed.columns) == ["id", "member_id", "weight"]
    assert weighed["weight"].dtype == "Float64"
    assert weighed["weight"].iloc[0] == design.units["weight"].iloc[0]
    assert pd.isna(weighed["weight"].iloc[2])


def _half_widths_and_coverage(
    listed: pd.DataFrame, balances: pd.Series, sample: dict, seeds: int = 100
) -> tuple[float, int]:
    """The mean relative half width of the intervals of ``seeds`` samples (seeds 0, 1, ...)
    and how many of them hold the true total: each the sample ``draw_sample`` draws, the
    members list cut into strata once (``SampleDraw.reseeded``)."""
    truth = balances.sum()
    widths, covered = [], 0
    strata = SampleDraw(listed, Sample(seed=1, **sample))  # reseeded below, 0 first
    for seed in range(seeds):
        draw = strata.reseeded(seed)
        first = draw.first.units["member_id"].to_numpy()
        design = draw.complete(balances[first]) if draw.adaptive else draw.first
        if seed == 0:
            assert design.units.equals(drawn(listed, Sample(seed=0, **sample), balances).units)
        total = estimate_total(design, balances[design.units["member_id"].to_numpy()])
        widths.append(total.half_width / truth)
        covered += total.low <= truth <= total.high
    return float(np.mean(widths)), covered


@pytest.mark.parametrize("design", [{}, ONE_ROUND, {"allocation": "tenure", "by": ("joined",)}])
def test_a_draw_reseeded_draws_what_a_draw_with_that_seed_draws(
    listed: pd.DataFrame, design: dict[str, Any]
) -> None:
    balances = heavy_balances(listed)
    strata = SampleDraw(listed, Sample(300, seed=1, **design))
    for seed in (0, 1, 9):
        again, fresh = strata.reseeded(seed), SampleDraw(listed, Sample(300, seed=seed, **design))
        assert again.sample == fresh.sample and again.adaptive == fresh.adaptive
        for got, expected in (
            (again.first, fresh.first),
            (again.complete(balances), fresh.complete(balances)),
        ):
            pd.testing.assert_frame_equal(got.units, expected.units)
            pd.testing.assert_frame_equal(got.strata, expected.strata)
            assert got.drawn_by == expected.drawn_by
    assert strata.first.drawn_by.seed == 1  # the draw reseeded is left as it was


def test_intervals_cover_a_heavy_tailed_total_in_at_least_90_of_100_samples(
    listed: pd.DataFrame,
) -> None:
    balances = heavy_balances(listed, sigma=1.2)
    for design in ({}, ONE_ROUND):
        _, covered = _half_widths_and_coverage(listed, balances, {"n": 300, **design})
        assert covered >= 90, design


def test_an_adaptive_sample_keeps_its_pilot_and_sends_the_rest_where_the_points_are() -> None:
    listed = members(20_000, seed=8)
    balances = heavy_balances(listed)
    balances[listed.loc[listed["status"] == "INACTIVE", "id"].to_numpy()] = 0
    sample = Sample(2_000, seed=4)
    draw = SampleDraw(listed, sample)
    pilot = draw.first
    assert pilot.size == 2_000 * PILOT_SHARE
    whole = draw.complete(balances[pilot.units["member_id"].to_numpy()])
    assert whole.size == 2_000
    assert set(pilot.units["member_id"]) <= set(whole.units["member_id"])
    assert (whole.strata["sampled"] >= pilot.strata["sampled"]).all()
    # Inactive members hold nothing here and active ones more the older they are: the rest
    # goes mostly to the active strata, and more to the older half of the join bands.
    strata = whole.strata

    def fraction(rows: pd.Series) -> float:
        return strata.loc[rows, "sampled"].sum() / strata.loc[rows, "population"].sum()

    active = strata["status"] == "ACTIVE"
    older = strata["joined"] < sorted(strata["joined"].unique())[4]
    assert fraction(~active) < 0.5 * fraction(active)
    assert fraction(active & older) > 1.5 * fraction(active & ~older)
    assert drawn(listed, sample, balances).units.equals(whole.units)
    with pytest.raises(ValueError, match=r"^points: "):
        draw_sample(listed, sample)


def test_the_adaptive_sample_narrows_the_interval_where_points_are_unevenly_spread() -> None:
    listed = members(10_000, seed=6)
    balances = heavy_balances(listed, sigma=1.2, seed=7)
    balances[listed.loc[listed["status"] == "INACTIVE", "id"].to_numpy()] //= 20
    one_round, one_covered = _half_widths_and_coverage(listed, balances, {"n": 1_000, **ONE_ROUND})
    adaptive, covered = _half_widths_and_coverage(listed, balances, {"n": 1_000})
    # Measured: +-X % in one round, +-Y % adaptive.
    assert adaptive < 0.9 * one_round
    assert covered >= 90 and one_covered >= 90


def test_stratifying_by_join_date_narrows_the_interval_when_points_grow_with_tenure() -> None:
    listed = members(2_000, seed=4)
    balances = heavy_balances(listed, sigma=0.3, seed=5)
    plain, plain_covered = _half_widths_and_coverage(
        listed, balances, {"n": 200, "by": (), "allocation": "proportional"}
    )
    bands, bands_covered = _half_widths_and_coverage(
        listed, balances, {"n": 200, "bands": 8, "allocation": "proportional"}
    )
    # Measured: +-8.6 % plain, +-4.6 % in 8 join bands (points mostly set by tenure).
    assert bands < 0.65 * plain
    assert plain_covered >= 88 and bands_covered >= 88
