"""An export edited in a spreadsheet, over real HTTP: the folder is read without its checksums,
values re-spelled by the spreadsheet are the same values, the edits become the same plan
as in pandas, and ``lyt plan`` prints it with its exit code; a cell that is not a value
of its column, a removed or a renamed column is refused naming file, row and column."""

from __future__ import annotations

import copy
import csv
import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import actions, read_snapshot
from lyt_toolkit.actions import ChangePlan, EditError
from lyt_toolkit.actions.change_plan import as_saved
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.reports import SnapshotFileError, read_edited_frames
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import TIERS, first_id, pull

Rows = list[dict[str, str]]


@pytest.fixture(scope="module")
def _exported_once(
    _fresh_pulled: ProgramSnapshot, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The demo as pulled over HTTP, exported: once a module."""
    folder = tmp_path_factory.mktemp("exported") / "base"
    _fresh_pulled.to_csv(folder)
    return folder


@pytest.fixture
def exported(
    _fresh_pulled: ProgramSnapshot, _exported_once: Path, tmp_path: Path
) -> tuple[ProgramSnapshot, Path, Path]:
    """The demo pulled over HTTP (a copy of its own) and exported as ``base``; ``edited``, a
    copy to change (both copies of the module's export)."""
    for folder in ("base", "edited"):
        shutil.copytree(_exported_once, tmp_path / folder)
    return copy.deepcopy(_fresh_pulled), tmp_path / "base", tmp_path / "edited"


def _resave(path: Path, change: Callable[[Rows], Rows] = lambda rows: rows) -> None:
    """Re-save a CSV file as a spreadsheet would, LF line ends, after ``change`` of its rows."""
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    header = list(rows[0]) if rows else next(csv.reader(path.open(encoding="utf-8")))
    rows = change(rows)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _respell(snapshot: ProgramSnapshot, folder: Path) -> None:
    """Every CSV file of ``folder`` re-saved with the spellings of a spreadsheet."""
    for kind, frame in snapshot.frames().items():
        whole = {str(c) for c, dtype in frame.dtypes.items() if dtype == "Int64"}
        _resave(folder / f"{kind}.csv", partial(_spreadsheet_spelling, whole=whole))


def _spreadsheet_spelling(rows: Rows, whole: set[str]) -> Rows:
    """Same values, other spellings: ``1.0`` for ``1`` in the ``whole`` number columns,
    ``1500`` for ``1500.0``, TRUE for True, instants with a space, no microseconds, no ``Z``."""
    out = []
    for row in rows:
        spelled = {}
        for column, value in row.items():
            if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000000Z", value):
                value = value.replace("T", " ")[:19]
            elif re.fullmatch(r"\d+\.0", value):
                value = value[:-2]
            elif re.fullmatch(r"\d+", value) and column in whole:
                value = f"{value}.0"
            elif value in ("True", "False"):
                value = value.upper()
            spelled[column] = value
        out.append(spelled)
    return out


def _set(rows: Rows, key: str, column: str, value: str) -> Rows:
    """``rows`` with ``column`` of the row whose id is ``key`` set to ``value``."""
    return [{**r, column: value} if r["id"] == key else r for r in rows]


def test_a_spreadsheet_round_trip_plans_the_edits_made_in_the_sheet(
    client: LoyaltyClient,
    exported: tuple[ProgramSnapshot, Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    snapshot, base, edited = exported
    reward = first_id(snapshot.rewards, status="ACTIVE")
    card = str(snapshot.card_definitions["id"].iloc[0])
    bonus = {"name": "Bonus 05", "type": "POINTS", "points_value": "50", "card_definition_id": card}
    blank: dict[str, str] = {}

    _resave(edited / "rewards.csv", lambda rows: _set(rows, reward, "status", "DRAFT"))
    _resave(edited / "benefits.csv", lambda rows: [*rows, blank, bonus])
    _resave(edited / "tier_structures.csv", lambda rows: [r for r in rows if r["id"] != TIERS])
    _respell(snapshot, edited)
    assert b"\r\n" not in (edited / "rewards.csv").read_bytes()

    # The same edits in pandas: the plan from the sheet must be the very same.
    edit = actions.edit(snapshot)
    edit.rewards.loc[edit.rewards["id"] == reward, "status"] = "DRAFT"
    edit.benefits = pd.concat([edit.benefits, pd.DataFrame([bonus])], ignore_index=True)
    edit.benefits["points_value"] = pd.to_numeric(edit.benefits["points_value"]).astype("Int64")
    edit.tier_structures = edit.tier_structures[edit.tier_structures["id"] != TIERS]
    expected = edit.plan()

    plan = ChangePlan.from_frames(read_snapshot(base), read_edited_frames(edited))
    assert plan.changes[["kind", "key", "action", "call"]].astype(str).values.tolist() == [
        ["benefits", "Bonus 05", "create", "create_benefit"],
        ["rewards", reward, "change", "move_reward_to_draft"],
        ["tier_structures", TIERS, "delete", "delete_tier_structure"],
    ]
    assert plan.unsupported.empty
    assert str(plan) == str(expected)

    assert main(["plan", "--base", str(base), "--edited", str(edited)]) == 2
    shown, calls = capsys.readouterr().out.rsplit("\n", 2)[:2]
    assert shown == f"{as_saved(plan)}"  # its re-read counted
    assert calls.startswith(f"Calls: lyt apply sends these {as_saved(plan).cost().needed}; ")

    # Saved by lyt plan --out, then applied from the file: the re-read finds the base intact.
    plan_file = tmp_path / "plan.json"
    assert (
        main(["plan", "--base", str(base), "--edited", str(edited), "--out", str(plan_file)]) == 2
    )
    sha256 = hashlib.sha256(plan_file.read_bytes()).hexdigest()  # the reviewer's fingerprint
    assert f"lyt apply {plan_file} --sha256 {sha256}\n" in capsys.readouterr().out
    saved = ChangePlan.load(plan_file)
    saved.apply(
        client, allow_destroy=True, log=tmp_path / "plan.jsonl", progress=False, sha256=sha256
    )
    after = pull(client)
    assert after.rewards.set_index("id").loc[reward, "status"] == "DRAFT"
    assert after.tier_structures.set_index("id").loc[TIERS, "status"] == "DELETED"
    assert after.benefits.set_index("name").loc["Bonus 05", "points_value"] == 50


def test_lyt_plan_saves_its_out_file_though_its_reader_went_away(
    exported: tuple[ProgramSnapshot, Path, Path], tmp_path: Path
) -> None:
    """``lyt plan ... --out F | head -1``: the plan, longer than the output's buffer, is
    saved before it is printed to a reader that is gone."""
    snapshot, base, edited = exported
    created = [{**_new_benefit(snapshot, "5"), "name": f"Piped {i:03d}"} for i in range(400)]
    _resave(edited / "benefits.csv", lambda rows: [*rows, *created])
    plan_file = tmp_path / "plan.json"
    args = [
        "plan",
        "--offline",
        "--base",
        str(base),
        "--edited",
        str(edited),
        "--out",
        str(plan_file),
    ]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone, as head -1 once it has its line
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "lyt_toolkit.cli", *args],
            cwd=tmp_path,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr
    assert len(ChangePlan.load(plan_file)) == 400


def test_lyt_plan_cuts_a_long_plan_as_print_does_naming_its_out_file(
    exported: tuple[ProgramSnapshot, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """400 benefits to create print as ``print(plan)`` does, the first and last 5, the line
    between counting the rest and saying where they all are: the ``--out`` file, or that
    ``--out`` saves them."""
    snapshot, base, edited = exported
    created = [{**_new_benefit(snapshot, "5"), "name": f"Long {i:03d}"} for i in range(400)]
    _resave(edited / "benefits.csv", lambda rows: [*rows, *created])
    plan_file = tmp_path / "plan.json"
    words = ["plan", "--offline", "--base", str(base), "--edited", str(edited)]
    assert main([*words, "--out", str(plan_file)]) == 2
    saved = capsys.readouterr().out.splitlines()
    assert main(words) == 2
    unsaved = capsys.readouterr().out.splitlines()
    *every, file_line = ChangePlan.load(plan_file).to_string().splitlines()
    assert len(every) == 401 and file_line.startswith("File: ")  # a line a change
    more = "... 390 more changes (all 400: {}) ..."
    assert saved[:12] == [*every[:6], more.format(f"in {plan_file.resolve()}"), *every[-5:]]
    done = f"Plan saved to {plan_file.resolve()} ({file_line[-72:-1]}); apply exactly it with:"
    assert saved[12].startswith("Calls: lyt apply sends these ")
    assert saved[13:15] == ["", done]
    assert unsaved == [
        *every[:6],
        more.format("--out PLAN_FILE saves them"),
        *every[-5:],
        saved[12],
    ]


def test_an_untouched_or_resaved_copy_plans_no_changes_and_lyt_plan_exits_0(
    exported: tuple[ProgramSnapshot, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot, base, edited = exported
    assert main(["plan", "--base", str(base), "--edited", str(edited)]) == 0
    _respell(snapshot, edited)
    assert main(["plan", "--base", str(base), "--edited", str(edited)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [str(ChangePlan.from_frames(snapshot, snapshot))] * 2
    for kind, frame in read_edited_frames(edited).items():
        assert frame.dtypes.to_dict() == getattr(snapshot, kind).dtypes.to_dict(), kind


def test_escaped_text_is_read_back_unescaped(
    exported: tuple[ProgramSnapshot, Path, Path],
) -> None:
    snapshot, _, edited = exported
    reward = str(snapshot.rewards["id"].iloc[0])
    _resave(edited / "rewards.csv", lambda rows: _set(rows, reward, "name", "'=SUM(1)"))
    plan = ChangePlan.from_frames(snapshot, read_edited_frames(edited))
    got = plan.unsupported[["key", "column", "after"]].astype(str).values.tolist()
    assert got == [[reward, "name", "=SUM(1)"]]


@pytest.mark.parametrize(
    ("column", "value", "what"),
    [
        ("cost_count", "1.5", "a whole number"),
        ("digital_gift_voucher_balance", "lots", "a number"),
        ("created_at", "15/01/2026", "an ISO 8601 instant"),
        ("status", "PAUSED", "one of"),
    ],
)
def test_a_cell_that_is_not_a_value_of_its_column_is_refused_naming_file_row_and_column(
    exported: tuple[ProgramSnapshot, Path, Path],
    capsys: pytest.CaptureFixture[str],
    column: str,
    value: str,
    what: str,
) -> None:
    snapshot, base, edited = exported
    row = 3
    reward = str(snapshot.rewards["id"].iloc[row - 1])  # row 1 is the first below the header
    _resave(edited / "rewards.csv", lambda rows: _set(rows, reward, column, value))
    path = edited / "rewards.csv"
    message = f"{path}: row {row}, column {column!r}: {value!r} is not {what}"
    with pytest.raises(SnapshotFileError) as refused:
        read_edited_frames(edited)
    assert str(refused.value).startswith(message)

    assert main(["plan", "--base", str(base), "--edited", str(edited)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"lyt plan: --edited {edited}: {message}") and err.count("\n") == 1


@pytest.mark.parametrize("spoiled", ["base", "edited"])
def test_lyt_plan_names_the_option_of_the_folder_it_cannot_read(
    exported: tuple[ProgramSnapshot, Path, Path], capsys: pytest.CaptureFixture[str], spoiled: str
) -> None:
    """A folder that is no export, given as --base or as --edited (both are refused alike, so
    the path alone does not say which option to put right), is named by its option, as
    lyt rehearse and lyt verify name --base."""
    _, base, edited = exported
    folders = {"base": base, "edited": edited}
    (folders[spoiled] / "manifest.json").unlink()
    assert main(["plan", "--base", str(base), "--edited", str(edited), "--offline"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"lyt plan: --{spoiled} {folders[spoiled]}: "), err
    assert "manifest.json is missing" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("rename", "message"),
    [
        ({"status": None}, "column 'status' was removed"),
        ({"status": "Status"}, "column 'Status' is not in the export's schema and 'status' is"),
        ({"extra": "notes"}, "column 'notes' is not in the export's schema"),
        (  # another project's token pasted as a header: masked whole, never cut short
            {"extra": "Bearer eyJhbGciOiJIUzI1NiJ9.pasted-as-a-header.0123456789abcdef"},
            "column 'Bearer ***' is not in the export's schema",
        ),
    ],
)
def test_a_removed_renamed_or_added_column_is_refused_naming_it(
    exported: tuple[ProgramSnapshot, Path, Path],
    capsys: pytest.CaptureFixture[str],
    rename: dict[str, str | None],
    message: str,
) -> None:
    _, base, edited = exported
    path = edited / "benefits.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    [(old, new)] = rename.items()
    if old == "extra":
        frame[new] = "x"
    elif new is None:
        frame = frame.drop(columns=[old])
    else:
        frame = frame.rename(columns={old: new})
    frame.to_csv(path, index=False)
    with pytest.raises(SnapshotFileError, match=re.escape(f"{path}: header row, {message}")):
        read_edited_frames(edited)
    assert main(["plan", "--base", str(base), "--edited", str(edited)]) == 1
    assert message in capsys.readouterr().err


def test_read_snapshot_of_an_edited_export_says_how_to_plan_from_it(
    exported: tuple[ProgramSnapshot, Path, Path],
) -> None:
    snapshot, _, edited = exported
    reward = str(snapshot.rewards["id"].iloc[0])
    _resave(edited / "rewards.csv", lambda rows: _set(rows, reward, "status", "DRAFT"))
    with pytest.raises(SnapshotFileError) as refused:
        read_snapshot(edited)
    text = str(refused.value)
    assert f"{edited / 'rewards.csv'} was changed after export" in text
    assert f"read_edited_frames({str(edited)!r})" in text
    assert text.endswith(f"lyt plan --base SNAPSHOT_DIR --edited {edited}")
    assert re.search(r"sha256 [0-9a-f]{12}\.\.\. is not the manifest's [0-9a-f]{12}\.\.\.;", text)
    assert "\n" not in text


def test_lyt_plan_ends_its_summary_with_the_live_budget_when_a_service_is_configured(
    exported: tuple[ProgramSnapshot, Path, Path],
    fresh: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, base, edited = exported
    _resave(edited / "tier_structures.csv", lambda rows: [r for r in rows if r["id"] != TIERS])
    args = ["plan", "--base", str(base), "--edited", str(edited)]
    made = (
        "Plan: 0 to create, 0 to change, 1 to delete; 0 changes the service cannot make;"
        " 2 calls (1 re-read, then 1 write)"
    )
    fresh.set_plan("100/hour")

    assert main(args) == 2  # no service configured: nothing sent, no budget part
    assert capsys.readouterr().out.splitlines()[0] == made
    configure_lyt(fresh)
    used = fresh.plan()["used"]
    assert main([*args, "--offline"]) == 2
    assert capsys.readouterr().out.splitlines()[0] == made
    assert fresh.plan()["used"] == used

    assert main(args) == 2
    first = capsys.readouterr().out.splitlines()[0]
    assert fresh.plan()["used"] - used == 1  # the token request: its answer tells the budget
    left = 100 - fresh.plan()["used"]
    assert first == f"{made}, {left} left in this window ({left // 2} at the plan's share, 0.5)"

    fresh.set_plan("unlimited")  # answers without limit headers
    assert main(args) == 2
    assert capsys.readouterr().out.splitlines()[0] == f"{made}, budget unknown"

    fresh.set_plan("100/hour")
    monkeypatch.setenv("LYT_APP_TOKEN", "not-the-token")
    assert main(args) == 2  # the plan stands; the refusal still carried the budget
    captured = capsys.readouterr()
    left = 100 - fresh.plan()["used"]
    assert (
        captured.out.splitlines()[0]
        == f"{made}, {left} left in this window ({left // 2} at the plan's share, 0.5)"
    )
    assert captured.err.startswith("lyt plan: the read for the budget failed: ")
    assert "not-the-token" not in captured.err


def _new_benefit(snapshot: ProgramSnapshot, points: str) -> dict[str, str]:
    card = str(snapshot.card_definitions["id"].iloc[0])
    return {"name": "Exact", "type": "POINTS", "points_value": points, "card_definition_id": card}


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("1234567890123456789", 1234567890123456789),
        ("9223372036854775807", 2**63 - 1),
        ("\uff11\uff12", 12),  # full-width 12
        ("\u0661\u0662", 12),  # Arabic-Indic 12
        (" 1234567890123456789.0 ", 1234567890123456789),
    ],
)
def test_a_new_benefits_points_are_read_exactly_from_an_edited_export(
    exported: tuple[ProgramSnapshot, Path, Path],
    capsys: pytest.CaptureFixture[str],
    typed: str,
    value: int,
) -> None:
    snapshot, base, edited = exported
    _resave(edited / "benefits.csv", lambda rows: [*rows, _new_benefit(snapshot, typed)])
    frames = read_edited_frames(edited)
    assert frames["benefits"]["points_value"].iloc[-1] == value
    plan = ChangePlan.from_frames(read_snapshot(base), frames)
    assert plan.inputs["create_benefit"]["points_value"].tolist() == [value]

    assert main(["plan", "--base", str(base), "--edited", str(edited)]) == 2
    assert f'+ benefit "Exact" points {value} on ' in capsys.readouterr().out


@pytest.mark.parametrize("typed", ["9223372036854775808", "99999999999999999999", "-" + "9" * 20])
def test_points_beyond_64_bits_are_refused_naming_file_row_and_column(
    exported: tuple[ProgramSnapshot, Path, Path], capsys: pytest.CaptureFixture[str], typed: str
) -> None:
    snapshot, base, edited = exported
    _resave(edited / "benefits.csv", lambda rows: [*rows, _new_benefit(snapshot, typed)])
    row = len(snapshot.benefits) + 1
    assert main(["plan", "--base", str(base), "--edited", str(edited)]) == 1
    err = capsys.readouterr().err
    where = f"lyt plan: --edited {edited}: {edited / 'benefits.csv'}: row {row}, column"
    where += f" 'points_value': {typed!r} is"
    assert err.startswith(f"{where} beyond the signed 64-bit integer range"), err
    assert err.count("\n") == 1


def test_an_enumeration_value_the_export_escaped_is_read_back(
    exported: tuple[ProgramSnapshot, Path, Path], tmp_path: Path
) -> None:
    snapshot, _, _ = exported
    # pandas-stubs type the categorical as holding CategoricalDtype values, not its strings
    status: pd.Series = snapshot.rewards["status"].cat.add_categories(["=NEW"])
    status.iloc[0] = "=NEW"  # a value the service added, formula-like
    snapshot.rewards["status"] = status
    snapshot.to_csv(tmp_path / "escaped")
    assert "'=NEW" in (tmp_path / "escaped" / "rewards.csv").read_text(encoding="utf-8")
    assert read_edited_frames(tmp_path / "escaped")["rewards"]["status"].iloc[0] == "=NEW"


FOREIGN = "eyJhbGciOiJIUzI1NiJ9.pasted-into-an-edited-export.0123456789abcdef"
"""A bearer token no one configured here: masked whole wherever it is quoted."""
BEARER = f"Bearer {FOREIGN}"
LONG = "x" * 5000

EDITS: dict[str, tuple[str, list[str], str]] = {  # file, the values set, what is quoted
    "a token for an id": ("benefits", ["id", BEARER], "column 'id': 'Bearer ***' is not in"),
    "a long id": ("benefits", ["id", LONG], "column 'id': 'xxxx"),
    "a token id twice": ("benefits", ["id", BEARER, BEARER], "the key 'Bearer ***' repeats"),
    "a long id twice": ("benefits", ["id", LONG, LONG], "the key 'xxxx"),
    "a token for a name": ("rewards", ["name", BEARER], " -> Bearer ***: the service has no"),
    "a long name": ("rewards", ["name", LONG], "xxx...: the service has no call to change"),
}


@pytest.mark.parametrize("case", EDITS)
def test_a_value_of_an_edited_export_is_quoted_short_and_a_token_in_it_masked(
    client: LoyaltyClient, exported: tuple[ProgramSnapshot, Path, Path], case: str
) -> None:
    """An ``EditError`` quoting an edited file's ID, key or value (the plan's refusal, or
    its ``apply``'s for a change the service cannot make) cuts it short and masks a bearer
    token in it whole, through the Python API."""
    snapshot, base, edited = exported
    name, (column, *values), quoted = EDITS[case]
    ids = getattr(snapshot, name)["id"].astype(str).tolist()
    for key, value in zip(ids, values, strict=False):
        _resave(
            edited / f"{name}.csv",
            partial(_set, key=key, column=column, value=value),
        )
    frames = read_edited_frames(edited)
    with pytest.raises(EditError) as caught:  # from_frames', or apply's before any call
        ChangePlan.from_frames(read_snapshot(base), frames).apply(client, progress=False)
    said = str(caught.value)
    assert quoted in said and "\n" not in said, said
    assert len(said) < 500 and FOREIGN[:8] not in said, said
