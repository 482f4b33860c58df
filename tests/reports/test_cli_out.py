"""``--out`` of ``lyt export`` and ``lyt audit``: ``~`` expanded, an empty path refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from lyt_toolkit.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh home directory, and a working directory apart from it."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    return home


@pytest.mark.parametrize("out", ["", "   "])
def test_export_refuses_an_empty_out_in_one_line(
    out: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "--sandbox", "--out", out]) == 1
    err = capsys.readouterr().err
    assert err == "lyt export: --out is empty; give the directory to write to\n"


def test_audit_refuses_an_empty_out_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--sandbox", "--out", ""]) == 2
    err = capsys.readouterr().err
    assert err == "lyt audit: --out is empty; give the directory to write to\n"


def test_export_expands_a_tilde_in_out(home: Path) -> None:
    assert main(["export", "--sandbox", "--out", "~/snap"]) == 0
    assert (home / "snap" / "manifest.json").is_file()
    assert not (Path.cwd() / "~").exists()


def test_audit_expands_a_tilde_in_out(home: Path) -> None:
    assert main(["audit", "--sandbox", "--out", "~/reports"]) == 0
    assert (home / "reports" / "audit_findings.csv").is_file()
    assert not (Path.cwd() / "~").exists()


def test_the_audit_names_the_embedded_sandbox_as_the_demo_program(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its address changes with every start: the summary names it as users know it."""
    assert main(["audit", "--sandbox", "--out", "~/reports"]) == 0
    first = capsys.readouterr().out.splitlines()
    audit = next(line for line in first if line.startswith("Audit of "))
    assert audit.startswith("Audit of the embedded demo program (--sandbox) as of ")
    assert "127.0.0.1" not in audit
