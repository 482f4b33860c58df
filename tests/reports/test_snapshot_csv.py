"""CSV + manifest export of a snapshot, read back with equal frames; tampering detected."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot, read_snapshot
from lyt_toolkit.cli import main
from lyt_toolkit.frames import FRAME_NAMES, SCHEMAS
from lyt_toolkit.reports import SnapshotFileError, read_manifest, snapshot_csv
from lyt_toolkit.reports.snapshot_csv import read_frames
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import SandboxCredentials

NOW = "2026-01-15T12:00:00Z"
APP_TOKEN = "apptok-REPORTS-SECRET-41d9c7"
MANAGEMENT_TOKEN = "mgmttok-REPORTS-SECRET-b62e05"
CREDENTIALS = SandboxCredentials(
    app_id="reports-tests-app",
    app_token=APP_TOKEN,
    management_id="reports-tests-management",
    management_token=MANAGEMENT_TOKEN,
)


def pull(sb: Sandbox) -> ProgramSnapshot:
    with LoyaltyClient(
        base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
    ) as client:
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture(scope="module")
def snapshot() -> Iterator[ProgramSnapshot]:
    with Sandbox.start(now=NOW, seed=7, credentials=CREDENTIALS) as sb:
        yield pull(sb)


@pytest.fixture
def exported(snapshot: ProgramSnapshot, tmp_path: Path) -> Path:
    snapshot.to_csv(tmp_path)
    return tmp_path


def assert_same(a: ProgramSnapshot, b: ProgramSnapshot) -> None:
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), obj=name)
    assert a.source == b.source
    assert a.pulled_at == b.pulled_at


def test_round_trip_gives_equal_frames(snapshot: ProgramSnapshot, exported: Path) -> None:
    back = read_snapshot(exported)
    assert_same(back, snapshot)
    for name, frame in back.frames().items():
        assert frame.dtypes.to_dict() == SCHEMAS[name].dtypes


def test_writes_one_csv_per_frame_and_a_manifest(snapshot: ProgramSnapshot, tmp_path: Path) -> None:
    written = snapshot.to_csv(tmp_path / "new" / "dir")
    names = sorted(p.name for p in written)
    assert names == sorted([f"{n}.csv" for n in FRAME_NAMES] + ["manifest.json"])
    manifest = read_manifest(tmp_path / "new" / "dir")
    assert manifest["format"] == "lyt-snapshot/1"
    assert manifest["source"] == snapshot.source
    assert manifest["pulled_at"].startswith("2026-01-15T12:00:00")
    for name in FRAME_NAMES:
        entry = manifest["frames"][name]
        assert entry["rows"] == len(snapshot.frames()[name])
        assert len(entry["sha256"]) == 64
        assert [c["name"] for c in entry["columns"]] == SCHEMAS[name].names
    status = next(c for c in manifest["frames"]["rewards"]["columns"] if c["name"] == "status")
    assert status == {
        "name": "status",
        "dtype": "category",
        "categories": ["ACTIVE", "DRAFT", "INACTIVE", "DELETED"],
    }


def test_no_secret_is_written(exported: Path) -> None:
    for path in exported.iterdir():
        text = path.read_text(encoding="utf-8")
        for secret in (APP_TOKEN, MANAGEMENT_TOKEN):
            assert secret not in text, path.name
        assert "Bearer" not in text


def test_source_url_loses_user_info() -> None:
    snap = ProgramSnapshot.from_frames({}, source="https://user:pw@api.example.test/base?key=x")
    assert snap.source == "https://api.example.test/base"


def test_tampered_csv_is_detected(exported: Path) -> None:
    path = exported / "benefits.csv"
    path.write_text(path.read_text().replace("ACTIVE", "DRAFT", 1))
    with pytest.raises(SnapshotFileError, match=r"benefits\.csv was changed"):
        read_snapshot(exported)


def test_missing_csv_is_named(exported: Path) -> None:
    (exported / "rewards.csv").unlink()
    with pytest.raises(
        SnapshotFileError, match=r"rewards\.csv is listed in the manifest but missing"
    ):
        read_snapshot(exported)


def test_not_a_snapshot_directory(tmp_path: Path) -> None:
    with pytest.raises(SnapshotFileError, match=r"manifest\.json is missing"):
        read_snapshot(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "other/9"}))
    with pytest.raises(SnapshotFileError, match="format"):
        read_snapshot(tmp_path)


def test_empty_program_round_trip(tmp_path: Path) -> None:
    with Sandbox.start(data={"format": "lyt-program/1"}, now=NOW, seed=7) as sb:
        empty = pull(sb)
    empty.to_csv(tmp_path)
    back = read_snapshot(tmp_path)
    assert_same(back, empty)
    assert all(len(f) == 0 for f in back.frames().values())


def test_a_frame_without_rows_is_read_from_its_header_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame without rows is read without the CSV parser (a Series and a conversion per
    column: some 10 ms a frame), equal to the one written, dtypes and categories too, and a
    frame of its own at each read; a header that differs from the manifest is still refused."""
    written = ProgramSnapshot.from_frames({}, pulled_at=NOW)
    written.to_csv(tmp_path)
    with monkeypatch.context() as parser:
        parser.setattr(snapshot_csv, "parse_csv", _no_parse)
        back = read_snapshot(tmp_path)
        assert_same(back, written)
        first = read_frames(tmp_path).frames["rewards"]
        first["added"] = pd.array([], dtype="Int64")
        pd.testing.assert_frame_equal(read_frames(tmp_path).frames["rewards"], back.rewards)
    (tmp_path / "members.csv").write_bytes(b"identifier" + (tmp_path / "members.csv").read_bytes())
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["frames"]["members"]
    entry["sha256"] = hashlib.sha256((tmp_path / "members.csv").read_bytes()).hexdigest()
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(SnapshotFileError, match=r"members\.csv: columns differ .* column 1: "):
        read_snapshot(tmp_path)


def _no_parse(raw: bytes, dtypes: object) -> pd.DataFrame:
    raise AssertionError("a CSV without rows was parsed")


def test_awkward_text_survives(tmp_path: Path) -> None:
    reward = {
        "id": "lrew_0a",
        "name": 'Comma, "quote"\nand newline; ünïcode ☕',
        "type": "MATERIAL",
        "status": "ACTIVE",
        "metadata": {"note": "a,b", "n": 1.5},
        "validity_hours": {"type": "DAILY", "daily": []},
        "created_at": "2026-01-01T00:00:00.123Z",
    }
    from lyt_toolkit.frames import reward_costs_frame, rewards_frame

    snap = ProgramSnapshot.from_frames(
        {"rewards": rewards_frame([reward]), "reward_costs": reward_costs_frame([reward])},
        source="http://127.0.0.1:1",
        pulled_at="2026-01-15T12:00:00Z",
    )
    snap.to_csv(tmp_path)
    assert_same(read_snapshot(tmp_path), snap)


def test_lyt_export_sandbox(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "export"
    assert main(["export", "--out", str(out), "--sandbox"]) == 0
    printed = capsys.readouterr().out
    assert str(out.resolve()) in printed
    assert "rewards.csv" in printed and "rows" in printed
    back = read_snapshot(out)
    assert len(back.rewards) > 0 and len(back.pending_buckets) > 0


def test_lyt_export_reports_a_bad_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for var in ("LYT_BASE_URL", "LYT_APP_ID", "LYT_APP_TOKEN", "LYT_CLUSTER"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LYT_CLUSTER", "moon")
    assert main(["export", "--out", str(tmp_path / "x")]) == 1
    assert "lyt export:" in capsys.readouterr().err


def test_lyt_export_names_the_settings_when_credentials_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    wrong = "wrong-app-token-never-printed"
    with Sandbox.start(now=NOW, credentials=CREDENTIALS) as sb:
        monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
        monkeypatch.setenv("LYT_APP_ID", CREDENTIALS.app_id)
        monkeypatch.setenv("LYT_APP_TOKEN", wrong)
        assert main(["export", "--out", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lyt export: ") and len(err.strip().splitlines()) == 1
    assert "LYT_APP_ID and LYT_APP_TOKEN" in err and wrong not in err
    assert not (tmp_path / "x").exists()
