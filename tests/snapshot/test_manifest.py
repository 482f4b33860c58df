"""A hand-edited ``manifest.json`` is a ``SnapshotFileError`` naming the file and the key."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lyt_toolkit import ProgramSnapshot, read_snapshot
from lyt_toolkit.cli import main
from lyt_toolkit.frames import SCHEMAS
from lyt_toolkit.reports import SnapshotFileError
from lyt_toolkit.snapshot import SnapshotHistory

Edit = Callable[[dict[str, Any]], Any]


def _rewards(change: Edit) -> Edit:
    return lambda manifest: change(manifest["frames"]["rewards"])


EDITS: dict[str, tuple[str, Edit]] = {
    "pulled_at in words": ("pulled_at", lambda m: m.update(pulled_at="yesterday")),
    "pulled_at a number": ("pulled_at", lambda m: m.update(pulled_at=1768478400)),
    "no pulled_at": ("pulled_at", lambda m: m.pop("pulled_at")),
    "source a number": ("source", lambda m: m.update(source=7)),
    "frames a list": ("frames", lambda m: m.update(frames=[])),
    "no sha256": ("frames.rewards.sha256", _rewards(lambda e: e.pop("sha256"))),
    "rows as text": ("frames.rewards.rows", _rewards(lambda e: e.update(rows="12"))),
    "no columns": ("frames.rewards.columns", _rewards(lambda e: e.pop("columns"))),
    "file outside": ("frames.rewards.file", _rewards(lambda e: e.update(file="../rewards.csv"))),
    "entry a string": ("frames.rewards", lambda m: m["frames"].update(rewards="rewards.csv")),
    "column without dtype": (
        "frames.rewards.columns[1].dtype",
        _rewards(lambda e: e["columns"][1].pop("dtype")),
    ),
    "categories a string": (
        "frames.rewards.columns[2].categories",
        _rewards(lambda e: e["columns"][2].update(categories="MATERIAL")),
    ),
}


def _edited(snapshot: ProgramSnapshot, folder: Path, form: str, edit: Edit) -> Path:
    """``snapshot`` written as ``form`` into ``folder``, then its manifest edited by hand."""
    snapshot.to_csv(folder) if form == "csv" else snapshot.to_parquet(folder)
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    edit(manifest)
    path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize("form", ["csv", "parquet"])
@pytest.mark.parametrize("case", EDITS)
def test_a_hand_edited_manifest_is_refused_naming_file_and_key(
    demo_snapshot: ProgramSnapshot, tmp_path: Path, form: str, case: str
) -> None:
    key, edit = EDITS[case]
    path = _edited(demo_snapshot, tmp_path / form, form, edit)
    with pytest.raises(SnapshotFileError, match=rf"^{re.escape(f'{path}: {key}: ')}"):
        read_snapshot(tmp_path / form)


def test_a_manifest_saved_as_utf16_is_refused_naming_the_file(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    demo_snapshot.to_csv(tmp_path)
    path = tmp_path / "manifest.json"
    path.write_text(path.read_text(encoding="utf-8"), encoding="utf-16")
    with pytest.raises(SnapshotFileError, match=rf"^{re.escape(str(path))}: saved as UTF-16"):
        read_snapshot(tmp_path)


def test_a_broken_manifest_in_a_history_is_refused_naming_it(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    history = SnapshotHistory(tmp_path)
    history.append(demo_snapshot)
    [path] = tmp_path.glob("*/manifest.json")
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["pulled_at"] = "yesterday"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(SnapshotFileError, match=rf"^{re.escape(f'{path}: pulled_at: ')}"):
        history.list()


def test_lyt_diff_of_a_broken_manifest_fails_in_one_line(
    demo_snapshot: ProgramSnapshot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo_snapshot.to_csv(tmp_path / "old")
    key, edit = EDITS["no sha256"]
    path = _edited(demo_snapshot, tmp_path / "new", "csv", edit)
    assert main(["diff", str(tmp_path / "old"), str(tmp_path / "new")]) == 2
    err = capsys.readouterr().err
    assert err == f"lyt diff: {path}: {key}: missing\n"


@pytest.mark.parametrize("kinds", ["rewards", ["rewards", 3], ["promotions"]])
def test_a_manifest_whose_kinds_are_broken_is_refused_naming_the_key(
    tmp_path: Path, kinds: object
) -> None:
    snapshot = ProgramSnapshot.from_frames({"rewards": SCHEMAS["rewards"].empty()})
    snapshot.to_csv(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["kinds"] == ["rewards"]
    manifest["kinds"] = kinds
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(SnapshotFileError, match=r"manifest\.json: kinds: "):
        read_snapshot(tmp_path)
