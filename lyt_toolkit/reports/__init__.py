"""Reports: frames as CSV or Parquet files with a manifest (and back), the findings CSV and
chart, and the economics report (CSVs, charts and one HTML page).

Reports work on frames, findings and their metadata; the snapshot and the
audit build on them (``ProgramSnapshot.to_csv``, ``lyt_toolkit.read_snapshot``,
``lyt audit``). The chart (``save_chart``) loads matplotlib, so it is imported
when first used, not with this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .audit_report import (
    ESTIMATES_CSV,
    FINDINGS_CSV,
    FINDINGS_PNG,
    FINDINGS_SCHEMA,
    read_findings,
    write_findings,
    write_reports,
)
from .economics_report import ECONOMICS_FORMAT, ECONOMICS_HTML, write_economics_report
from .edited_csv import read_edited_frames
from .provenance import ProvenanceError
from .snapshot_csv import (
    FORMAT,
    MANIFEST,
    SnapshotFileError,
    SnapshotFiles,
    SnapshotFrames,
    read_frames,
    read_manifest,
    write_snapshot,
)
from .snapshot_parquet import PARQUET_FORMAT, read_parquet_frames, write_parquet_snapshot

__all__ = [
    "ECONOMICS_FORMAT",
    "ECONOMICS_HTML",
    "ESTIMATES_CSV",
    "FINDINGS_CSV",
    "FINDINGS_PNG",
    "FINDINGS_SCHEMA",
    "FORMAT",
    "MANIFEST",
    "PARQUET_FORMAT",
    "ProvenanceError",
    "SnapshotFileError",
    "SnapshotFiles",
    "SnapshotFrames",
    "read_edited_frames",
    "read_findings",
    "read_frames",
    "read_manifest",
    "read_parquet_frames",
    "save_chart",
    "write_economics_report",
    "write_findings",
    "write_parquet_snapshot",
    "write_reports",
    "write_snapshot",
]

if TYPE_CHECKING:
    from .chart import save_chart


def __getattr__(name: str) -> Any:
    """``save_chart`` on first use: it brings matplotlib, which nothing else here needs."""
    if name == "save_chart":
        from .chart import save_chart

        return save_chart
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
