"""The audit report folder and chart, written from frames, findings and a summary alone."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.frames import FRAME_NAMES
from lyt_toolkit.reports import FINDINGS_CSV, FINDINGS_PNG, write_reports
from lyt_toolkit.reports.chart import plot_findings, save_chart

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SEVERITIES = ["error", "warning", "info"]


def summary_of(counts: dict[str, list[int]]) -> pd.DataFrame:
    """A findings summary: one row per rule and a ``total`` row, severities plus ``total``."""
    table = pd.DataFrame.from_dict(counts, orient="index", columns=SEVERITIES)
    table["total"] = table.sum(axis=1)
    table.loc["total"] = table.sum(axis=0)
    return table


FINDINGS = pd.DataFrame(
    {
        "rule": ["rule-a", "rule-a", "rule-b"],
        "severity": ["error", "warning", "info"],
        "resource_type": ["reward"] * 3,
        "resource_id": ["lrew_1", "lrew_2", "lrew_3"],
        "resource_name": ["One", None, "Three"],
        "message": ["m1", "m2", "m3"],
    }
)
SUMMARY = summary_of({"rule-a": [1, 1, 0], "rule-b": [0, 0, 1], "rule-c": [0, 0, 0]})


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, list[Path]]:
    snapshot = ProgramSnapshot.from_frames({}, source="http://example.test", pulled_at="2026-01-15")
    return tmp_path, write_reports(snapshot, FINDINGS, SUMMARY, tmp_path / "out")


def test_write_reports_writes_every_frame(written: tuple[Path, list[Path]]) -> None:
    _, paths = written
    assert {f"{name}.csv" for name in FRAME_NAMES} <= {p.name for p in paths}


def test_write_reports_writes_the_findings_csv(written: tuple[Path, list[Path]]) -> None:
    tmp_path, _ = written
    back = pd.read_csv(tmp_path / "out" / FINDINGS_CSV)
    assert list(back["resource_id"]) == ["lrew_1", "lrew_2", "lrew_3"]


def test_write_reports_writes_the_chart(written: tuple[Path, list[Path]]) -> None:
    tmp_path, _ = written
    assert (tmp_path / "out" / FINDINGS_PNG).read_bytes().startswith(PNG_MAGIC)


def test_write_reports_returns_sorted_paths(written: tuple[Path, list[Path]]) -> None:
    _, paths = written
    assert paths == sorted(paths)


def test_chart_leaves_out_rules_without_findings() -> None:
    ax = plot_findings(SUMMARY, ax=Figure().add_subplot())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["rule-b", "rule-a"]


def test_chart_title_counts_every_finding() -> None:
    ax = plot_findings(SUMMARY, ax=Figure().add_subplot())
    assert "(3 in all)" in ax.get_title()


def test_chart_stacks_one_bar_set_per_severity() -> None:
    ax = plot_findings(SUMMARY, ax=Figure().add_subplot())
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == SEVERITIES


def test_chart_without_findings_says_so() -> None:
    empty = summary_of({"rule-a": [0, 0, 0]})
    ax = plot_findings(empty, ax=Figure().add_subplot())
    assert [t.get_text() for t in ax.texts] == ["No findings"]


def test_save_chart_writes_a_png(tmp_path: Path) -> None:
    path = save_chart(SUMMARY, tmp_path / "chart.png")
    assert path.read_bytes().startswith(PNG_MAGIC)
