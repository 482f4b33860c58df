"""Progress bars of the ``lyt`` commands: ``LYT_PROGRESS`` decides where they show, as the
docs say, and a bar whose total is known shows it (and so the time left)."""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path

import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_for, demo_program


def _export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, progress: str) -> int:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYT_PROGRESS", progress)
    return main(["export", "--sandbox", "--out", str(tmp_path / progress)])


def test_lyt_progress_text_writes_plain_lines_when_stderr_is_no_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log gets whole lines: earlier the nested bars' carriage returns and cursor-up escapes
    (``\\x1b[A``) went into the file."""
    assert _export(tmp_path, monkeypatch, "text") == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err, repr(err[:300])
    lines = err.splitlines()
    assert lines and all(re.match(r"\d\d:\d\d:\d\d UTC [\w ]+: \d", line) for line in lines), err
    members = len(demo_program()["members"])
    assert re.search(r"UTC snapshot: [\d,]+ rows", err), err  # the whole pull's bar
    # its total: one read per member, and its last count as it closed
    assert f"UTC cards reads: {members} of {members} calls (100 %)" in err, err


@pytest.mark.parametrize("progress", ["off", "auto"])
def test_no_bar_with_lyt_progress_off_or_auto_when_stderr_is_no_terminal(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    progress: str,
) -> None:
    assert _export(tmp_path, monkeypatch, progress) == 0
    assert capsys.readouterr().err == ""


def test_a_pull_reports_the_total_of_its_member_reads(demo: Sandbox) -> None:
    seen: list[tuple[int, int]] = []
    with client_for(demo) as client:
        ProgramSnapshot.pull(client, progress=lambda done, total: seen.append((done, total)))
    members = len(demo_program()["members"])
    assert (0, members) in seen and (members, members) in seen
    assert (1, members) in seen  # counted one by one towards the total


def test_lyt_drift_shows_its_pull_with_lyt_progress_text(
    demo: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYT_BASE_URL", demo.base_url)
    for key, value in asdict(demo.credentials).items():
        monkeypatch.setenv(f"LYT_{key.upper()}", value)
    with client_for(demo) as client:
        ProgramSnapshot.pull(client, progress=False).to_parquet(tmp_path / "snap")
    monkeypatch.setenv("LYT_PROGRESS", "text")
    assert main(["drift", str(tmp_path / "snap")]) == 0
    assert "snapshot: " in capsys.readouterr().err


PROGRAM = "lprg_c0ffee0001"


def test_the_program_wide_pending_buckets_frame_reports_its_member_reads(demo: Sandbox) -> None:
    seen: list[tuple[int, int]] = []
    with client_for(demo) as client:
        client.pending_buckets.frame(
            PROGRAM, progress=lambda done, total: seen.append((done, total))
        )
    members = sum(m["program_id"] == PROGRAM for m in demo_program()["members"])
    assert members > 1
    assert (0, members) in seen and (1, members) in seen and (members, members) in seen
