"""A sampled snapshot is never read as the whole program: diffs and drift leave its cards and
pending buckets out and say so, the history and program files refuse it. A generated program
is pulled whole over HTTP once and sampled offline (``full.sampled``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.frames.sample import Sample
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import SnapshotHistory, snapshot_program
from lyt_toolkit.snapshot.diff import MEMBER_KINDS

from .helpers import client_for


@pytest.fixture(scope="module")
def sampled(full: ProgramSnapshot) -> ProgramSnapshot:
    return full.sampled(Sample(30, seed=6))


def _drafted(snapshot: ProgramSnapshot, reward_id: str) -> ProgramSnapshot:
    """``snapshot`` with one reward's status moved to DRAFT (as if it changed since)."""
    rewards = snapshot.rewards.copy()
    rewards.loc[rewards["id"] == reward_id, "status"] = "DRAFT"
    return replace(snapshot, rewards=rewards)


def _active_reward(snapshot: ProgramSnapshot) -> str:
    return str(snapshot.rewards.loc[snapshot.rewards["status"] == "ACTIVE", "id"].iloc[0])


def test_a_diff_with_a_sample_leaves_member_rows_out_and_says_so(
    full: ProgramSnapshot, sampled: ProgramSnapshot
) -> None:
    reward = _active_reward(full)
    for before, after in [(full, _drafted(sampled, reward)), (sampled, _drafted(full, reward))]:
        diff = before.diff(after)
        assert diff.left_out == MEMBER_KINDS == ("cards", "pending_buckets")
        assert not diff.changes["kind"].isin(MEMBER_KINDS).any()  # no unsampled card "removed"
        changed = diff.changes[diff.changes["column"] == "status"]
        assert changed[["kind", "key", "before", "after"]].values.tolist() == [
            ["rewards", reward, "ACTIVE", "DRAFT"]
        ]
        assert diff.note is not None
        assert "cards and pending_buckets not compared" in diff.note
        assert "a row it lacks was not read, not deleted" in diff.note
        assert sampled.sample is not None
        assert f"stratified sample of {sampled.sample.size} of 600 members" in diff.note
        assert diff.note in repr(diff)
        counts = diff.summary()
        assert counts.loc[list(MEMBER_KINDS)].isna().all().all()
        assert counts.loc["rewards", "changed"] == 1 and counts.loc["total", "changed"] == 1
    both = sampled.diff(full.sampled(Sample(30, seed=7)))
    assert not both and "the before snapshot is a" in str(both.note)
    assert "the after snapshot is a" in str(both.note)


def test_a_diff_of_full_snapshots_compares_every_kind_as_before(full: ProgramSnapshot) -> None:
    other = replace(full, cards=full.cards.iloc[1:].reset_index(drop=True))
    diff = full.diff(other)
    assert diff.left_out == () and diff.note is None
    assert "not compared" not in repr(diff)
    assert diff.changes[["kind", "change"]].values.tolist() == [["cards", "removed"]]
    assert diff.summary()["removed"].dtype == "int64"


def test_a_diff_with_nothing_comparable_left_is_refused(sampled: ProgramSnapshot) -> None:
    members_only = ProgramSnapshot.from_frames(
        {"cards": sampled.cards, "pending_buckets": sampled.pending_buckets},
        sample=sampled.sample,
    )
    with pytest.raises(ValueError, match="nothing to compare: the before snapshot is a strat"):
        members_only.diff(members_only)


def test_lyt_diff_prints_the_note(
    full: ProgramSnapshot,
    sampled: ProgramSnapshot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    full.to_parquet(tmp_path / "old")
    sampled.to_parquet(tmp_path / "new")
    assert main(["diff", str(tmp_path / "old"), str(tmp_path / "new")]) == 0
    printed = capsys.readouterr().out
    assert "Note: cards and pending_buckets not compared: the after snapshot is a" in printed
    assert "0 changes" in printed


def test_drift_of_a_sample_reads_no_member_and_compares_the_rest(
    start_sandbox: StartSandbox, program: dict[str, Any], full: ProgramSnapshot
) -> None:
    """A sandbox of its own (a reward is drafted), serving the program ``full`` was pulled
    from: the sample is drawn from ``full``, as from a pull of this sandbox."""
    with start_sandbox(program) as sb:
        sampled = full.sampled(Sample(25, seed=2))
        reward = _active_reward(sampled)
        with client_for(sb) as client:
            client.rewards.draft(reward)
            drift = sampled.drift(client, progress=False)
    assert drift.note is not None
    assert drift.left_out == MEMBER_KINDS and drift.note in repr(drift)
    # Left out for the sample (the live pull skips them for that reason), not for a kinds=
    # the user never gave.
    assert drift.note is not None and "sample" in drift.note and "kinds=" not in drift.note
    assert drift.after.kinds.isdisjoint(MEMBER_KINDS)  # no member read one by one
    assert drift.after.cards.empty and drift.after.pending_buckets.empty
    status = drift.changes[drift.changes["column"] == "status"]
    assert status[["kind", "key", "after"]].values.tolist() == [["rewards", reward, "DRAFT"]]


def test_drift_of_a_sample_of_member_rows_only_is_refused(sampled: ProgramSnapshot) -> None:
    members_only = ProgramSnapshot.from_frames(
        {"cards": sampled.cards, "pending_buckets": sampled.pending_buckets},
        sample=sampled.sample,
    )
    with pytest.raises(ValueError, match=r"no drift to look for.*holds only cards and pending"):
        members_only.drift(None, progress=False)


def test_the_history_refuses_a_sample(
    full: ProgramSnapshot, sampled: ProgramSnapshot, tmp_path: Path
) -> None:
    history = SnapshotHistory(tmp_path / "history")
    with pytest.raises(ValueError, match=r"sampled members only.*Store full pulls"):
        history.append(sampled)
    assert len(history) == 0 and not list(history.path.glob(".partial-*"))
    history.append(full)
    assert len(history) == 1


def test_a_sample_is_no_program_file(
    full: ProgramSnapshot, sampled: ProgramSnapshot, tmp_path: Path
) -> None:
    path = tmp_path / "program.json"
    with pytest.raises(ValueError, match=r"cannot write a program from a stratified sample"):
        sampled.to_program(path)
    assert not path.exists()
    with pytest.raises(ValueError, match="Pull the program whole"):
        snapshot_program(sampled)
    with pytest.raises(ValueError, match="sampled members only"), Sandbox.start(snapshot=sampled):
        pass
    assert full.to_program(path) == path
