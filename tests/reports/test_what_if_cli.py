"""``lyt report economics --edited EDITED_DIR --base SNAPSHOT_DIR`` end to end: the demo
exported from the embedded sandbox, a copy edited cell by cell as a spreadsheet saves it,
the report's CSVs equal to ``whatif.what_if`` of the same folders in process, the page
holding the headline and both kinds of edit, and one line with exit 2 for each refusal."""

from __future__ import annotations

import csv
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from frame_reads import row_of

from lyt_toolkit.cli import main
from lyt_toolkit.reports import read_edited_frames, read_manifest
from lyt_toolkit.reports.snapshot_csv import read_csv_frame
from lyt_toolkit.reports.what_if_chart import WHAT_IF_CHARTS
from lyt_toolkit.reports.what_if_report import (
    WHAT_IF_FILES,
    WHAT_IF_FORMAT,
    WHAT_IF_HTML,
)
from lyt_toolkit.snapshot import read_snapshot
from lyt_toolkit.whatif import what_if

EXIT_CANNOT_RUN = 2
COMMAND = "lyt report economics"
SECRET = "a-token-never-printed-0123"


def _export(folder: Path, *extra: str) -> Path:
    assert main(["export", "--sandbox", "--out", str(folder), *extra]) == 0
    return folder


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """The demo exported whole (``full``) and as a sample of members (``sampled``), once."""
    root = tmp_path_factory.mktemp("exports")
    with pytest.MonkeyPatch.context() as env:
        env.chdir(root)  # no .env from the working copy
        env.setenv("LYT_PROGRESS", "off")
        yield {
            "full": _export(root / "full"),
            "sampled": _export(root / "sampled", "--sample", "4"),
        }


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no ``.env``, a token in the environment that no output may
    show, and no progress bars."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYT_PROGRESS", "off")
    monkeypatch.setenv("LYT_APP_TOKEN", SECRET)
    return tmp_path


def _copy(base: Path, work: Path) -> Path:
    edited = work / "edited"
    shutil.copytree(base, edited)
    return edited


def _edit(folder: Path, kind: str, column: str, value: str, **match: str) -> int:
    """Set ``column`` of the first row of ``kind``'s CSV matching ``match`` to ``value``,
    saved back as a spreadsheet saves it (LF line ends); returns the row's number (1: the
    first below the header)."""
    path = folder / f"{kind}.csv"
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    number = next(n for n, row in enumerate(rows) if all(row[k] == v for k, v in match.items()))
    rows[number][column] = value
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return number + 1


def _run(
    capsys: pytest.CaptureFixture[str], base: Path, edited: Path, out: Path, *extra: str
) -> tuple[int, str, str]:
    argv = ["report", "economics", "--base", str(base), "--edited", str(edited)]
    code = main([*argv, "--out", str(out), *extra])
    printed = capsys.readouterr()
    return code, printed.out, printed.err


def _written(out: Path) -> dict[str, pd.DataFrame]:
    """The report's CSV frames, typed as its manifest declares."""
    manifest = read_manifest(out, formats=(WHAT_IF_FORMAT,))
    return {
        stem: read_csv_frame(out, entry, escaped=True) for stem, entry in manifest["frames"].items()
    }


def _double_a_cost(base: Path, edited: Path) -> pd.Series:
    """Double the points of the base's first cost of an ACTIVE reward in ``edited``; that
    cost as the base has it."""
    costs = pd.read_csv(base / "reward_costs.csv", dtype=str)
    cost = costs[costs["reward_status"] == "ACTIVE"].iloc[0]
    _edit(edited, "reward_costs", "points", str(int(cost["points"]) * 2), cost_id=cost["cost_id"])
    return cost


def _same(written: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        written.reset_index(drop=True),
        expected.reset_index(drop=True).astype(written.dtypes.to_dict()),
    )


def test_both_kinds_of_edit_give_the_figures_of_what_if_and_a_page(
    exports: dict[str, Path], work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = exports["full"]
    edited = _copy(base, work)
    cost = _double_a_cost(base, edited)
    points = str(int(cost["points"]) * 2)
    rewards = pd.read_csv(base / "rewards.csv", dtype=str)
    reward = rewards[(rewards["status"] == "ACTIVE") & (rewards["id"] != cost["reward_id"])]
    reward_id = reward["id"].iloc[0]
    _edit(edited, "rewards", "status", "DRAFT", id=reward_id)
    out = work / "what-if"

    code, stdout, stderr = _run(capsys, base, edited, out)

    assert (code, stderr) == (0, "")
    expected = what_if(read_snapshot(base), read_edited_frames(edited))
    written = _written(out)
    assert set(written) == set(WHAT_IF_FILES.values())
    for name, frame in expected.frames().items():
        _same(written[WHAT_IF_FILES[name]], frame)
    edits = written["edits"].set_index("made_by")
    assert row_of(edits, "service")[["kind", "key", "column", "after", "call"]].tolist() == [
        "rewards", reward_id, "status", "DRAFT", "move_reward_to_draft",
    ]  # fmt: skip
    assert row_of(edits, "dashboard")[["kind", "column", "before", "after"]].tolist() == [
        "reward_costs", "points", cost["points"], points,
    ]  # fmt: skip
    headline = written["headline_change"].set_index("figure")
    assert headline.loc["liability_median", "change"] != 0  # the dearer reward moved it

    files = {p.name for p in out.iterdir()}
    charts = {f"{c}.png" for c in WHAT_IF_CHARTS}
    assert files == {f"{s}.csv" for s in WHAT_IF_FILES.values()} | charts | {
        "manifest.json",
        WHAT_IF_HTML,
    }
    for chart in charts:
        assert (out / chart).read_bytes().startswith(b"\x89PNG")
    page = (out / WHAT_IF_HTML).read_text(encoding="utf-8")
    assert "Headline figures" in page and "liability median" in page
    assert "Edits the service can make (1)" in page and "move_reward_to_draft" in page
    assert "Edits only the service's dashboard can make (1)" in page
    assert "no call to change a reward cost" in page
    assert str(expected) in stdout  # the what-if's short table
    assert f"What-if report written to {out.resolve()}/:" in stdout
    assert all(f"  {name}\n" in stdout for name in files)
    assert SECRET not in stdout + page + (out / "manifest.json").read_text(encoding="utf-8")


def test_an_unedited_copy_gives_a_report_with_no_edits(
    exports: dict[str, Path], work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = exports["full"]
    out = work / "what-if"
    code, stdout, _ = _run(capsys, base, _copy(base, work), out)
    assert code == 0
    written = _written(out)
    assert written["edits"].empty and written["findings"].empty
    assert written["mispricing_change"].empty
    assert (written["headline_change"]["change"].fillna(0) == 0).all()
    assert "No edits: the figures are the base snapshot's." in stdout
    assert "No edits" in (out / WHAT_IF_HTML).read_text(encoding="utf-8")


def test_a_base_pulled_without_some_kinds_says_why_a_figure_is_na(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Earlier the what-if of an export pulled with ``--kinds`` printed a figure counting a
    kind it did not pull as a bare n/a, on the terminal and the page, and its manifest said
    nothing of why."""
    kinds = "rewards,reward_costs,benefits,card_definitions,programs,members,cards"
    base = _export(work / "base", "--kinds", kinds)
    out = work / "what-if"
    code, stdout, _ = _run(capsys, base, _copy(base, work), out)
    assert code == 0
    why = "n/a (pending_buckets not pulled)"
    assert re.search(rf"^  liability median +n/a +n/a +{re.escape(why)}$", stdout, re.M), stdout
    page = (out / WHAT_IF_HTML).read_text(encoding="utf-8")
    assert page.count(f"<td>{why}</td>") == 5  # the pending points, the liability, unvalued
    manifest = read_manifest(out, formats=(WHAT_IF_FORMAT,))
    assert manifest["not_given"]["liability_median"] == "pending_buckets not pulled"


def test_a_sampled_base_shows_its_intervals_the_change_paired(
    exports: dict[str, Path], work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = exports["sampled"]
    edited = _copy(base, work)
    _double_a_cost(base, edited)
    out = work / "what-if"
    code, stdout, _ = _run(capsys, base, edited, out)
    assert code == 0
    headline = _written(out)["headline_change"].set_index("figure")
    row = headline.loc["liability_median"]
    assert row[["before_ci_low", "after_ci_low", "change_ci_low"]].notna().all()
    assert (
        row["change_ci_high"] - row["change_ci_low"] <= row["after_ci_high"] - row["after_ci_low"]
    )
    page = (out / WHAT_IF_HTML).read_text(encoding="utf-8")
    assert "95 % CI" in page and "95 % CI" in stdout
    assert "estimated from" in page and "members" in page
    assert read_manifest(out, formats=(WHAT_IF_FORMAT,))["sample"].startswith("estimated from")


@pytest.mark.parametrize(
    ("kind", "column", "value", "named"),
    [
        ("rewards", "status", "PAUSED", "rewards.csv: row {row}, column 'status': 'PAUSED' is"),
        ("rewards", "id", "lrew_not_in_the_base", "rewards row {row}, column 'id': 'lrew_not_in"),
    ],
)
def test_a_bad_cell_exits_2_naming_frame_row_and_column(
    exports: dict[str, Path],
    work: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    column: str,
    value: str,
    named: str,
) -> None:
    base = exports["full"]
    edited = _copy(base, work)
    rewards = pd.read_csv(base / "rewards.csv", dtype=str)
    row = _edit(edited, kind, column, value, id=rewards["id"].iloc[2])
    out = work / "what-if"
    code, stdout, stderr = _run(capsys, base, edited, out)
    assert code == EXIT_CANNOT_RUN and stdout == ""
    assert stderr.startswith(f"{COMMAND}: ") and stderr.count("\n") == 1
    assert named.format(row=row) in stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--edited", "{edited}"], "--edited needs --base SNAPSHOT_DIR"),
        (["--base", "{base}", "--edited", "{gone}"], "--edited {gone}: no such folder"),
        (["--base", "{gone}", "--edited", "{edited}"], "--base {gone}: no such folder"),
        (["--base", "{base}", "--edited", "{empty}"], "manifest.json is missing: not a snapshot"),
        (["--base", "{base}", "--edited", "{edited}", "--sandbox"], "--sandbox: not with --edited"),
        (["--base", "{base}", "--edited", "{edited}", "--sample", "3"], "--sample: not with"),
        (
            ["--base", "{base}", "--edited", "{edited}", "--redemption-rate", "history"],
            "--redemption-rate history: not with --edited",
        ),
        (["--base", "{base}", "--edited", "{edited}", "--out", "{file}"], "cannot write the what"),
    ],
)
def test_each_refusal_is_one_line_with_exit_2(
    exports: dict[str, Path],
    work: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    named: str,
) -> None:
    (work / "empty").mkdir()
    (work / "file").write_text("not a folder", encoding="utf-8")
    names = {
        "base": str(exports["full"]),
        "edited": str(_copy(exports["full"], work)),
        "gone": str(work / "gone"),
        "empty": str(work / "empty"),
        "file": str(work / "file"),
    }
    argv = [a.format(**names) for a in args]
    if "--out" not in argv:
        argv += ["--out", str(work / "what-if")]
    code = main(["report", "economics", *argv])
    stdout, stderr = capsys.readouterr()
    assert code == EXIT_CANNOT_RUN and stdout == ""
    assert stderr.startswith(f"{COMMAND}: ") and stderr.count("\n") == 1, stderr
    assert named.format(**names) in stderr
    assert "Traceback" not in stderr and SECRET not in stderr
