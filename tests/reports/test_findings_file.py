"""The findings file: written with its schema, read back with the dtypes the audit made."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit import ProgramSnapshot, audit
from lyt_toolkit.audit.run import findings_frame
from lyt_toolkit.reports import (
    FINDINGS_CSV,
    FINDINGS_SCHEMA,
    SnapshotFileError,
    read_findings,
    save_chart,
    write_findings,
    write_reports,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def demo_audit(
    start_sandbox: Callable[..., AbstractContextManager[Any]], make_client: Callable[..., Any]
) -> Iterator[tuple[ProgramSnapshot, pd.DataFrame]]:
    """The demo program pulled over HTTP and its findings."""
    with start_sandbox() as sb, make_client(sb) as client:
        snapshot = ProgramSnapshot.pull(client, progress=False)
        yield snapshot, audit.run(snapshot)


def test_the_demo_audits_findings_come_back_equal_with_their_dtypes(
    demo_audit: tuple[ProgramSnapshot, pd.DataFrame], tmp_path: Path
) -> None:
    snapshot, findings = demo_audit
    assert len(findings) > 0 and findings["resource_name"].isna().any()
    write_reports(snapshot, findings, audit.summary(findings), tmp_path)
    back = read_findings(tmp_path)
    pd.testing.assert_frame_equal(back, findings)
    assert back["severity"].dtype == findings["severity"].dtype  # ordered, same categories
    assert str(back["message"].dtype) == "string"


def odd_findings() -> pd.DataFrame:
    return findings_frame(
        [
            {
                "rule": "rule-a",
                "severity": "error",
                "resource_type": "reward",
                "resource_id": "lrew_1",
                "resource_name": "=HYPERLINK(1)",
                "message": "'quoted, with a comma\r\nand a line break",
            },
            {
                "rule": "rule-b",
                "severity": "info",
                "resource_type": "benefit",
                "resource_id": "lben_1",
                "resource_name": None,
                "message": "-1 points",
            },
        ]
    )


def test_formula_text_is_escaped_in_the_file_and_exact_when_read(tmp_path: Path) -> None:
    findings = odd_findings()
    write_findings(findings, tmp_path)
    text = (tmp_path / FINDINGS_CSV).read_text(encoding="utf-8")
    assert "'=HYPERLINK(1)" in text and "''quoted" in text and "'-1 points" in text
    pd.testing.assert_frame_equal(read_findings(tmp_path), findings)


def test_no_findings_come_back_as_an_empty_typed_frame(tmp_path: Path) -> None:
    empty = findings_frame()
    write_findings(empty, tmp_path)
    pd.testing.assert_frame_equal(read_findings(tmp_path), empty)


def test_a_missing_schema_is_named(tmp_path: Path) -> None:
    write_findings(odd_findings(), tmp_path)
    (tmp_path / FINDINGS_SCHEMA).unlink()
    with pytest.raises(SnapshotFileError, match=FINDINGS_SCHEMA.replace(".", r"\.")):
        read_findings(tmp_path)


def test_a_missing_csv_is_named(tmp_path: Path) -> None:
    write_findings(odd_findings(), tmp_path)
    (tmp_path / FINDINGS_CSV).unlink()
    with pytest.raises(SnapshotFileError, match=r"audit_findings\.csv is listed .* missing"):
        read_findings(tmp_path)


def test_a_csv_changed_after_writing_is_refused(tmp_path: Path) -> None:
    write_findings(odd_findings(), tmp_path)
    path = tmp_path / FINDINGS_CSV
    path.write_text(path.read_text(encoding="utf-8").replace("rule-b", "rule-c"), "utf-8")
    with pytest.raises(SnapshotFileError, match=r"audit_findings\.csv was changed"):
        read_findings(tmp_path)


def test_a_schema_whose_columns_differ_from_the_header_is_refused(tmp_path: Path) -> None:
    write_findings(odd_findings(), tmp_path)
    path = tmp_path / FINDINGS_SCHEMA
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["findings"]["columns"][0]["name"] = "rule_id"
    path.write_text(json.dumps(schema), encoding="utf-8")
    with pytest.raises(SnapshotFileError) as caught:
        read_findings(tmp_path)
    assert str(caught.value).endswith(
        "audit_findings.csv: columns differ from those listed for it from column 1:"
        " 'rule', not 'rule_id'"
    )


@pytest.mark.parametrize(
    ("name", "quoted"),
    [
        ("Bearer eyJhbGciOiJIUzI1NiJ9.pasted-into-a-schema.0123456789abcdef", "'Bearer ***'"),
        ("x" * 5000, "'xxx"),
    ],
)
def test_a_column_name_the_schema_gives_is_quoted_short_and_a_token_in_it_masked(
    tmp_path: Path, name: str, quoted: str
) -> None:
    write_findings(odd_findings(), tmp_path)
    path = tmp_path / FINDINGS_SCHEMA
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["findings"]["columns"][0]["name"] = name
    path.write_text(json.dumps(schema), encoding="utf-8")
    with pytest.raises(SnapshotFileError) as caught:
        read_findings(tmp_path)
    said = str(caught.value).split("audit_findings.csv: ", 1)[1]
    assert said.startswith(
        f"columns differ from those listed for it from column 1: 'rule', not {quoted}"
    )
    assert len(said) < 200 and "eyJhbGci" not in said, said


def test_a_snapshot_manifest_is_not_a_findings_schema(tmp_path: Path) -> None:
    write_findings(odd_findings(), tmp_path)
    (tmp_path / FINDINGS_SCHEMA).write_text('{"format": "lyt-snapshot/1"}', encoding="utf-8")
    with pytest.raises(SnapshotFileError, match="format 'lyt-snapshot/1' is not"):
        read_findings(tmp_path)


def test_save_chart_writes_a_png(
    demo_audit: tuple[ProgramSnapshot, pd.DataFrame], tmp_path: Path
) -> None:
    _, findings = demo_audit
    path = save_chart(audit.summary(findings), tmp_path / "chart.png")
    assert path.read_bytes().startswith(PNG_MAGIC)


def test_the_reports_package_leaves_matplotlib_unloaded_until_a_chart_is_drawn() -> None:
    code = (
        "import sys, lyt_toolkit.reports as r\n"
        "print('matplotlib' in sys.modules)\n"
        "r.save_chart\n"
        "print('matplotlib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]
