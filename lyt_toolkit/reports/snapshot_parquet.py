"""A snapshot's frames as Parquet files plus ``manifest.json``, and back with the same dtypes.

The folder mirrors the CSV export (``reports.snapshot_csv``): one
``<name>.parquet`` per frame and a manifest recording the format
(``lyt-snapshot-parquet/1``), source, pull time and, per frame, its file, row
count, SHA-256 and column dtypes. Parquet keeps the dtypes itself (pyarrow
writes the pandas metadata); reading still checks each hash and casts every
column to the dtype the manifest records, so the frames read equal the ones
written. Text needs no spreadsheet escaping here: nobody opens Parquet in a
spreadsheet as text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from .._version import __version__
from ..frames.registry import FRAME_NAMES
from ..frames.schema import DATETIME
from ._write import replacing
from .snapshot_csv import (
    MANIFEST,
    SnapshotFileError,
    SnapshotFiles,
    SnapshotFrames,
    column_schema,
    public_url,
    read_manifest,
    sha256_of,
)

__all__ = ["PARQUET_FORMAT", "read_parquet_frames", "write_parquet_snapshot"]

PARQUET_FORMAT = "lyt-snapshot-parquet/1"
_DATE_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def write_parquet_snapshot(snapshot: SnapshotFrames, directory: str | Path) -> list[Path]:
    """Write every frame as ``<name>.parquet`` and then ``manifest.json``; returns the paths."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    entries: dict[str, Any] = {}
    for name, frame in snapshot.frames().items():
        path = out / f"{name}.parquet"
        with replacing(path) as tmp:
            frame.to_parquet(tmp, engine="pyarrow", index=False)
        written.append(path)
        entries[name] = {
            "file": path.name,
            "rows": len(frame),
            "sha256": sha256_of(path),
            "columns": column_schema(frame),
        }
    manifest = {
        "format": PARQUET_FORMAT,
        "generator": f"lyt_toolkit {__version__}",
        "source": public_url(snapshot.source),
        "pulled_at": snapshot.pulled_at.strftime(_DATE_FORMAT),
        "frames": entries,
    }
    path = out / MANIFEST
    with replacing(path) as tmp:
        tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    written.append(path)
    return written


def read_parquet_frames(directory: str | Path) -> SnapshotFiles:
    """Read a folder written by ``write_parquet_snapshot``: its frames, source and pull time.

    A missing, altered or unreadable file raises ``SnapshotFileError`` naming it.
    """
    base = Path(directory)
    manifest = read_manifest(base, formats=(PARQUET_FORMAT,))
    entries = manifest.get("frames", {})
    unknown = set(entries) - set(FRAME_NAMES)
    if unknown:
        raise SnapshotFileError(f"{base / MANIFEST}: unknown frames {sorted(unknown)}")
    frames = {name: _read_frame(base, entry) for name, entry in entries.items()}
    return SnapshotFiles(frames, manifest.get("source", ""), manifest.get("pulled_at"))


def _read_frame(directory: Path, entry: dict[str, Any]) -> pd.DataFrame:
    path = directory / entry["file"]
    if not path.is_file():
        raise SnapshotFileError(f"{path} is listed in the manifest but missing")
    actual = sha256_of(path)
    if actual != entry["sha256"]:
        raise SnapshotFileError(
            f"{path} was changed after export: sha256 {actual} does not match the "
            f"manifest's {entry['sha256']}"
        )
    try:
        frame = pd.read_parquet(path, engine="pyarrow")
    except (OSError, ValueError) as exc:
        raise SnapshotFileError(f"{path}: cannot be read as Parquet ({exc})") from None
    names = [c["name"] for c in entry["columns"]]
    if list(frame.columns) != names:
        raise SnapshotFileError(f"{path}: columns {list(frame.columns)} differ from {names}")
    if len(frame) != entry["rows"]:
        raise SnapshotFileError(f"{path}: {len(frame)} rows, the manifest says {entry['rows']}")
    return frame.astype({c["name"]: _dtype(c) for c in entry["columns"]})


def _dtype(column: dict[str, Any]) -> Any:
    kind = column["dtype"]
    if kind == "category":
        return pd.CategoricalDtype(column.get("categories", []))
    if kind == DATETIME:
        return pd.DatetimeTZDtype("ns", "UTC")
    return kind
