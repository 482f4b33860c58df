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
read. Each view has the key, then the kind's declared columns in their order, then any other
column a stored file has; a column some files lack (written by another version) reads as
NA there (``union_by_name``, asked for only when the manifests record different columns,
as it reads every file's footer first), one no file has as a typed NULL. Over no snapshot
a view is the declared empty frame. The views are plain scans, never a union with a frame
registered from pandas: such a union hides the files' statistics from DuckDB's planner,
and a join of two kinds over 30 daily snapshots of 200,000 members then took three times
the time and twice the memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..frames.registry import FRAME_NAMES, SCHEMAS
from ..frames.schema import DATETIME

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
    listed: pd.DataFrame,
    kinds: Iterable[str],
    layouts: Mapping[str, Sequence[tuple[Path, tuple[str, ...]]]],
) -> None:
    """The view ``snapshots`` (``listed``) and one view per kind of ``kinds`` over the
    ``<kind>.parquet`` files ``layouts[kind]`` names, each with the columns its manifest
    records (in folders named ``<key>=<time>``)."""
    con.register("_snapshots", listed)
    con.execute("CREATE VIEW snapshots AS SELECT * FROM _snapshots")
    for kind in kinds:
        stored = layouts.get(kind, ())
        if stored:
            select = _scan(key, kind, stored)
        else:  # no snapshot: the declared columns, no row
            empty = SCHEMAS[kind].empty()
            empty.insert(0, key, pd.Series([], dtype="datetime64[ns, UTC]"))
            con.register(f"_empty_{kind}", empty)
            select = f"SELECT * FROM _empty_{kind}"
        con.execute(f"CREATE VIEW {kind} AS {select}")


def _scan(key: str, kind: str, stored: Sequence[tuple[Path, tuple[str, ...]]]) -> str:
    """One ``read_parquet`` of every stored file of ``kind``: the key, the declared columns
    in their order (NULL where no file has one), then any other column a file has."""
    files = ", ".join(_quoted(folder / f"{kind}.parquet") for folder, _ in stored)
    found = list(dict.fromkeys(c for _, columns in stored for c in columns))
    declared = {c.name: c.dtype_name for c in SCHEMAS[kind].columns}
    stamp = f"strptime({_identifier(key)}, '{_KEY_FORMAT}')"
    select = [f"CAST({stamp} AS TIMESTAMPTZ) AS {_identifier(key)}"]
    for name, dtype in declared.items():
        column = _identifier(name)
        select.append(column if name in found else f"CAST(NULL AS {_SQL_TYPES[dtype]}) AS {column}")
    select += [_identifier(c) for c in found if c not in declared and c != key]
    # Only files whose columns differ need their footers read to be matched by name.
    by_name = "true" if len({columns for _, columns in stored}) > 1 else "false"
    return (
        f"SELECT {', '.join(select)} FROM read_parquet([{files}], hive_partitioning = true, "
        f"hive_types = {{'{key}': VARCHAR}}, union_by_name = {by_name})"
    )


_SQL_TYPES = {
    "str": "VARCHAR",
    "category": "VARCHAR",
    "Int64": "BIGINT",
    "Float64": "DOUBLE",
    "boolean": "BOOLEAN",
    DATETIME: "TIMESTAMPTZ",
}
"""The DuckDB type of a declared column no stored file holds, by its dtype."""


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
