"""Parquet round trips and ``SnapshotHistory``: append, list, load, diff and DuckDB queries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import ProgramSnapshot, read_snapshot
from lyt_toolkit.reports import SnapshotFileError
from lyt_toolkit.snapshot import SnapshotHistory

from .helpers import assert_same

ACTIVE_PER_SNAPSHOT = (
    "SELECT pulled_at, count(*) AS active FROM rewards "
    "WHERE status = 'ACTIVE' GROUP BY pulled_at ORDER BY pulled_at"
)


def _later(snapshot: ProgramSnapshot, hours: int, drafted: int) -> ProgramSnapshot:
    """``snapshot`` ``hours`` later with its first ``drafted`` ACTIVE rewards moved to DRAFT."""
    rewards = snapshot.rewards.copy()
    active = rewards.index[rewards["status"] == "ACTIVE"][:drafted]
    rewards.loc[active, "status"] = "DRAFT"
    return ProgramSnapshot.from_frames(
        {**snapshot.frames(), "rewards": rewards},
        source=snapshot.source,
        pulled_at=snapshot.pulled_at + pd.Timedelta(hours=hours),
    )


def test_parquet_round_trip_keeps_every_frame_exactly(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    written = demo_snapshot.to_parquet(tmp_path / "snap")
    assert {p.name for p in written} == {
        "manifest.json",
        *(f"{n}.parquet" for n in demo_snapshot.frames()),
    }
    back = read_snapshot(tmp_path / "snap")
    assert_same(demo_snapshot, back)
    assert back.rewards["digital_points"].isna().any()  # NA survived, in a nullable dtype


def test_csv_round_trip_reads_the_same(demo_snapshot: ProgramSnapshot, tmp_path: Path) -> None:
    demo_snapshot.to_csv(tmp_path / "csv")
    assert_same(demo_snapshot, read_snapshot(tmp_path / "csv"))


def test_an_altered_parquet_file_is_named(demo_snapshot: ProgramSnapshot, tmp_path: Path) -> None:
    demo_snapshot.to_parquet(tmp_path / "snap")
    with (tmp_path / "snap" / "rewards.parquet").open("ab") as fh:
        fh.write(b"tampered")
    with pytest.raises(SnapshotFileError, match=r"rewards\.parquet was changed after export"):
        read_snapshot(tmp_path / "snap")


def test_history_appends_lists_loads_and_diffs(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    history = SnapshotHistory(tmp_path / "history")
    assert len(history) == 0 and history.latest() is None and history.list().empty
    second, third = _later(demo_snapshot, 1, 2), _later(demo_snapshot, 2, 5)
    for snap in (third, demo_snapshot, second):  # stored in any order, listed by time
        assert history.append(snap) == snap.pulled_at

    listed = history.list()
    assert listed["pulled_at"].tolist() == [s.pulled_at for s in (demo_snapshot, second, third)]
    assert (listed["rewards"] == len(demo_snapshot.rewards)).all()
    assert set(listed["source"]) == {demo_snapshot.source}
    assert_same(history.load(second.pulled_at), second)
    latest = history.latest()
    assert latest is not None
    assert_same(latest, third)
    assert_same(history.load(second.pulled_at.isoformat()), second)

    diff = history.diff(demo_snapshot.pulled_at, third.pulled_at)
    assert diff.summary().loc["rewards", "changed"] == 5
    assert set(diff.changes.query("kind == 'rewards'")["after"]) == {"DRAFT"}


def test_history_refuses_a_second_snapshot_with_the_same_key(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    history = SnapshotHistory(tmp_path)
    history.append(demo_snapshot)
    with pytest.raises(SnapshotFileError, match="is already stored"):
        history.append(_later(demo_snapshot, 0, 3))
    assert_same(history.load(demo_snapshot.pulled_at), demo_snapshot)  # the first one is kept
    with pytest.raises(KeyError, match=r"no snapshot pulled at 2020-01-01T00:00:00.000000Z"):
        history.load("2020-01-01")


def test_a_half_written_snapshot_is_never_listed(
    demo_snapshot: ProgramSnapshot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = SnapshotHistory(tmp_path)

    def fail(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", fail)
    with pytest.raises(OSError, match="No space left"):
        history.append(demo_snapshot)
    assert list(tmp_path.iterdir()) == [] and len(history) == 0
    monkeypatch.undo()
    history.append(demo_snapshot)  # nothing left behind blocks the retry
    assert len(history) == 1


def test_query_runs_duckdb_over_every_snapshot(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    history = SnapshotHistory(tmp_path)
    snaps = [demo_snapshot, _later(demo_snapshot, 1, 2), _later(demo_snapshot, 2, 5)]
    for snap in snaps:
        history.append(snap)
    active = history.query(ACTIVE_PER_SNAPSHOT)
    expected = [int((s.rewards["status"] == "ACTIVE").sum()) for s in snaps]
    assert active["active"].tolist() == expected
    assert active["pulled_at"].tolist() == [s.pulled_at for s in snaps]
    assert expected[0] - expected[2] == 5

    counts = history.query("SELECT pulled_at, pending_buckets FROM snapshots ORDER BY pulled_at")
    assert counts["pending_buckets"].tolist() == [len(demo_snapshot.pending_buckets)] * 3
    joined = history.query(
        "SELECT count(*) AS n FROM reward_costs c JOIN rewards r "
        "ON c.pulled_at = r.pulled_at AND c.reward_id = r.id"
    )
    assert joined["n"].iloc[0] == 3 * len(demo_snapshot.reward_costs)


def test_query_of_an_empty_history_has_the_views(tmp_path: Path) -> None:
    history = SnapshotHistory(tmp_path / "none")
    assert history.query(ACTIVE_PER_SNAPSHOT).empty
    columns = history.query("SELECT * FROM benefits").columns.tolist()
    assert columns[0] == "pulled_at" and "card_definition_status" in columns


def test_duckdb_is_imported_by_the_first_query_not_by_the_snapshot_package(
    tmp_path: Path,
) -> None:
    code = (
        "import sys, lyt_toolkit.snapshot as s\n"
        "print('duckdb' in sys.modules)\n"
        f"s.SnapshotHistory({str(tmp_path)!r}).query('SELECT 1')\n"
        "print('duckdb' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


def test_a_snapshot_stored_by_another_process_meanwhile_is_already_stored(
    demo_snapshot: ProgramSnapshot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = SnapshotHistory(tmp_path)
    rival = _later(demo_snapshot, 0, 3)  # the same pulled_at, other data
    write = ProgramSnapshot.to_parquet

    def rival_wins_meanwhile(snapshot: ProgramSnapshot, directory: Path) -> list[Path]:
        written = write(snapshot, directory)
        if snapshot is demo_snapshot:  # after this process's check, before its rename
            SnapshotHistory(tmp_path).append(rival)
        return written

    monkeypatch.setattr(ProgramSnapshot, "to_parquet", rival_wins_meanwhile)
    with pytest.raises(SnapshotFileError, match="is already stored"):
        history.append(demo_snapshot)
    assert len(list(tmp_path.iterdir())) == len(history) == 1  # no half-written folder left
    assert_same(history.load(rival.pulled_at), rival)
