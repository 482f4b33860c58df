"""``lyt report economics`` end to end against sandboxes over HTTP: files, figures, exit codes."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from audit.programs import clean_program
from economics.priced_program import returning
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.reports import read_manifest
from lyt_toolkit.reports.economics_chart import CHARTS
from lyt_toolkit.reports.economics_report import ECONOMICS_FORMAT, ECONOMICS_HTML
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import SnapshotHistory

EXIT_CANNOT_RUN = 2


@contextmanager
def _served(
    start_sandbox: StartSandbox,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    program: dict[str, Any],
) -> Iterator[Sandbox]:
    """``program`` served by a sandbox the ``lyt`` command is configured for."""
    monkeypatch.chdir(tmp_path)  # no .env from the working copy
    monkeypatch.setenv("LYT_PROGRESS", "off")
    with start_sandbox(program) as sb:
        monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
        monkeypatch.setenv("LYT_APP_ID", sb.credentials.app_id)
        monkeypatch.setenv("LYT_APP_TOKEN", sb.credentials.app_token)
        monkeypatch.setenv("LYT_MANAGEMENT_ID", sb.credentials.management_id)
        monkeypatch.setenv("LYT_MANAGEMENT_TOKEN", sb.credentials.management_token)
        yield sb


@pytest.fixture
def service(
    start_sandbox: StartSandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Sandbox]:
    """The priced program served by a sandbox the ``lyt`` command is configured for."""
    with _served(start_sandbox, monkeypatch, tmp_path, returning(clean_program(), 5)) as sb:
        yield sb


@pytest.mark.parametrize("name", ["Double $$ Days", "$5% off$"])
def test_names_with_dollar_signs_are_charted_as_plain_text(
    start_sandbox: StartSandbox,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    program = returning(clean_program(), 5)
    program["card_definitions"][0]["name"] = name
    for reward in program["rewards"]:
        reward["name"] = f"{name} {reward['name']}"
    out = tmp_path / "econ"
    with _served(start_sandbox, monkeypatch, tmp_path, program):
        code = main(["report", "economics", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err, err
    for chart in CHARTS:
        assert (out / f"{chart}.png").read_bytes().startswith(b"\x89PNG")


def test_the_page_names_a_real_service_by_its_project_and_never_a_token(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "econ"
    assert main(["report", "economics", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    page = (out / ECONOMICS_HTML).read_text(encoding="utf-8")
    named = f"project {service.credentials.app_id}"
    assert named in page and named in printed
    for secret in (service.credentials.app_token, service.credentials.management_token):
        assert secret not in page + printed


def test_the_page_names_the_embedded_sandbox_as_the_demo_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYT_PROGRESS", "off")
    out = tmp_path / "econ"
    assert main(["report", "economics", "--sandbox", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    page = (out / ECONOMICS_HTML).read_text(encoding="utf-8")
    assert "the embedded demo program" in page and "the embedded demo program" in printed
    assert "127.0.0.1" not in page and "127.0.0.1" not in printed


def test_report_writes_every_file_and_prints_the_headline(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "econ"
    assert main(["report", "economics", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    manifest = read_manifest(out, formats=(ECONOMICS_FORMAT,))
    files = {p.name for p in out.iterdir()}
    csvs = {entry["file"] for entry in manifest["frames"].values()}
    assert files == csvs | {f"{c}.png" for c in CHARTS} | {"manifest.json", ECONOMICS_HTML}
    # (500 outstanding + 120 pending) x 0.5 a point x 1.0 redeemed = 310 minor units.
    assert manifest["headline"]["liability_median"] == 310.0
    assert "liability median" in stdout and "310" in stdout
    liability = pd.read_csv(out / "liability.csv")
    assert liability["value_median"].tolist() == [310.0]


def test_prices_and_history_reach_the_report(
    service: Sandbox,
    tmp_path: Path,
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
) -> None:
    history = SnapshotHistory(tmp_path / "history")
    for now in ("2026-01-01T12:00:00Z", "2026-01-08T12:00:00Z"):
        with start_sandbox(returning(clean_program(), 5), now=now) as sb, make_client(sb) as c:
            history.append(ProgramSnapshot.pull(c, progress=False))
    prices = tmp_path / "prices.csv"
    prices.write_text("id,value\nprod_unused,1000\n", encoding="utf-8")
    out = tmp_path / "econ"
    args = ["--history", str(history.path), "--prices", str(prices), "--out", str(out)]
    assert main(["report", "economics", *args]) == 0
    over = pd.read_csv(out / "economics_over_time.csv")
    # Two stored snapshots, one card definition holding cards, each 620 points x 0.5.
    assert over["pulled_at"].tolist() == [
        "2026-01-01T12:00:00.000000Z",
        "2026-01-08T12:00:00.000000Z",
    ]
    assert over["liability_median"].tolist() == [310.0, 310.0]


def test_an_unreadable_prices_file_fails_in_one_line_naming_it(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.csv"
    prices.write_text("id,value\nprod_mug,twelve\n", encoding="utf-8")
    out = tmp_path / "econ"
    code = main(["report", "economics", "--prices", str(prices), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_CANNOT_RUN and not out.exists()
    assert err.startswith("lyt report economics: cannot read the prices: ")
    assert f"{prices}: row 1, column value" in err and len(err.strip().splitlines()) == 1


def test_a_missing_history_folder_fails_in_one_line(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["report", "economics", "--history", str(tmp_path / "nope"), "--out", "x"])
    err = capsys.readouterr().err
    assert code == EXIT_CANNOT_RUN and "--history" in err and "nope" in err


def test_an_empty_out_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "economics", "--out", " "]) == EXIT_CANNOT_RUN
    assert "--out is empty" in capsys.readouterr().err


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_service_fails_without_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "s3cr3t-app-token-do-not-print"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYT_BASE_URL", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("LYT_APP_ID", "some-app")
    monkeypatch.setenv("LYT_APP_TOKEN", secret)
    code = main(["report", "economics", "--out", str(tmp_path / "econ")])
    captured = capsys.readouterr()
    assert code == EXIT_CANNOT_RUN and "cannot reach the service" in captured.err
    assert secret not in captured.err + captured.out and "Traceback" not in captured.err
    assert not (tmp_path / "econ").exists()


def test_an_unwritable_out_fails_in_one_line(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    code = main(["report", "economics", "--out", str(blocker / "econ")])
    err = capsys.readouterr().err
    assert code == EXIT_CANNOT_RUN and "cannot write the economics report" in err


def test_a_stated_redemption_rate_scales_the_liability(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "econ"
    assert main(["report", "economics", "--redemption-rate", "0.5", "--out", str(out)]) == 0
    manifest = read_manifest(out, formats=(ECONOMICS_FORMAT,))
    # (500 outstanding + 120 pending) x 0.5 a point x 0.5 redeemed = 155 minor units.
    assert manifest["headline"]["liability_median"] == 155.0
    assert "redemption rate: 0.5 as given" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--redemption-rate", "1.5"], "--redemption-rate '1.5' is neither"),
        (["--redemption-rate", "most"], "--redemption-rate 'most' is neither"),
        (["--redemption-rate", "history"], "--redemption-rate history needs --history"),
    ],
)
def test_a_bad_redemption_rate_is_refused_naming_the_option(
    service: Sandbox,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    out = tmp_path / "econ"
    assert main(["report", "economics", *args, "--out", str(out)]) == EXIT_CANNOT_RUN
    assert message in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())
