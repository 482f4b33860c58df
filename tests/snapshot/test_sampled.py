"""Sampled snapshots: ``full.sampled(Sample(n, seed))``, written and read back, and the
coverage of their intervals over many seeds, on a generated program pulled over HTTP
(``program`` and ``full`` of the conftest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from frame_reads import row_of

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.economics import estimates, point_values
from lyt_toolkit.frames.sample import (
    Estimate,
    Sample,
    SampleDraw,
    estimate_total,
    estimate_totals,
    member_points,
)
from lyt_toolkit.reports import MANIFEST, SnapshotFileError
from lyt_toolkit.snapshot import read_snapshot


def test_a_sample_keeps_the_lists_whole_and_the_sampled_members_cards(
    full: ProgramSnapshot,
) -> None:
    sampled = full.sampled(Sample(60, seed=4))
    design = sampled.sample
    assert design is not None and design.size == 60 and design.population == 600
    for name in ("members", "programs", "rewards", "benefits", "card_definitions"):
        pd.testing.assert_frame_equal(getattr(sampled, name), getattr(full, name))
    chosen = set(design.units["member_id"])
    for name in ("cards", "pending_buckets"):
        frame = getattr(sampled, name)
        whole = getattr(full, name)
        assert set(frame["member_id"]) <= chosen
        assert len(frame) == whole["member_id"].isin(chosen).sum()
        assert frame.columns[-1] == "weight" and frame["weight"].dtype == "Float64"
        assert list(frame.columns[:-1]) == list(whole.columns)
        assert frame["member_id"].is_monotonic_increasing
    weights = design.units.set_index("member_id")["weight"]
    cards = sampled.cards
    assert (cards["weight"].to_numpy() == weights[cards["member_id"]].to_numpy()).all()
    assert "sample='stratified sample of 60 of 600 members" in repr(sampled)
    assert "sample=" not in repr(full)


def test_a_sample_is_drawn_again_the_same_and_not_from_a_sample(full: ProgramSnapshot) -> None:
    first, again = full.sampled(Sample(50, seed=8)), full.sampled(Sample(50, seed=8))
    pd.testing.assert_frame_equal(first.cards, again.cards)
    pd.testing.assert_frame_equal(first.pending_buckets, again.pending_buckets)
    with pytest.raises(ValueError, match="already a sample"):
        first.sampled(Sample(10))


@pytest.mark.parametrize("form", ["to_csv", "to_parquet"])
def test_a_sampled_snapshot_reads_back_with_its_design(
    full: ProgramSnapshot, tmp_path: Path, form: str
) -> None:
    asked = Sample(37, seed=2, by=("status", "joined"), bands=3, allocation="tenure")
    sampled = full.sampled(asked)
    getattr(sampled, form)(tmp_path)
    back = read_snapshot(tmp_path)
    for name, frame in sampled.frames().items():
        pd.testing.assert_frame_equal(back.frames()[name], frame, check_index_type=False)
    assert back.sample is not None and sampled.sample is not None
    assert (back.sample.seed, back.sample.by) == (2, ("status", "joined"))
    assert sampled.sample.drawn_by == back.sample.drawn_by == asked
    pd.testing.assert_frame_equal(back.sample.strata, sampled.sample.strata)
    pd.testing.assert_frame_equal(back.sample.units, sampled.sample.units)
    manifest = json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["sample"]["units"]["rows"] == sampled.sample.size
    assert (manifest["sample"]["n"], manifest["sample"]["bands"]) == (37, 3)
    assert manifest["sample"]["allocation"] == "tenure"


def test_a_sampled_folder_written_before_the_design_was_kept_reads_with_the_defaults(
    full: ProgramSnapshot, tmp_path: Path
) -> None:
    """A folder whose manifest has only the sample's seed and strata (as lyt_toolkit wrote
    them before): its size stands for the sample asked, its join bands and allocation are
    ``Sample``'s defaults."""
    sampled = full.sampled(Sample(37, seed=2, bands=3, allocation="proportional"))
    sampled.to_csv(tmp_path)
    path = tmp_path / MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    for key in ("n", "bands", "allocation"):
        del manifest["sample"][key]
    path.write_text(json.dumps(manifest), encoding="utf-8")
    design = read_snapshot(tmp_path).sample
    assert design is not None and sampled.sample is not None
    assert (design.n, design.bands, design.allocation) == (None, 8, "adaptive")
    assert design.drawn_by == Sample(sampled.sample.size, seed=2)


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [("allocation", "sideways", "allocation must be one of"), ("bands", 0, "bands must be")],
)
def test_a_sampled_folder_whose_design_no_sample_takes_is_refused_naming_it(
    full: ProgramSnapshot, tmp_path: Path, key: str, value: object, problem: str
) -> None:
    full.sampled(Sample(30, seed=1)).to_csv(tmp_path)
    path = tmp_path / MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["sample"][key] = value
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(SnapshotFileError, match=f"sample: {problem}"):
        read_snapshot(tmp_path)


def test_a_full_snapshot_writes_no_sample(full: ProgramSnapshot, tmp_path: Path) -> None:
    written = full.to_csv(tmp_path)
    assert not [p for p in written if p.name.startswith("sample_")]
    assert "sample" not in json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))
    assert read_snapshot(tmp_path).sample is None


def program_totals(sampled: ProgramSnapshot) -> dict[str, Estimate]:
    """Points outstanding and pending points of the program, estimated from ``sampled``."""
    assert sampled.sample is not None
    buckets = sampled.pending_buckets
    per_member = {
        "outstanding_points": sampled.cards.groupby("member_id")["balance_points"].sum(),
        "pending_points": buckets[buckets["status"] == "PENDING"]
        .groupby("member_id")["points_total"]
        .sum(),
    }
    return {name: estimate_total(sampled.sample, s) for name, s in per_member.items()}


def test_intervals_cover_the_program_files_totals_in_at_least_90_of_100_seeds(
    full: ProgramSnapshot, program: dict[str, Any]
) -> None:
    """A member's points are its own whichever sample draws it, so they are summed once, for
    every member, and each seed's design (drawn as ``sampled`` draws it, from the members
    list cut into strata once: ``SampleDraw.reseeded``) takes its members' sums; on seed 0
    the design and the totals are checked against ``full.sampled``'s own."""
    # The truth comes from the program file the sandbox served, not from the snapshot.
    truth = {
        "outstanding_points": sum(card["balance"]["points"] for card in program["cards"]),
        "pending_points": sum(b["points"]["total"] for b in program["pending_buckets"]),
    }
    buckets = full.pending_buckets
    everyone = pd.DataFrame(  # program_totals' sums, a member without buckets holding none
        {
            "outstanding_points": full.cards.groupby("member_id")["balance_points"].sum(),
            "pending_points": buckets[buckets["status"] == "PENDING"]
            .groupby("member_id")["points_total"]
            .sum(),
        }
    ).fillna(0)
    points = member_points(full.cards)  # an adaptive pilot's points, as sampled gives them
    strata = SampleDraw(full.members, Sample(80, seed=0))
    covered = dict.fromkeys(truth, 0)
    for seed in range(100):
        draw = strata.reseeded(seed)
        design = draw.complete(points)  # the pilot's members' points taken from all
        drawn = everyone[everyone.index.isin(design.units["member_id"])]
        totals = estimate_totals(design, drawn)
        if seed == 0:  # what the sampled snapshot itself gives
            sampled = full.sampled(Sample(80, seed=seed))
            assert sampled.sample is not None
            pd.testing.assert_frame_equal(sampled.sample.units, design.units)
            own = program_totals(sampled)
            for name, total in own.items():
                got = [totals.at[name, c] for c in ("value", "low", "high", "se")]
                assert got == pytest.approx([total.value, total.low, total.high, total.se]), name
        for name in truth:
            covered[name] += totals.loc[name, "low"] <= truth[name] <= totals.loc[name, "high"]
    assert covered["outstanding_points"] >= 90, covered
    assert covered["pending_points"] >= 90, covered


def test_the_economics_estimates_are_those_of_the_estimator(full: ProgramSnapshot) -> None:
    sampled = full.sampled(Sample(80, seed=3))
    rows = estimates(sampled, point_values(full))
    program_rows = rows[rows["card_definition_id"].isna() & rows["month"].isna()]
    by_figure = program_rows.set_index("figure")
    for name, total in program_totals(sampled).items():
        got = row_of(by_figure, name)[["estimate", "ci_low", "ci_high", "se"]].tolist()
        assert got == pytest.approx([total.value, total.low, total.high, total.se]), name
