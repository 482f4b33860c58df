"""``lyt export --since DIR``: an exported snapshot refreshed by what is new, its cost first."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot, Sample
from lyt_toolkit.cli import main
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import read_snapshot

CALLS = re.compile(r"^API calls used: (\d+);", re.M)
NEW = re.compile(r"^\s+members=new\s+(\d+) calls \((\d+) lists, (\d+) member reads", re.M)


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    monkeypatch.chdir(tmp_path)  # no .env from the working copy
    with Sandbox.start(now="2026-01-15T12:00:00Z", plan="500/hour") as sb:
        for name, value in asdict(sb.credentials).items():
            monkeypatch.setenv(f"LYT_{name.upper()}", value)
        monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
        yield sb


def test_export_since_prints_the_cost_first_then_refreshes(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    assert main(["export", "--out", str(old)]) == 0
    capsys.readouterr()
    service.advance_clock(3600)
    assert main(["export", "--out", str(new), "--since", str(old)]) == 0
    out = capsys.readouterr().out
    cost = NEW.search(out)
    assert cost, out
    calls = CALLS.search(out)
    assert calls and out.index(cost.group(0)) < out.index(calls.group(0))
    # Nothing is new: the refresh sends the lists the cost counted, and reads no member.
    assert int(cost.group(3)) == 0
    assert int(calls.group(1)) == int(cost.group(1)) == int(cost.group(2))
    assert "read at 2026-01-15 12:00:00 UTC" in out and "read at 2026-01-15 13:00:00 UTC" in out
    manifest = json.loads((new / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["read_at"]["rewards"] == "2026-01-15T12:00:00.000000Z"
    assert manifest["read_at"]["programs"] == "2026-01-15T13:00:00.000000Z"
    back = read_snapshot(new)
    assert back.read_at["cards"] == read_snapshot(old).pulled_at
    assert back.pulled_at > back.read_at["cards"]


def test_a_refresh_refused_for_its_member_reads_names_no_estimate_of_a_whole_pull(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``lyt export --estimate`` counts a whole pull, not a refresh (and is refused beside
    ``--since``): a refresh refused for its member reads names its own ways forward only.
    Earlier it ended with ``To know the cost first: lyt export --estimate --read-sample 100``
    as a whole pull's refusal does."""
    old = tmp_path / "old"
    assert main(["export", "--out", str(old)]) == 0
    capsys.readouterr()
    service.set_plan("30/hour")  # the lists fit in half of it, the member reads do not
    args = ["--out", str(tmp_path / "new"), "--since", str(old), "--members", "all"]
    assert main(["export", *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lyt export: pull stopped before its member reads: "), err
    assert "--members none" in err  # the refresh's own way forward
    assert "To know the cost first" not in err and "--estimate" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--members", "all"], "--members: only with --since DIR"),
        (["--since", "OLD", "--members", "new", "--sample", "5"], "--members: give --members or"),
    ],
)
def test_export_refuses_members_it_cannot_take(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["export", "--out", str(tmp_path / "out"), *args]) == 2
    assert message in capsys.readouterr().err


def test_export_since_a_folder_that_is_no_snapshot_says_so(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["export", "--out", str(tmp_path / "out"), "--since", str(tmp_path)]) == 1
    assert "manifest.json is missing" in capsys.readouterr().err


def test_export_since_a_sample_without_sample_names_the_ways_before_any_call(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    old = tmp_path / "old"
    assert main(["export", "--out", str(old), "--sample", "5"]) == 0
    capsys.readouterr()
    used = service.plan()["used"]
    code = main(["export", "--out", str(tmp_path / "new"), "--since", str(old)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert err.startswith(f"lyt export: --members new: the snapshot in {old} is a stratified")
    assert "--sample 5" in err and "--members all" in err
    assert service.plan()["used"] == used  # nothing sent
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(("seed", "drawn"), [([], 4), (["--sample-seed", "9"], 9)])
def test_export_since_a_sampled_folder_draws_its_sample_as_the_folder_s_was(
    service: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    seed: list[str],
    drawn: int,
) -> None:
    """The command line cannot name strata, join bands or allocation: ``--sample N`` of a
    sampled folder takes the folder's, and its seed unless ``--sample-seed`` gives one."""
    old, new = tmp_path / "old", tmp_path / "new"
    design = Sample(3, seed=4, by=("status", "joined"), bands=2, allocation="tenure")
    with make_client(service) as client:
        ProgramSnapshot.pull(client, progress=False, sample=design).to_csv(old)
    args = ["export", "--out", str(new), "--since", str(old), "--sample", "4", *seed]
    assert main(args) == 0
    refreshed = read_snapshot(new).sample
    assert refreshed is not None
    assert refreshed.drawn_by == replace(design, n=4, seed=drawn)
