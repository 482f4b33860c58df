"""The report folder of an audit: the snapshot CSVs, the findings CSV and the findings chart.

The findings CSV has a schema beside it (``audit_findings.schema.json``): the
file's row count, SHA-256 and every column's dtype, as a snapshot manifest
records them, so ``read_findings`` gives back the frame ``audit.run`` made
(severity as its ordered category, text as ``string``, NA where it was NA).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from .._collector import start_up
from .._deprecation import deprecation, warn
from .._version import __version__
from .._write import replacing
from .cells import ESCAPING
from .snapshot_csv import (
    ESCAPING_KEY,
    SnapshotFrames,
    column_schema,
    read_csv_frame,
    read_manifest,
    sha256_of,
    write_csv,
    write_snapshot,
)

__all__ = [
    "ESTIMATES_CSV",
    "FINDINGS_CSV",
    "FINDINGS_FORMAT",
    "FINDINGS_PNG",
    "FINDINGS_SCHEMA",
    "read_findings",
    "whole_estimates",
    "write_findings",
    "write_reports",
]

FINDINGS_CSV = "audit_findings.csv"
FINDINGS_PNG = "audit_findings.png"
FINDINGS_SCHEMA = "audit_findings.schema.json"
FINDINGS_FORMAT = "lyt-findings/1"
ESTIMATES_CSV = "audit_estimates.csv"
"""The summary of a sampled snapshot's audit, with each rule's estimate for the program
rounded to whole findings (written only then: a full snapshot's counts are the
program's)."""


_ESTIMATES = ("estimated", "ci_low", "ci_high")
"""A sample's summary's columns that estimate the program's count of findings."""

_SUMMARIES: list[Callable[[pd.DataFrame], pd.DataFrame]] = []


def whole_estimates(summary: pd.DataFrame) -> pd.DataFrame:
    """A findings summary as it is printed and written to ``audit_estimates.csv``: a
    sample's estimates and 95 % intervals rounded to whole findings (``Int64``), as its
    sentences and chart labels give them. ``audit.summary`` keeps them unrounded, as
    ``economics.estimates`` does, for a user to compute with."""
    shown = summary.copy()
    for column in _ESTIMATES:
        if column in shown.columns:
            shown[column] = shown[column].astype("Float64").round().astype("Int64")
    return shown


def use_summaries(summarise: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
    """Make ``summarise`` (``audit.summary``) what the deprecated three-argument form of
    ``write_reports`` charts (the audit package calls this; reports is below it)."""
    _SUMMARIES[:] = [summarise]


def write_reports(
    snapshot: SnapshotFrames,
    findings: pd.DataFrame,
    summary: pd.DataFrame | str | os.PathLike[str],
    out: str | Path | None = None,
) -> list[Path]:
    """Snapshot CSVs and manifest, the findings CSV and its schema, and the chart of
    ``summary``, in ``out``.

    ``summary`` is the findings summary (``lyt_toolkit.audit.summary(findings)``).
    Returns the written paths, sorted. For a sampled snapshot's findings (the summary has
    ``estimated``), ``audit_estimates.csv`` holds the summary with the program's estimates
    too, rounded to whole findings (``whole_estimates``). The findings CSV follows the snapshot's
    conventions (text a spreadsheet would run is escaped with a leading ``'``);
    every file is written to a temporary name and renamed into place.

    ``write_reports(snapshot, findings, out)``, the form of 0.1.0, is deprecated (a
    ``FutureWarning``; removed in 0.5.0): it charts ``audit.summary(findings)``.
    """
    with start_up():  # matplotlib loads only when a report is written
        from .chart import save_chart

    if out is None:
        if isinstance(summary, pd.DataFrame):
            raise TypeError("write_reports() missing 1 required argument: 'out'")
        warn(deprecation("lyt_toolkit.reports.write_reports(snapshot, findings, out)"))
        if not _SUMMARIES:
            raise TypeError(
                "write_reports(snapshot, findings, out) needs lyt_toolkit.audit imported: "
                "pass the summary, write_reports(snapshot, findings, audit.summary(findings), "
                "out)"
            )
        directory, counts = Path(summary), _SUMMARIES[0](findings)
    elif isinstance(summary, pd.DataFrame):
        directory, counts = Path(out), summary
    else:
        raise TypeError(
            f"write_reports(): summary must be a DataFrame (audit.summary(findings)), "
            f"not {type(summary).__name__}"
        )
    directory.mkdir(parents=True, exist_ok=True)
    written = write_snapshot(snapshot, directory)
    written += write_findings(findings, directory)
    if "estimated" in counts.columns:  # a sample's: the counts alone would read as the program's
        write_csv(whole_estimates(counts).reset_index(), directory / ESTIMATES_CSV)
        written.append(directory / ESTIMATES_CSV)
    with replacing(directory / FINDINGS_PNG) as tmp:
        save_chart(counts, tmp)
    return sorted({*written, directory / FINDINGS_PNG})


def write_findings(findings: pd.DataFrame, directory: str | Path) -> list[Path]:
    """The findings CSV and then its schema, in ``directory``; returns both paths."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    csv = out / FINDINGS_CSV
    write_csv(findings, csv)
    schema = {
        "format": FINDINGS_FORMAT,
        "generator": f"lyt_toolkit {__version__}",
        ESCAPING_KEY: ESCAPING,
        "findings": {
            "file": csv.name,
            "rows": len(findings),
            "sha256": sha256_of(csv),
            "columns": column_schema(findings),
        },
    }
    path = out / FINDINGS_SCHEMA
    with replacing(path) as tmp:
        tmp.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    return [csv, path]


def read_findings(directory: str | Path) -> pd.DataFrame:
    """The findings a report folder holds, with the dtypes they were written with.

    As in every report CSV, a missing value is an empty field, so empty text
    reads back as missing. The CSV's SHA-256, columns and row count are checked against its schema
    first; a missing schema or CSV, or one changed since, raises
    ``SnapshotFileError`` naming the file.
    """
    base = Path(directory)
    schema = read_manifest(base, formats=(FINDINGS_FORMAT,), file=FINDINGS_SCHEMA)
    return read_csv_frame(base, schema["findings"], escaped=True)
