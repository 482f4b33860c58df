"""``lyt demo`` and ``lyt audit`` end to end: files written, summary printed, exit codes."""

from __future__ import annotations

import contextlib
import io
import re
import socket
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit.audit import FINDING_COLUMNS, RULES
from lyt_toolkit.cli import main
from lyt_toolkit.reports import read_manifest
from lyt_toolkit.reports.economics_chart import CHARTS
from lyt_toolkit.reports.economics_report import ECONOMICS_FORMAT, ECONOMICS_HTML
from lyt_toolkit.sandbox import Sandbox

from .test_rules import NOT_IN_DEMO

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SNAPSHOT_FILES = {"manifest.json", "rewards.csv", "benefits.csv", "card_definitions.csv"}


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path, str, str]:
    """``lyt demo --out DIR`` run once: exit code, directory, stdout, stderr.

    Captured by hand because ``capsys`` is function-scoped and one demo run serves the module.
    """
    out = tmp_path_factory.mktemp("demo") / "reports"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["demo", "--out", str(out)])
    return code, out, stdout.getvalue(), stderr.getvalue()


def test_demo_exits_zero_with_findings(demo_run: tuple[int, Path, str, str]) -> None:
    code, out, _, _ = demo_run
    assert code == 0
    findings = pd.read_csv(out / "audit_findings.csv")
    assert tuple(findings.columns) == FINDING_COLUMNS
    assert set(findings["rule"]) == set(RULES) - NOT_IN_DEMO


def test_demo_writes_every_report(demo_run: tuple[int, Path, str, str]) -> None:
    _, out, _, _ = demo_run
    names = {p.name for p in out.iterdir()}
    assert {
        "audit_findings.csv",
        "audit_findings.schema.json",
        "audit_findings.png",
    } | SNAPSHOT_FILES <= names
    assert (out / "audit_findings.png").read_bytes().startswith(PNG_MAGIC)


def test_demo_writes_the_economics_report(demo_run: tuple[int, Path, str, str]) -> None:
    _, out, stdout, _ = demo_run
    economics = out / "economics"
    manifest = read_manifest(economics, formats=(ECONOMICS_FORMAT,))
    assert {f"{c}.png" for c in CHARTS} | {ECONOMICS_HTML, "liability.csv"} <= {
        p.name for p in economics.iterdir()
    }
    liability = pd.read_csv(economics / "liability.csv")
    assert manifest["headline"]["outstanding_points"] == liability["outstanding_points"].sum()
    assert f"Economics report written to {economics.resolve()}/" in stdout


def test_demo_prints_the_summary_table(demo_run: tuple[int, Path, str, str]) -> None:
    _, out, stdout, stderr = demo_run
    assert "demo program" in stdout
    for rule in RULES:
        assert re.search(rf"^{re.escape(rule)}\s+\d+\s+\d+\s+\d+\s+\d+$", stdout, re.M), rule
    findings = pd.read_csv(out / "audit_findings.csv")
    total = re.search(r"^total\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", stdout, re.M)
    assert total and int(total.group(4)) == len(findings)
    assert "audit_findings.png" in stdout and str(out.resolve()) in stdout
    assert "Errors to fix first:" in stdout and "lcdef_deadbeef0000" in stdout
    assert "Traceback" not in stderr


def test_audit_sandbox_flag_audits_the_demo(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["audit", "--sandbox", "--out", str(tmp_path)])
    assert code == 0
    assert (tmp_path / "audit_findings.csv").exists()
    assert "total" in capsys.readouterr().out


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_service_fails_in_one_clean_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    secret = "s3cr3t-app-token-do-not-print"
    monkeypatch.chdir(tmp_path)  # no .env from the working copy
    monkeypatch.setenv("LYT_BASE_URL", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("LYT_APP_ID", "some-app")
    monkeypatch.setenv("LYT_APP_TOKEN", secret)
    monkeypatch.setenv("LYT_MANAGEMENT_TOKEN", "s3cr3t-management-token")
    code = main(["audit", "--out", str(tmp_path / "reports")])
    captured = capsys.readouterr()
    assert code != 0
    assert "cannot reach the service" in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err + captured.out
    assert secret not in captured.err + captured.out
    assert "s3cr3t-management-token" not in captured.err + captured.out
    assert not (tmp_path / "reports" / "audit_findings.csv").exists()


def test_refused_credentials_fail_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    secret = "wrong-app-token-never-printed"
    monkeypatch.chdir(tmp_path)
    with Sandbox.start(now="2026-01-15T12:00:00Z") as sb:
        monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
        monkeypatch.setenv("LYT_APP_ID", sb.credentials.app_id)
        monkeypatch.setenv("LYT_APP_TOKEN", secret)
        code = main(["audit", "--out", str(tmp_path / "reports")])
    captured = capsys.readouterr()
    assert code != 0
    assert "refused the credentials" in captured.err
    assert secret not in captured.err + captured.out
    assert "Traceback" not in captured.err


def test_missing_configuration_fails_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    for var in ("LYT_BASE_URL", "LYT_APP_ID", "LYT_APP_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    code = main(["audit", "--out", str(tmp_path / "reports")])
    err = capsys.readouterr().err
    assert code != 0
    assert err.startswith("lyt audit: ") and "Traceback" not in err


def test_rules_flag_prints_the_catalogue(capsys: pytest.CaptureFixture) -> None:
    assert main(["audit", "--rules"]) == 0
    out = capsys.readouterr().out
    for rule in RULES.values():
        assert rule.id in out and rule.description in out
