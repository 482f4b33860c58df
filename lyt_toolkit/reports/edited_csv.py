"""An export folder edited in a spreadsheet and saved back as CSV, read as frames to plan from.

``read_edited_frames(d)`` reads a folder that ``lyt export`` / ``ProgramSnapshot.to_csv``
wrote and a person then edited: no checksum check (the files were meant to change), the
spreadsheet-safe ``'`` removed again, each column found by its header (in any order) and
each cell read as its column's dtype by the one set of rules every typed value follows
(``frames.parse``): spreadsheet spellings of the same value are accepted (``1.0`` for
``1``, ``TRUE`` for ``True``, an instant without microseconds, with a space for ``T`` or
without ``Z``: UTC; full-width or other Unicode digits), as are LF or CRLF line ends and
a UTF-8 byte order mark; whole numbers are read exactly (never through a float).
Anything else is a ``SnapshotFileError``
on one line naming the file, row and column: a cell that is not a value of its column, a
column removed or renamed. Rows are numbered as in the file (1: the first line below the
header) and the frames keep those numbers as their index, so a later refusal
(``ChangePlan.from_frames``) names the same row. Blank rows are left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .._json_file import first_line, shown
from ..frames.parse import ValueRefused, typed_column
from ..frames.schema import DATETIME
from .cells import unescape
from .snapshot_csv import (
    ESCAPING_KEY,
    SnapshotFileError,
    category_dtype,
    read_snapshot_manifest,
)

__all__ = ["read_edited_frames"]

_TYPED = ("str", "string", "Int64", "Float64", "boolean", DATETIME)


def read_edited_frames(directory: str | Path) -> dict[str, pd.DataFrame]:
    """The frames of an edited export folder, typed as its manifest declares (the kinds it
    was pulled with): what ``ChangePlan.from_frames(base, frames)`` takes."""
    folder = Path(directory)
    manifest = read_snapshot_manifest(folder)
    escaped = ESCAPING_KEY in manifest
    kinds = manifest.get("kinds", list(manifest["frames"]))
    return {
        kind: _read(folder / manifest["frames"][kind]["file"], manifest["frames"][kind], escaped)
        for kind in kinds
    }


def _read(path: Path, entry: dict[str, Any], escaped: bool) -> pd.DataFrame:
    """One edited CSV file: its columns checked by name, every cell by the column's dtype."""
    if not path.is_file():
        raise SnapshotFileError(f"{path} is listed in the manifest but missing")
    try:
        cells = pd.read_csv(
            path,
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            skip_blank_lines=False,
            encoding="utf-8-sig",
        )
    except UnicodeDecodeError:
        raise SnapshotFileError(f"{path} is not UTF-8 text (save it as CSV UTF-8)") from None
    except (ValueError, pd.errors.ParserError) as exc:
        raise SnapshotFileError(f"{path}: cannot be read as CSV ({first_line(exc)})") from None
    _check_header(path, list(cells.columns), [c["name"] for c in entry["columns"]])
    cells.index = pd.RangeIndex(1, len(cells) + 1, name="row")
    filled = cells.notna().any(axis=1)
    if not filled.all():  # blank rows left out (none: no frame copied)
        cells = cells[filled]
    return pd.DataFrame(
        {c["name"]: _typed(path, c, cells[c["name"]], escaped) for c in entry["columns"]},
        index=cells.index,
    )


def _check_header(path: Path, found: list[str], declared: list[str]) -> None:
    """Every declared column is there once, and no other: a removed or renamed one is named."""
    missing = [name for name in declared if name not in found]
    unknown = [name for name in found if name not in declared]
    if missing and unknown:
        raise SnapshotFileError(
            f"{path}: header row, column {shown(unknown[0])} is not in the export's schema"
            f" and {shown(missing[0])} is missing: was {shown(missing[0])} renamed? Put its"
            " name back"
        )
    if missing:
        raise SnapshotFileError(
            f"{path}: header row, column {shown(missing[0])} was removed; the plan needs every"
            " exported column (leave cells empty instead)"
        )
    if unknown:  # a repeated header comes back as "name.1"
        raise SnapshotFileError(
            f"{path}: header row, column {shown(unknown[0])} is not in the export's schema"
        )


def _typed(
    path: Path, column: dict[str, Any], cells: pd.Series[Any], escaped: bool
) -> pd.Series[Any]:
    """``cells`` (text, NA when empty) as the column's dtype, each read by
    ``frames.parse.typed_column``; the first cell it refuses is named."""
    dtype = column["dtype"]
    if dtype in ("str", "string", "category") and escaped:  # the export escaped them
        cells = unescape(cells)
    wanted: Any
    if dtype == "category":
        wanted = category_dtype(column)
    elif dtype in _TYPED:
        wanted = pd.api.types.pandas_dtype(dtype)
    else:
        raise SnapshotFileError(
            f"{path}: column {shown(column['name'])} has unknown dtype {shown(dtype)}"
        )
    try:
        return typed_column(cells, wanted)
    except ValueRefused as exc:
        raise SnapshotFileError(
            f"{path}: row {exc.label}, column {shown(column['name'])}: {exc}"
        ) from None
