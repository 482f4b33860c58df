"""A snapshot's frames as Parquet files plus ``manifest.json``, and back with the same dtypes.

The folder mirrors the CSV export (``reports.snapshot_csv``): one
``<name>.parquet`` per frame and a manifest recording the format
(``lyt-snapshot-parquet/1``), source, pull time and, per frame, its file, row
count, SHA-256 and column dtypes. Parquet keeps the dtypes itself (pyarrow
writes the pandas metadata); reading still checks each file's hash, parses the
bytes it checked (the file is read once) and casts every column to the dtype the
manifest records, so the frames read equal the ones written. Text needs no spreadsheet
escaping here: nobody opens Parquet in a spreadsheet as text.

Files are compressed with zstd (``COMPRESSION``; about half the size of pyarrow's default
snappy on member and card frames, whose IDs and balances repeat their neighbours' digits),
with pyarrow's dictionary encoding of every column (categories, program and card definition
IDs become small integers) and its row groups of up to 1,048,576 rows: a frame of a few
hundred thousand rows is one row group, the unit a ``SnapshotHistory`` query skips or reads
whole, and one file per snapshot is what a query on ``pulled_at`` prunes by. DuckDB and any
Parquet reader of the last five years read zstd.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import pandas as pd

from .._json_file import first_line, shown
from .._write import replacing
from ..frames.schema import DATETIME
from .snapshot_csv import (
    PLAIN_DTYPES,
    SnapshotFileError,
    SnapshotFiles,
    SnapshotFrames,
    as_categories,
    category_dtype,
    check_shape,
    checked_bytes,
    files_of,
    read_snapshot_manifest,
    write_folder,
)

__all__ = ["PARQUET_FORMAT", "read_parquet_frames", "write_parquet_snapshot"]

PARQUET_FORMAT = "lyt-snapshot-parquet/1"
COMPRESSION: Final = "zstd"
"""The codec of every Parquet file written (at pyarrow's default level)."""


def write_parquet_snapshot(snapshot: SnapshotFrames, directory: str | Path) -> list[Path]:
    """Write every frame as ``<name>.parquet`` and then ``manifest.json``; returns the paths."""
    return write_folder(
        snapshot, directory, suffix=".parquet", write_frame=_write_parquet, format=PARQUET_FORMAT
    )


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """One frame as Parquet, without its ``attrs``: pandas would write them as JSON, which the
    odd values a pull records there are not (they are not kept, as in the CSV form)."""
    plain = frame.copy(deep=False)
    plain.attrs = {}
    with replacing(path) as tmp:
        plain.to_parquet(
            tmp, engine="pyarrow", index=False, compression=COMPRESSION, use_dictionary=True
        )


def read_parquet_frames(directory: str | Path) -> SnapshotFiles:
    """Read a folder written by ``write_parquet_snapshot``: its frames, source and pull time.

    A missing, altered or unreadable file raises ``SnapshotFileError`` naming it.
    """
    base = Path(directory)
    manifest = read_snapshot_manifest(base, formats=(PARQUET_FORMAT,))
    frames = {name: _read_frame(base, entry) for name, entry in manifest["frames"].items()}
    return files_of(manifest, frames, lambda entry: _read_frame(base, entry))


def _read_frame(directory: Path, entry: Mapping[str, Any]) -> pd.DataFrame:
    path, raw = checked_bytes(directory, entry)
    try:  # the bytes checked, not the file again
        frame = pd.read_parquet(io.BytesIO(raw), engine="pyarrow")
    except (OSError, ValueError) as exc:
        raise SnapshotFileError(f"{path}: cannot be read as Parquet ({first_line(exc)})") from None
    check_shape(path, frame, entry)
    for column in entry["columns"]:
        name, kind = column["name"], column["dtype"]
        if kind == "category":
            plain = frame[name].astype(object).where(frame[name].notna(), None)
            frame[name] = as_categories(path, name, plain, category_dtype(column))
            continue
        if kind != DATETIME and kind not in PLAIN_DTYPES:
            raise SnapshotFileError(f"{path}: column {shown(name)} has unknown dtype {shown(kind)}")
        try:
            frame[name] = frame[name].astype(_dtype(kind))
        except (ValueError, TypeError, OverflowError):  # the value is not quoted
            raise SnapshotFileError(
                f"{path}: column {shown(name)}: its values are not of dtype {shown(kind)}"
            ) from None
    return frame


def _dtype(kind: str) -> Any:
    return pd.DatetimeTZDtype("ns", "UTC") if kind == DATETIME else kind
