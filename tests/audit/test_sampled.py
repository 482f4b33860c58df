"""Audits of sampled snapshots: per-member rules counted in the sample and estimated for the
program, on a generated program (some pending buckets stuck) pulled whole over HTTP once and
sampled offline with ``full.sampled``."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fixture_types import StartSandbox
from frame_reads import row_of

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.audit import (
    ESTIMATE_COLUMNS,
    FINDING_COLUMNS,
    RULES,
    SAMPLED_COLUMNS,
    SEVERITIES,
    estimate_lines,
    findings_between,
    run,
    summary,
)
from lyt_toolkit.cli.audit import format_summary
from lyt_toolkit.frames.sample import Sample, estimate_total
from lyt_toolkit.reports import ESTIMATES_CSV, read_findings, write_reports

from .programs import stuck_buckets_program

STUCK = "pending-bucket-not-activatable"


@pytest.fixture(scope="module")
def full(
    start_sandbox: StartSandbox, pull_snapshot: Callable[[Any], ProgramSnapshot]
) -> ProgramSnapshot:
    with start_sandbox(stuck_buckets_program()) as sb:
        return pull_snapshot(sb)


@pytest.fixture(scope="module")
def full_findings(full: ProgramSnapshot) -> pd.DataFrame:
    return run(full)


@pytest.fixture(scope="module")
def sampled(full: ProgramSnapshot) -> ProgramSnapshot:
    return full.sampled(Sample(80, seed=3))


def test_a_sample_s_findings_name_sampled_records_with_their_weight(
    full_findings: pd.DataFrame, sampled: ProgramSnapshot
) -> None:
    findings = run(sampled)
    assert list(findings.columns) == [*FINDING_COLUMNS, *SAMPLED_COLUMNS]
    assert findings["weight"].dtype == "Float64"
    design = sampled.sample
    assert design is not None and findings.attrs["sample"].size == design.size
    per_member = findings[findings["rule"] == STUCK]
    assert 0 < len(per_member) < (full_findings["rule"] == STUCK).sum()
    buckets = sampled.pending_buckets.set_index("id")
    assert per_member["resource_id"].isin(buckets.index).all()
    assert (
        per_member["member_id"].to_numpy()
        == buckets.loc[per_member["resource_id"], "member_id"].to_numpy()
    ).all()
    weights = design.units.set_index("member_id")["weight"]
    assert (per_member["weight"].to_numpy() == weights[per_member["member_id"]].to_numpy()).all()
    # each finding is the full audit's finding about the same record
    same = per_member[list(FINDING_COLUMNS)].merge(full_findings, how="left", indicator=True)
    assert (same["_merge"] == "both").all()
    # findings about frames read whole are the full audit's, standing for themselves
    whole = findings[findings["rule"] != STUCK]
    assert whole["member_id"].isna().all() and (whole["weight"] == 1).all()
    expected = full_findings[full_findings["rule"] != STUCK].reset_index(drop=True)
    pd.testing.assert_frame_equal(whole[list(FINDING_COLUMNS)].reset_index(drop=True), expected)


def test_the_summary_of_a_sample_estimates_per_member_rules_for_the_program(
    full_findings: pd.DataFrame, sampled: ProgramSnapshot
) -> None:
    findings = run(sampled)
    counts = summary(findings)
    assert list(counts.columns) == [*SEVERITIES, "total", *ESTIMATE_COLUMNS]
    row = row_of(counts, STUCK)
    in_sample = int((findings["rule"] == STUCK).sum())
    assert row["total"] == row["sampled"] == in_sample
    per_member = findings[findings["rule"] == STUCK].groupby("member_id").size()
    assert sampled.sample is not None
    expected = estimate_total(sampled.sample, per_member)
    assert row["estimated"] == pytest.approx(expected.value)
    assert row["estimated"] == pytest.approx(
        findings.loc[findings["rule"] == STUCK, "weight"].sum()
    )
    assert row["ci_high"] == pytest.approx(expected.high)
    assert row["ci_low"] == pytest.approx(max(expected.low, in_sample))
    truth = int((full_findings["rule"] == STUCK).sum())
    assert row["ci_low"] <= truth <= row["ci_high"]
    # rules over whole frames are exact; the sampled column is theirs to leave empty
    exact = counts.loc["card-definition-no-earning-limit"]
    assert pd.isna(exact["sampled"])
    assert exact["estimated"] == exact["ci_low"] == exact["ci_high"] == exact["total"]
    per_member_rules = [r.id for r in RULES.values() if r.per_member]
    assert counts.loc["total", "sampled"] == counts.loc[per_member_rules, "total"].sum()
    whole = counts.loc["total", "total"] - counts.loc["total", "sampled"]
    assert counts.loc["total", "estimated"] == pytest.approx(whole + row["estimated"])


def test_a_census_sample_estimates_the_full_counts_exactly(
    full: ProgramSnapshot, full_findings: pd.DataFrame
) -> None:
    census = full.sampled(Sample(len(full.members), seed=1))
    counts = summary(run(census))
    truth = summary(full_findings)
    assert (counts["estimated"] == truth["total"]).all()
    assert (counts["ci_low"] == counts["ci_high"]).all()
    assert census.sample is not None
    assert any(
        "exact: every member was read" in line for line in estimate_lines(counts, census.sample)
    )


def test_a_sample_s_findings_without_their_design_are_not_summed_as_the_program_s(
    sampled: ProgramSnapshot, tmp_path: Path
) -> None:
    findings = run(sampled)
    stripped = findings.copy()
    stripped.attrs.clear()
    with pytest.raises(ValueError, match=r"sampled snapshot.*sample=snapshot\.sample"):
        summary(stripped)
    write_reports(sampled, findings, summary(findings), tmp_path)
    back = read_findings(tmp_path)
    with pytest.raises(ValueError, match="counts are the sample's, not the program's"):
        summary(back)
    again = summary(back, sample=sampled.sample)
    pd.testing.assert_frame_equal(again, summary(findings))


def test_the_estimates_read_in_words_in_the_report_and_the_printed_summary(
    full: ProgramSnapshot, full_findings: pd.DataFrame, sampled: ProgramSnapshot, tmp_path: Path
) -> None:
    findings = run(sampled)
    counts = summary(findings)
    row = row_of(counts, STUCK)
    assert sampled.sample is not None
    lines = estimate_lines(counts, sampled.sample)
    expected = (
        f"{STUCK}: {int(row['sampled'])} in the sample of 80 of {len(full.members)} members; "
        f"about {float(row['estimated']):,.0f} "
        f"(95 % CI {float(row['ci_low']):,.0f} to {float(row['ci_high']):,.0f}) in the program"
    )
    assert expected in lines
    unseen = row_of(counts, "card-pending-points-mismatch")
    bound = -math.log(0.05) * float(sampled.sample.units["weight"].max())
    assert unseen["sampled"] == 0 and unseen["estimated"] == 0 == unseen["ci_low"]
    assert unseen["ci_high"] == pytest.approx(bound) and bound > 3
    assert (
        f"card-pending-points-mismatch: none in the sample of 80 of {len(full.members)} "
        f"members; the program may still have some: at most about {bound:,.0f} members with "
        "one (95 % upper bound)"
    ) in lines
    assert estimate_lines(summary(full_findings), sampled.sample) == []
    printed = format_summary(sampled, findings, counts)
    assert "per-member rules were counted in it" in printed and expected in printed
    assert "per-member rules" not in format_summary(full, full_findings, summary(full_findings))
    written = write_reports(sampled, findings, counts, tmp_path / "sampled")
    assert tmp_path / "sampled" / ESTIMATES_CSV in written
    table = pd.read_csv(tmp_path / "sampled" / ESTIMATES_CSV, index_col="rule")
    assert table.loc[STUCK, "estimated"] == round(row["estimated"])  # whole findings
    plain = write_reports(full, full_findings, summary(full_findings), tmp_path / "full")
    assert not any(p.name == ESTIMATES_CSV for p in plain)


def test_findings_between_a_sample_and_a_full_pull_leave_per_member_rules_out(
    full: ProgramSnapshot, sampled: ProgramSnapshot
) -> None:
    for before, after in [(full, sampled), (sampled, full)]:
        with pytest.warns(UserWarning, match=rf"findings of {STUCK}, .* left out: the"):
            between = findings_between(before, after)
        assert between.empty  # no unsampled member's stuck bucket "resolved" or "appeared"
        assert set(between.attrs["left_out"]) == {r.id for r in RULES.values() if r.per_member}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # full pulls: compared as ever, no warning
        assert "left_out" not in findings_between(full, full).attrs
