"""``lyt diff`` and ``lyt audit --history``, run the way a user runs them."""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.errors import OddValueWarning
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import CHANGES, SnapshotHistory

from .conftest import StartSandbox
from .helpers import client_for, demo_program, pull

DRAFTED = "lrew_c0ffee000f"


def _total(out: str) -> list[int]:
    found = re.search(r"^total\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)
    assert found, out
    return [int(n) for n in found.groups()]


def test_diff_prints_the_summary_and_writes_the_changes(
    demo_snapshot: ProgramSnapshot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rewards = demo_snapshot.rewards.copy()
    rewards.loc[rewards["id"] == DRAFTED, ["status", "name"]] = ["DRAFT", "=1+1"]
    later = ProgramSnapshot.from_frames(
        {**demo_snapshot.frames(), "rewards": rewards},
        source=demo_snapshot.source,
        pulled_at=demo_snapshot.pulled_at + pd.Timedelta(days=1),
    )
    demo_snapshot.to_csv(tmp_path / "old")
    later.to_parquet(tmp_path / "new")
    out_file = tmp_path / "changes.csv"

    code = main(["diff", str(tmp_path / "old"), str(tmp_path / "new"), "--out", str(out_file)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Changes from 2026-01-15 12:00:00 UTC to 2026-01-16 12:00:00 UTC: 2 changes" in out
    assert re.search(r"^rewards\s+0\s+0\s+1\s+2$", out, re.M)
    assert _total(out) == [0, 0, 1, 2]
    assert "Audit findings: " in out
    assert re.search(rf"^  resolved\s+{DRAFTED}: .*\[active-reward-expired\]$", out, re.M)
    written = pd.read_csv(out_file, dtype="str", keep_default_na=False)
    assert list(written.columns) == CHANGES.names
    assert written[["column", "before", "after"]].values.tolist() == [
        ["name", demo_snapshot.rewards.set_index("id").loc[DRAFTED, "name"], "'=1+1"],
        ["status", "ACTIVE", "DRAFT"],
    ]


def test_diff_prints_a_finding_whose_message_changed_once_with_both_messages(
    demo_snapshot: ProgramSnapshot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    daily = "lrew_c0ffee000d"  # ACTIVE with an empty DAILY schedule
    rewards = demo_snapshot.rewards.copy()
    rewards.loc[rewards["id"] == daily, "status"] = "DRAFT"
    later = ProgramSnapshot.from_frames(
        {**demo_snapshot.frames(), "rewards": rewards},
        source=demo_snapshot.source,
        pulled_at=demo_snapshot.pulled_at,  # the same clock: only the status changes
    )
    demo_snapshot.to_csv(tmp_path / "old")
    later.to_csv(tmp_path / "new")
    assert main(["diff", str(tmp_path / "old"), str(tmp_path / "new")]) == 0
    out = capsys.readouterr().out
    assert "Audit findings: 0 appeared, 1 changed, 0 resolved" in out
    assert re.search(
        rf"^  changed\s+{daily}: DRAFT reward: DAILY validity .*"
        r" \(was: ACTIVE reward: DAILY validity .*\)  \[daily-validity-invalid\]$",
        out,
        re.M,
    ), out


def test_diff_of_a_folder_that_is_no_snapshot_fails_in_one_line(
    demo_snapshot: ProgramSnapshot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo_snapshot.to_csv(tmp_path / "old")
    (tmp_path / "empty").mkdir()
    code = main(["diff", str(tmp_path / "old"), str(tmp_path / "empty")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("lyt diff: ") and "manifest.json is missing" in err
    assert len(err.strip().splitlines()) == 1


def _audit_with_history(sb: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ``lyt audit --history`` command line of a user whose environment names ``sb``, run
    in ``tmp_path``; the history is ``tmp_path / "history"``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
    for key, value in asdict(sb.credentials).items():
        monkeypatch.setenv(f"LYT_{key.upper()}", value)
    history = tmp_path / "history"
    return ["audit", "--out", str(tmp_path / "reports"), "--history", str(history)]


def test_audit_history_stores_each_run_and_prints_what_changed(
    demo: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    audit = _audit_with_history(demo, tmp_path, monkeypatch)
    history = tmp_path / "history"

    assert main(audit) == 0
    assert "first one there: nothing to compare" in capsys.readouterr().out

    with client_for(demo) as client:
        client.rewards.draft(DRAFTED)
    demo.advance_clock(3600)
    assert main(audit) == 0
    out = capsys.readouterr().out
    assert "Snapshot stored in the history" in out
    assert re.search(r"^rewards\s+0\s+0\s+1\s+1$", out, re.M)
    assert re.search(rf"^  resolved\s+{DRAFTED}: ", out, re.M)

    stored = SnapshotHistory(history)
    assert len(stored) == 2
    latest = stored.latest()
    assert latest is not None
    assert latest.rewards.set_index("id").loc[DRAFTED, "status"] == "DRAFT"
    assert main(audit) == 0  # the clock did not move: the same key is not stored twice
    captured = capsys.readouterr()
    assert "is already stored; this snapshot was not stored again" in captured.err
    assert _total(captured.out.split("Changes from")[1]) == [0, 0, 0, 0]
    assert len(stored) == 2
    assert pull(demo).pulled_at == stored.list()["pulled_at"].iloc[-1]


def test_audit_history_stores_a_snapshot_holding_an_odd_value(
    start_sandbox: StartSandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    program = demo_program()
    program["rewards"][0]["end_date"] = "9999-12-31"
    with start_sandbox(program) as sb, pytest.warns(OddValueWarning, match="end_date"):
        assert main(_audit_with_history(sb, tmp_path, monkeypatch)) == 0
    assert "first one there: nothing to compare" in capsys.readouterr().out
    stored = SnapshotHistory(tmp_path / "history").latest()
    assert stored is not None and stored.rewards["end_date"].isna().any()


def test_audit_history_refuses_a_sample_before_any_call(
    demo: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A history stores full pulls only: ``--sample`` beside ``--history`` is refused in one
    line before the pull (it used to pull, audit, write the reports, then end in a
    traceback), and so is a sampled ``--base`` folder."""
    audit = _audit_with_history(demo, tmp_path, monkeypatch)

    assert main([*audit, "--sample", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lyt audit: --history: not with --sample: a history stores full pulls")
    assert len(err.strip().splitlines()) == 1
    assert demo.plan()["used"] == 0  # nothing sent, not even the token request
    assert not (tmp_path / "reports").exists() and not (tmp_path / "history").exists()

    pull(demo, sample=3).to_csv(tmp_path / "sampled")
    base = ["audit", "--out", str(tmp_path / "reports"), "--base", str(tmp_path / "sampled")]
    assert main([*base, "--history", str(tmp_path / "history")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lyt audit: --history: the snapshot in {tmp_path / 'sampled'} is a ")
    assert "a history stores full pulls only" in err and "without --history" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "reports").exists() and not (tmp_path / "history").exists()


def test_audit_history_that_is_a_file_is_refused_before_any_call(
    demo: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It used to pull, audit and write the reports, then say ``cannot store the snapshot in
    history: File exists``."""
    audit = _audit_with_history(demo, tmp_path, monkeypatch)
    (tmp_path / "history").write_text("a file", encoding="utf-8")
    assert main(audit) == 2
    err = capsys.readouterr().err
    assert err == f"lyt audit: --history {tmp_path / 'history'} is not a folder\n"
    assert demo.plan()["used"] == 0 and not (tmp_path / "reports").exists()
