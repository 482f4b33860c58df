"""The DuckDB views ``SnapshotHistory.query`` runs its SQL over, one scan per frame kind.

Each kind's view reads every stored snapshot's ``<kind>.parquet`` with one
``read_parquet([...], hive_partitioning = true, union_by_name = true)``: the snapshot key
comes from the folder name (``pulled_at=<YYYYMMDDTHHMMSS.ffffffZ>``) and is turned into a
TIMESTAMPTZ, so DuckDB reads only the columns a query names (projection pushdown) and skips
the files of the snapshots a filter on ``pulled_at`` leaves out (hive partition pruning). No
frame is built in pandas but the result; the files are scanned in DuckDB's threads within
its memory limit. A view is made only for the kinds the SQL names (a word of the text, so
a name in a comment makes one too): making one reads the footer of each of its files, and
a history of a year of daily snapshots holds thousands of files.

The files listed are those of the snapshots whose manifests were read (``list()``), never a
glob, so a snapshot being written (in a hidden folder) or left without a manifest is not
read. A frame written by an older version with fewer columns reads with NA in the others
(``union_by_name``, and the declared empty frame of each kind is part of the view, so a view
has every declared column even over no snapshot at all).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..frames.registry import FRAME_NAMES, SCHEMAS

if TYPE_CHECKING:  # DuckDB is imported by the first query, not by the import
    import duckdb

__all__ = ["create_views", "named_kinds"]

_KEY_FORMAT = "%Y%m%dT%H%M%S.%fZ"
"""A partition folder's time, as DuckDB's ``strptime`` reads it (``history._PARTITION_TIME``)."""


def named_kinds(sql: str) -> list[str]:
    """The frame kinds whose name is a word of ``sql`` (case-insensitive), in FRAME_NAMES
    order: every kind the SQL can refer to, and perhaps one more."""
    words = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", sql)}
    return [kind for kind in FRAME_NAMES if kind in words]


def create_views(
    con: duckdb.DuckDBPyConnection,
    key: str,
    folders: Sequence[Path],
    listed: pd.DataFrame,
    kinds: Iterable[str],
    columns: dict[str, set[str]],
) -> None:
    """The view ``snapshots`` (``listed``) and one view per kind of ``kinds`` over the
    ``<kind>.parquet`` file of each of ``folders`` (whose names are ``<key>=<time>``);
    ``columns`` holds, per kind, every column name the folders' manifests record."""
    con.register("_snapshots", listed)
    con.execute("CREATE VIEW snapshots AS SELECT * FROM _snapshots")
    for kind in kinds:
        empty = SCHEMAS[kind].empty()
        empty.insert(0, key, pd.Series([], dtype="datetime64[ns, UTC]"))
        con.register(f"_empty_{kind}", empty)
        select = f"SELECT * FROM _empty_{kind}"
        if folders:
            select += " UNION ALL BY NAME " + _scan(key, folders, kind, columns.get(kind, set()))
        con.execute(f"CREATE VIEW {kind} AS {select}")


def _scan(key: str, folders: Sequence[Path], kind: str, columns: set[str]) -> str:
    files = ", ".join(_quoted(folder / f"{kind}.parquet") for folder in folders)
    # Any other key=value folder above the history is a hive column too: not the frame's.
    above = {part.split("=", 1)[0] for part in folders[0].parent.resolve().parts if "=" in part}
    drop = ", ".join(_identifier(k) for k in sorted({key} | (above - columns)))
    return (
        f"SELECT CAST(strptime({_identifier(key)}, '{_KEY_FORMAT}') AS TIMESTAMPTZ) AS "
        f"{_identifier(key)}, * EXCLUDE ({drop}) FROM read_parquet([{files}], "
        f"hive_partitioning = true, hive_types = {{'{key}': VARCHAR}}, union_by_name = true)"
    )


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
