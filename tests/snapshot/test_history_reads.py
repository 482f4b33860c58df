"""What ``SnapshotHistory`` reads: ``list`` the manifests only, ``query`` the files of the
kinds its SQL names in DuckDB (never a snapshot in pandas), and what a snapshot's manifest
carries (its provenance) survives ``append`` and ``load``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest

from lyt_toolkit import ProgramSnapshot, Sample, read_snapshot
from lyt_toolkit.reports import SnapshotFileError, snapshot_parquet
from lyt_toolkit.reports.provenance import ProvenanceError
from lyt_toolkit.snapshot import SnapshotHistory
from lyt_toolkit.snapshot import history as history_module

from .helpers import assert_same

ACTIVE_PER_SNAPSHOT = (
    "SELECT pulled_at, count(*) AS active FROM rewards "
    "WHERE status = 'ACTIVE' GROUP BY pulled_at ORDER BY pulled_at"
)
SNAPSHOTS = 6


def _days(snapshot: ProgramSnapshot, count: int) -> list[ProgramSnapshot]:
    """``snapshot`` and ``count - 1`` more a day apart, the ``d``-th with ``d`` ACTIVE
    rewards moved to DRAFT."""
    out = []
    for day in range(count):
        rewards = snapshot.rewards.copy()
        active = rewards.index[rewards["status"] == "ACTIVE"][:day]
        rewards.loc[active, "status"] = "DRAFT"
        out.append(
            ProgramSnapshot.from_frames(
                {**snapshot.frames(), "rewards": rewards},
                source=snapshot.source,
                pulled_at=snapshot.pulled_at + pd.Timedelta(days=day),
            )
        )
    return out


@pytest.fixture
def stored(demo_snapshot: ProgramSnapshot, tmp_path: Path) -> list[ProgramSnapshot]:
    snaps = _days(demo_snapshot, SNAPSHOTS)
    history = SnapshotHistory(tmp_path / "history")
    for snap in snaps:
        history.append(snap)
    return snaps


def _no_frame_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every route that builds a snapshot's frames in pandas fail the test."""

    def refuse(*args: object, **kwargs: object) -> Any:
        raise AssertionError("a whole frame was read into pandas")

    monkeypatch.setattr(history_module, "read_snapshot", refuse)
    monkeypatch.setattr(snapshot_parquet, "read_parquet_frames", refuse)
    monkeypatch.setattr(pd, "read_parquet", refuse)


def _spoil(history: Path, kinds: list[str] | None = None) -> int:
    """Overwrite the Parquet files of ``kinds`` (every kind: None) of every stored snapshot
    with bytes no reader can take; how many files were spoilt."""
    spoilt = 0
    for path in history.glob("pulled_at=*/*.parquet"):
        if kinds is None or path.stem in kinds:
            path.write_bytes(b"not parquet")
            spoilt += 1
    return spoilt


def test_list_reads_the_manifests_only(
    stored: list[ProgramSnapshot], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = SnapshotHistory(tmp_path / "history")
    _no_frame_reads(monkeypatch)
    assert _spoil(history.path) == SNAPSHOTS * 9
    listed = history.list()
    assert listed["pulled_at"].tolist() == [s.pulled_at for s in stored]
    assert listed["members"].tolist() == [len(s.members) for s in stored]
    assert len(history) == SNAPSHOTS


def test_query_reads_the_kinds_it_names_in_duckdb_not_whole_snapshots(
    stored: list[ProgramSnapshot], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = SnapshotHistory(tmp_path / "history")
    _no_frame_reads(monkeypatch)
    others = [k for k in stored[0].frames() if k != "rewards"]
    assert _spoil(history.path, others) == SNAPSHOTS * len(others)  # only rewards can be read
    active = history.query(ACTIVE_PER_SNAPSHOT)
    expected = [int((s.rewards["status"] == "ACTIVE").sum()) for s in stored]
    assert active["active"].tolist() == expected
    assert expected[0] - expected[-1] == SNAPSHOTS - 1
    one = history.query(
        "SELECT count(*) AS n FROM rewards WHERE pulled_at = "
        f"TIMESTAMPTZ '{stored[2].pulled_at.isoformat()}'"
    )
    assert one["n"].tolist() == [len(stored[2].rewards)]
    with pytest.raises(Exception, match=r"members\.parquet"):  # a spoilt file is read once named
        history.query("SELECT count(*) FROM members")


def test_a_key_value_folder_above_the_history_adds_no_column(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    history = SnapshotHistory(tmp_path / "region=eu" / "history")
    history.append(demo_snapshot)
    columns = history.query("SELECT * FROM programs").columns.tolist()
    assert columns == ["pulled_at", *demo_snapshot.programs.columns]


def test_parquet_files_are_zstd_compressed(demo_snapshot: ProgramSnapshot, tmp_path: Path) -> None:
    demo_snapshot.to_parquet(tmp_path)
    meta = pq.ParquetFile(tmp_path / "rewards.parquet").metadata
    codecs = {meta.row_group(0).column(i).compression for i in range(meta.num_columns)}
    assert codecs == {"ZSTD"}


PROVENANCE = {
    "mode": "paced",
    "windows": 3,
    "kinds": {
        "cards": {
            "first_call": pd.Timestamp("2026-01-15T12:00:01Z"),
            "last_call": pd.Timestamp("2026-01-15T14:59:58.5Z"),
            "calls": 2_000,
        }
    },
    "refreshed": ("cards", "pending_buckets"),
    "share": 0.5,
    "note": None,
}
PROVENANCE_JSON = {
    **PROVENANCE,
    "kinds": {
        "cards": {
            "first_call": "2026-01-15T12:00:01.000000Z",
            "last_call": "2026-01-15T14:59:58.500000Z",
            "calls": 2_000,
        }
    },
    "refreshed": ["cards", "pending_buckets"],
}


def test_provenance_survives_append_and_load(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    snapshot = ProgramSnapshot.from_frames(
        demo_snapshot.frames(),
        source=demo_snapshot.source,
        pulled_at=demo_snapshot.pulled_at,
        provenance=PROVENANCE,
    )
    history = SnapshotHistory(tmp_path / "history")
    history.append(snapshot)
    back = history.load(snapshot.pulled_at)
    assert back.provenance == PROVENANCE_JSON
    assert_same(back, snapshot)
    assert history.latest().provenance == PROVENANCE_JSON  # type: ignore[union-attr]
    snapshot.to_csv(tmp_path / "csv")
    assert read_snapshot(tmp_path / "csv").provenance == PROVENANCE_JSON
    assert read_snapshot(tmp_path / "csv").sampled(Sample(4)).provenance == PROVENANCE_JSON
    assert demo_snapshot.provenance == {}
    manifest = json.loads((tmp_path / "csv" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["provenance"] == PROVENANCE_JSON
    demo_snapshot.to_csv(tmp_path / "plain")
    assert "provenance" not in (tmp_path / "plain" / "manifest.json").read_text(encoding="utf-8")


def test_provenance_json_cannot_hold_is_refused_before_anything_is_stored(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    snapshot = ProgramSnapshot.from_frames(
        demo_snapshot.frames(), provenance={"kinds": {"cards": {"reader": object()}}}
    )
    history = SnapshotHistory(tmp_path)
    with pytest.raises(ProvenanceError, match=r"provenance\.kinds\.cards\.reader: a object"):
        history.append(snapshot)
    assert len(history) == 0 and list(tmp_path.iterdir()) == []


def test_a_manifest_whose_provenance_is_not_an_object_is_named(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    demo_snapshot.to_parquet(tmp_path)
    path = tmp_path / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**manifest, "provenance": ["paced"]}), encoding="utf-8")
    with pytest.raises(SnapshotFileError, match="provenance: must be an object"):
        read_snapshot(tmp_path)


def test_a_column_some_snapshots_lack_reads_as_na_there(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    older = ProgramSnapshot.from_frames(  # as another version wrote it: fewer columns
        {
            **demo_snapshot.frames(),
            "rewards": demo_snapshot.rewards.drop(columns=["status"]),
            "benefits": demo_snapshot.benefits.drop(columns=["stock_type"]),
        },
        pulled_at=demo_snapshot.pulled_at,
    )
    newer = ProgramSnapshot.from_frames(
        {
            **demo_snapshot.frames(),
            "benefits": demo_snapshot.benefits.drop(columns=["stock_type"]),
        },
        pulled_at=demo_snapshot.pulled_at + pd.Timedelta(days=1),
    )
    history = SnapshotHistory(tmp_path)
    history.append(older)
    history.append(newer)
    statuses = history.query(
        "SELECT pulled_at, count(status) AS n FROM rewards GROUP BY ALL ORDER BY ALL"
    )
    assert statuses["n"].tolist() == [0, len(demo_snapshot.rewards)]
    benefits = history.query("SELECT * FROM benefits")
    assert benefits.columns.tolist() == ["pulled_at", *demo_snapshot.benefits.columns]
    assert benefits["stock_type"].isna().all() and len(benefits) == 2 * len(newer.benefits)
