"""A snapshot folder whose manifest escapes a lone surrogate (``"\\ud800"``: no text) is
refused on one line naming the manifest and the key, CSV or Parquet, by ``read_snapshot``,
``lyt plan`` and ``lyt sandbox serve --from-snapshot``: before, a category holding one
crashed the read (``UnicodeEncodeError``) and a source holding one was read as it was."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sandbox.serving import refusing_to_serve

from lyt_toolkit.cli import main
from lyt_toolkit.reports import SnapshotFileError
from lyt_toolkit.snapshot import read_snapshot

from .helpers import frame, snapshot

LONE = "\ud800"
NOT_TEXT = "holds a lone surrogate, not UTF-8 text"
Manifest = dict[str, Any]


def _in_source(manifest: Manifest) -> str:
    manifest["source"] = f"http://service.test/{LONE}"
    return "source"


def _in_a_category(manifest: Manifest) -> str:
    columns = manifest["frames"]["rewards"]["columns"]
    at = next(i for i, column in enumerate(columns) if column["name"] == "type")
    columns[at]["categories"].append(f"GIFT{LONE}")
    last = len(columns[at]["categories"]) - 1
    return f"frames.rewards.columns[{at}].categories[{last}]"


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-reward snapshot saved as CSV (``csv``) and Parquet (``parquet``), no service."""
    root = tmp_path_factory.mktemp("saved")
    reward = {"id": "rew_1", "name": "Mug", "type": "MATERIAL", "status": "ACTIVE"}
    taken = snapshot(rewards=frame("rewards", reward))
    taken.to_csv(root / "csv")
    taken.to_parquet(root / "parquet")
    return root


def _spoiled(saved: Path, form: str, spoil: Callable[[Manifest], str], to: Path) -> str:
    """A copy of the ``form`` folder at ``to``, its manifest spoiled: the key spoiled."""
    shutil.copytree(saved / form, to)
    path = to / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    key = spoil(manifest)
    path.write_text(json.dumps(manifest), encoding="ascii")  # the surrogate as its escape
    return key


@pytest.mark.parametrize("form", ["csv", "parquet"])
@pytest.mark.parametrize("spoil", [_in_source, _in_a_category], ids=["source", "category"])
def test_read_snapshot_refuses_a_manifest_escaping_a_lone_surrogate_naming_the_key(
    saved: Path, tmp_path: Path, form: str, spoil: Callable[[Manifest], str]
) -> None:
    key = _spoiled(saved, form, spoil, tmp_path / form)
    with pytest.raises(SnapshotFileError) as refused:
        read_snapshot(tmp_path / form)
    assert str(refused.value) == f"{tmp_path / form / 'manifest.json'}: key {key}: {NOT_TEXT}"


def test_lyt_plan_refuses_an_edited_folder_whose_manifest_escapes_one(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = tmp_path / "edited"
    key = _spoiled(saved, "csv", _in_a_category, edited)
    code = main(["plan", "--base", str(saved / "csv"), "--edited", str(edited)])
    err = capsys.readouterr().err
    assert f"{edited / 'manifest.json'}: key {key}: {NOT_TEXT}" in err, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert code == 1  # an error (lyt plan's 2 says there are changes)


def test_serve_from_a_snapshot_whose_manifest_escapes_one_exits_2_naming_it(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "parquet"
    key = _spoiled(saved, "parquet", _in_a_category, folder)
    with refusing_to_serve():
        code = main(["sandbox", "serve", "--port", "0", "--from-snapshot", str(folder)])
    err = capsys.readouterr().err
    assert f"{folder / 'manifest.json'}: key {key}: {NOT_TEXT}" in err, err
    assert len(err.splitlines()) == 1
    assert code == 2
