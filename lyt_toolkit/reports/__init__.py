"""Reports: frames as CSV or Parquet files with a manifest (and back), the findings CSV and chart.

Reports work on frames, findings and their metadata; the snapshot and the
audit build on them (``ProgramSnapshot.to_csv``, ``lyt_toolkit.read_snapshot``,
``lyt audit``). The chart (``reports.chart``) loads matplotlib, so it is imported
only where it is drawn.
"""

from .audit_report import FINDINGS_CSV, FINDINGS_PNG, write_reports
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
    "FINDINGS_CSV",
    "FINDINGS_PNG",
    "FORMAT",
    "MANIFEST",
    "PARQUET_FORMAT",
    "SnapshotFileError",
    "SnapshotFiles",
    "SnapshotFrames",
    "read_frames",
    "read_manifest",
    "read_parquet_frames",
    "write_parquet_snapshot",
    "write_reports",
    "write_snapshot",
]
