"""The report folder of an audit: the snapshot CSVs, the findings CSV and the findings chart."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .snapshot_csv import SnapshotFrames, write_snapshot

__all__ = ["FINDINGS_CSV", "FINDINGS_PNG", "write_reports"]

FINDINGS_CSV = "audit_findings.csv"
FINDINGS_PNG = "audit_findings.png"


def write_reports(
    snapshot: SnapshotFrames, findings: pd.DataFrame, summary: pd.DataFrame, out: Path
) -> list[Path]:
    """Snapshot CSVs and manifest, the findings CSV and the chart of ``summary``, in ``out``.

    ``summary`` is the findings summary (``lyt_toolkit.audit.summary(findings)``).
    Returns the written paths, sorted.
    """
    from .chart import save_chart  # matplotlib loads only when a report is written

    out.mkdir(parents=True, exist_ok=True)
    written = write_snapshot(snapshot, out)
    findings.to_csv(out / FINDINGS_CSV, index=False)
    save_chart(summary, out / FINDINGS_PNG)
    return sorted({*written, out / FINDINGS_CSV, out / FINDINGS_PNG})
