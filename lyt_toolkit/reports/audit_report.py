"""The report folder of an audit: the snapshot CSVs, the findings CSV and the findings chart."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ._write import replacing
from .snapshot_csv import SnapshotFrames, write_csv, write_snapshot

__all__ = ["FINDINGS_CSV", "FINDINGS_PNG", "write_reports"]

FINDINGS_CSV = "audit_findings.csv"
FINDINGS_PNG = "audit_findings.png"


def write_reports(
    snapshot: SnapshotFrames, findings: pd.DataFrame, summary: pd.DataFrame, out: Path
) -> list[Path]:
    """Snapshot CSVs and manifest, the findings CSV and the chart of ``summary``, in ``out``.

    ``summary`` is the findings summary (``lyt_toolkit.audit.summary(findings)``).
    Returns the written paths, sorted. The findings CSV follows the snapshot's
    conventions (text a spreadsheet would run is escaped with a leading ``'``);
    every file is written to a temporary name and renamed into place.
    """
    from .chart import save_chart  # matplotlib loads only when a report is written

    out.mkdir(parents=True, exist_ok=True)
    written = write_snapshot(snapshot, out)
    write_csv(findings, out / FINDINGS_CSV)
    with replacing(out / FINDINGS_PNG) as tmp:
        save_chart(summary, tmp)
    return sorted({*written, out / FINDINGS_CSV, out / FINDINGS_PNG})
