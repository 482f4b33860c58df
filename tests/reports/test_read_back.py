"""Reading back a snapshot whose files parse badly: one SnapshotFileError, never pandas'."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from lyt_toolkit import ProgramSnapshot, read_snapshot
from lyt_toolkit.frames import benefits_frame
from lyt_toolkit.reports import MANIFEST, SnapshotFileError

from .helpers import BENEFIT

SAMPLE = BENEFIT


def rewritten(directory: Path, content: str) -> Path:
    """A snapshot whose benefits.csv is ``content``, re-signed in the manifest (hash matches)."""
    snapshot = ProgramSnapshot.from_frames(
        {"benefits": benefits_frame([SAMPLE])}, pulled_at="2026-01-15T12:00:00Z"
    )
    snapshot.to_csv(directory)
    path = directory / "benefits.csv"
    path.write_bytes(content.encode("utf-8"))
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    manifest["frames"]["benefits"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (directory / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return directory


def test_an_unclosed_quote_is_a_snapshot_file_error(tmp_path: Path) -> None:
    ProgramSnapshot.from_frames({"benefits": benefits_frame([SAMPLE])}).to_csv(tmp_path / "a")
    header, row = (tmp_path / "a" / "benefits.csv").read_text(encoding="utf-8").splitlines()
    directory = rewritten(tmp_path / "b", f'{header}\r\n"{row}\r\n')
    with pytest.raises(SnapshotFileError, match=r"benefits\.csv: cannot be read"):
        read_snapshot(directory)


def test_a_bad_instant_is_a_snapshot_file_error(tmp_path: Path) -> None:
    ProgramSnapshot.from_frames({"benefits": benefits_frame([SAMPLE])}).to_csv(tmp_path / "a")
    text = (tmp_path / "a" / "benefits.csv").read_text(encoding="utf-8")
    directory = rewritten(tmp_path / "b", text.replace("2026-01-15T12:00:00.000000Z", "someday"))
    with pytest.raises(SnapshotFileError, match=r"benefits\.csv: cannot be read"):
        read_snapshot(directory)


def test_a_bad_integer_is_a_snapshot_file_error(tmp_path: Path) -> None:
    ProgramSnapshot.from_frames({"benefits": benefits_frame([SAMPLE])}).to_csv(tmp_path / "a")
    text = (tmp_path / "a" / "benefits.csv").read_text(encoding="utf-8")
    directory = rewritten(tmp_path / "b", text.replace(",10,", ",ten,"))
    with pytest.raises(SnapshotFileError) as caught:
        read_snapshot(directory)
    assert str(caught.value) == (
        f"{directory / 'benefits.csv'}: column 'points_value', row 1: a value that is not a"
        " whole number (dtype 'Int64')"
    )
