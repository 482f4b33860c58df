"""``lyt audit`` and ``lyt export`` print the calls their pull used and what the window has left."""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path

import pytest

from lyt_toolkit.cli import main
from lyt_toolkit.sandbox import Sandbox

LINE = re.compile(
    r"^API calls used: (\d+); remaining this window: (\d+) of 500; "
    r"resets at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$",
    re.M,
)


@pytest.mark.parametrize("command", ["audit", "export"])
def test_the_calls_used_and_left_are_printed(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env from the working copy
    with Sandbox.start(now="2026-01-15T12:00:00Z", plan="500/hour") as sb:
        for name, value in asdict(sb.credentials).items():
            monkeypatch.setenv(f"LYT_{name.upper()}", value)
        monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
        assert main([command, "--out", str(tmp_path / "out")]) == 0
        used = sb.plan()["used"]
    printed = LINE.search(capsys.readouterr().out)
    assert printed, "no calls line"
    assert int(printed.group(1)) == used > 0  # the pull's calls, the only ones sent
    assert int(printed.group(2)) == 500 - used
