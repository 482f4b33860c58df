"""Reports safe in spreadsheets: formulas neutralised, line breaks quoted, exact round trip."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lyt_toolkit import ProgramSnapshot, read_snapshot
from lyt_toolkit.frames import SCHEMAS, benefits_frame
from lyt_toolkit.reports import FINDINGS_CSV, MANIFEST, write_reports
from lyt_toolkit.reports.cells import SMALL

from .helpers import BENEFIT

PULLED_AT = "2026-01-15T12:00:00Z"
SAMPLE = dict(BENEFIT, name="placeholder")


def snapshot_named(*names: str) -> ProgramSnapshot:
    """A snapshot whose benefits carry ``names`` (one benefit per name)."""
    benefits = benefits_frame([dict(SAMPLE, id=f"lben_{i:04x}") for i in range(len(names))])
    benefits["name"] = pd.array(list(names), dtype="str")
    return ProgramSnapshot.from_frames({"benefits": benefits}, pulled_at=PULLED_AT)


def cells(path: Path, column: str) -> list[str]:
    """The raw cells of ``column`` as a spreadsheet would load them (nothing undone)."""
    with path.open(newline="", encoding="utf-8") as fh:
        return [row[column] for row in csv.DictReader(fh)]


def round_trip(snapshot: ProgramSnapshot, directory: Path) -> ProgramSnapshot:
    snapshot.to_csv(directory)
    return read_snapshot(directory)


@pytest.mark.parametrize("first", ["=", "+", "-", "@", "\t", "\r"])
def test_text_a_spreadsheet_would_run_gets_a_leading_quote(first: str, tmp_path: Path) -> None:
    snapshot_named(f"{first}HYPERLINK(1)").to_csv(tmp_path)
    assert cells(tmp_path / "benefits.csv", "name") == [f"'{first}HYPERLINK(1)"]


def test_text_already_beginning_with_a_quote_gets_another(tmp_path: Path) -> None:
    snapshot_named("'quoted").to_csv(tmp_path)
    assert cells(tmp_path / "benefits.csv", "name") == ["''quoted"]


def test_plain_text_is_written_as_it_is(tmp_path: Path) -> None:
    snapshot_named("Spring welcome").to_csv(tmp_path)
    assert cells(tmp_path / "benefits.csv", "name") == ["Spring welcome"]


def test_the_manifest_records_the_escaping(tmp_path: Path) -> None:
    snapshot_named("=1").to_csv(tmp_path)
    manifest = json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["text_escaping"]["prefix"] == "'"


@pytest.mark.parametrize(
    "name", ["=SUM(1)", "+cmd|' /C calc'!A0", "-2", "@SUM(1)", "'", "''x", "\tx", "\rx"]
)
def test_escaped_text_reads_back_unchanged(name: str, tmp_path: Path) -> None:
    back = round_trip(snapshot_named(name, "plain"), tmp_path)
    assert back.benefits["name"].tolist() == [name, "plain"]


@pytest.mark.parametrize("name", ["a\rb", "a\nb", "a\r\nb", "end\r", "\r\n", 'q"\r"'])
def test_a_line_break_of_any_kind_round_trips(name: str, tmp_path: Path) -> None:
    back = round_trip(snapshot_named(name), tmp_path)
    assert back.benefits["name"].tolist() == [name]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(names=st.lists(st.text(min_size=1), min_size=1, max_size=5))
def test_any_text_round_trips_with_equal_frames(names: list[str], tmp_path: Path) -> None:
    snapshot = snapshot_named(*names)
    back = round_trip(snapshot, tmp_path)
    pd.testing.assert_frame_equal(back.benefits, snapshot.benefits)


@pytest.mark.parametrize("count", [4, SMALL + 4])  # read in Python up to SMALL rows, else pandas
def test_short_and_long_columns_are_escaped_and_restored_alike(count: int, tmp_path: Path) -> None:
    names = [["=", "a", "-", "'"][i % 4] + f"x{i}" for i in range(count)]
    snapshot = snapshot_named(*names)
    back = round_trip(snapshot, tmp_path)
    expected = [f"'{n}" if n[0] in "=-'" else n for n in names]
    assert cells(tmp_path / "benefits.csv", "name") == expected
    pd.testing.assert_frame_equal(back.benefits, snapshot.benefits)


def test_a_new_category_value_is_escaped_and_restored(tmp_path: Path) -> None:
    benefits = benefits_frame([SAMPLE])
    benefits["status"] = benefits["status"].cat.add_categories(["=EVIL"])
    benefits.loc[0, "status"] = "=EVIL"
    snapshot = ProgramSnapshot.from_frames({"benefits": benefits}, pulled_at=PULLED_AT)
    back = round_trip(snapshot, tmp_path)
    assert cells(tmp_path / "benefits.csv", "status") == ["'=EVIL"]
    pd.testing.assert_frame_equal(back.benefits, benefits)


def test_dtypes_survive_the_escaping(tmp_path: Path) -> None:
    back = round_trip(snapshot_named("=1", "@2"), tmp_path)
    assert back.benefits.dtypes.to_dict() == SCHEMAS["benefits"].dtypes


def test_a_snapshot_written_before_escaping_reads_as_it_is(tmp_path: Path) -> None:
    snapshot_named("'kept").to_csv(tmp_path)
    manifest_path = tmp_path / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    del manifest["text_escaping"]
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    assert read_snapshot(tmp_path).benefits["name"].tolist() == ["''kept"]


def test_a_symlink_at_a_target_path_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "benefits.csv").symlink_to(victim)
    snapshot_named("x").to_csv(out)
    assert victim.read_text(encoding="utf-8") == "untouched"
    assert not (out / "benefits.csv").is_symlink()


def test_a_symlinked_manifest_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("{}", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).symlink_to(victim)
    snapshot_named("x").to_csv(out)
    assert victim.read_text(encoding="utf-8") == "{}"


def test_no_temporary_file_is_left_behind(tmp_path: Path) -> None:
    written = snapshot_named("x").to_csv(tmp_path)
    assert sorted(tmp_path.iterdir()) == sorted(written)


def test_the_findings_csv_is_escaped(tmp_path: Path) -> None:
    findings = pd.DataFrame(
        {"rule": ["r"], "severity": ["error"], "resource_name": ["=HYPERLINK(1)"]}
    )
    summary = pd.DataFrame(
        {"error": [1, 1], "warning": [0, 0], "info": [0, 0], "total": [1, 1]}, index=["r", "total"]
    )
    write_reports(snapshot_named("x"), findings, summary, tmp_path)
    assert cells(tmp_path / FINDINGS_CSV, "resource_name") == ["'=HYPERLINK(1)"]
