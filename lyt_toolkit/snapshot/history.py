"""Snapshots kept over time in one folder, one Parquet partition per snapshot, queried with DuckDB.

``SnapshotHistory(path).append(snapshot)`` writes the snapshot with
``to_parquet`` into ``path/pulled_at=<YYYYMMDDTHHMMSS.ffffffZ>/`` (first into
a hidden folder, then renamed, so a reader never sees half a snapshot), keyed
by its ``pulled_at``. ``list()``, ``load(at)`` and ``diff(a, b)`` read it back. Only full
pulls are stored: a sampled snapshot's member rows would read as the whole program's.

``query(sql)`` runs DuckDB SQL over every stored snapshot. Each frame kind is a
view of that name (``rewards``, ``reward_costs``, ``benefits``,
``card_definitions``, ``tier_structures``, ``programs``, ``members``, ``cards``,
``pending_buckets``) holding the rows of every snapshot, with the snapshot key
``pulled_at`` (TIMESTAMPTZ, UTC) as its first column; the view ``snapshots``
has one row per snapshot (``pulled_at``, ``source`` and each kind's row count).
For example, ACTIVE rewards per snapshot::

    history.query(
        "SELECT pulled_at, count(*) AS active FROM rewards "
        "WHERE status = 'ACTIVE' GROUP BY pulled_at ORDER BY pulled_at"
    )
"""

from __future__ import annotations

import builtins
import errno
import os
import shutil
import tempfile
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..frames.registry import FRAME_NAMES, SCHEMAS
from ..reports.snapshot_csv import MANIFEST, SnapshotFileError, read_snapshot_manifest
from ..reports.snapshot_parquet import PARQUET_FORMAT
from .diff import DEFAULT_IGNORE, SnapshotDiff
from .files import read_snapshot
from .model import ProgramSnapshot

if TYPE_CHECKING:  # DuckDB (about 20 MiB) is imported by the first query, not by the import
    import duckdb

__all__ = ["KEY", "PARTITION_PREFIX", "SnapshotHistory"]

KEY = "pulled_at"
"""The column that tells snapshots apart in every view."""

PARTITION_PREFIX = f"{KEY}="
_PARTITION_TIME = "%Y%m%dT%H%M%S.%fZ"

At = str | datetime | pd.Timestamp


class SnapshotHistory:
    """The snapshots stored under ``path`` (created on the first ``append``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()

    def __repr__(self) -> str:
        return f"SnapshotHistory({str(self.path)!r})"

    def append(self, snapshot: ProgramSnapshot) -> pd.Timestamp:
        """Store ``snapshot`` under its ``pulled_at`` and return that key.

        A snapshot with the same ``pulled_at`` already stored (by another process
        meanwhile, too) is left as it is and ``SnapshotFileError`` says so.

        A sampled snapshot is refused (``ValueError``): its cards and pending buckets are
        its sampled members' only, and every view and diff of the history reads each
        snapshot's rows as the whole program's.
        """
        if snapshot.sample is not None:
            raise ValueError(
                f"{self.path}: this snapshot is a {snapshot.sample}, so its cards and pending "
                "buckets are those of the sampled members only; the history's views and diffs "
                "would read them as the whole program's. Store full pulls "
                "(ProgramSnapshot.pull without sample=); keep a sample apart with to_parquet"
            )
        target = self._partition(snapshot.pulled_at)
        if target.exists():
            raise self._already_stored(snapshot.pulled_at)
        self.path.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".partial-", dir=self.path))
        try:
            snapshot.to_parquet(staging)
            os.rename(staging, target)
        except BaseException as exc:
            shutil.rmtree(staging, ignore_errors=True)
            if isinstance(exc, OSError) and exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                raise self._already_stored(snapshot.pulled_at) from None
            raise
        return snapshot.pulled_at

    def _already_stored(self, stamp: pd.Timestamp) -> SnapshotFileError:
        return SnapshotFileError(
            f"{self.path}: a snapshot pulled at {_label(stamp)} is already stored"
        )

    def list(self) -> pd.DataFrame:
        """One row per stored snapshot, oldest first: ``pulled_at``, ``source``, rows per kind."""
        records = []
        for folder in self._folders():
            manifest = read_snapshot_manifest(folder, formats=(PARQUET_FORMAT,))
            frames = manifest["frames"]
            records.append(
                {
                    KEY: manifest["pulled_at"],
                    "source": manifest.get("source", ""),
                    **{n: frames.get(n, {}).get("rows", 0) for n in FRAME_NAMES},
                }
            )
        out = pd.DataFrame(records, columns=[KEY, "source", *FRAME_NAMES])
        out[KEY] = pd.to_datetime(out[KEY], utc=True, format="ISO8601").astype(
            "datetime64[ns, UTC]"
        )
        out["source"] = out["source"].astype("str")
        out = out.astype({n: "int64" for n in FRAME_NAMES})
        return out.sort_values(KEY, ignore_index=True)

    def __len__(self) -> int:
        return len(self._folders())

    def latest(self) -> ProgramSnapshot | None:
        """The most recently pulled snapshot stored, or None when there is none."""
        folders = self._folders()
        return read_snapshot(folders[-1]) if folders else None

    def load(self, at: At) -> ProgramSnapshot:
        """The snapshot pulled at ``at``; ``KeyError`` lists the stored ones when there is none."""
        folder = self._partition(_stamp(at))
        if not (folder / MANIFEST).is_file():
            stored = ", ".join(_label(t) for t in self.list()[KEY]) or "none"
            raise KeyError(
                f"no snapshot pulled at {_label(_stamp(at))} in {self.path}; stored: {stored}"
            )
        return read_snapshot(folder)

    def diff(self, a: At, b: At, *, ignore: Iterable[str] = DEFAULT_IGNORE) -> SnapshotDiff:
        """What changed from the snapshot pulled at ``a`` to the one pulled at ``b``."""
        return self.load(a).diff(self.load(b), ignore=ignore)

    def query(self, sql: str) -> pd.DataFrame:
        """The result of DuckDB ``sql`` over every stored snapshot (views: see the module doc)."""
        import duckdb

        with duckdb.connect() as con:
            con.execute("SET TimeZone = 'UTC'")
            listed = self.list()
            con.register("_snapshots", listed)
            con.execute("CREATE VIEW snapshots AS SELECT * FROM _snapshots")
            for kind in FRAME_NAMES:
                con.execute(f"CREATE VIEW {kind} AS {self._kind_sql(con, kind, listed)}")
            return con.sql(sql).to_arrow_table().to_pandas()

    def _kind_sql(self, con: duckdb.DuckDBPyConnection, kind: str, listed: pd.DataFrame) -> str:
        """Every snapshot's ``kind`` rows, each with its ``pulled_at``."""
        empty = SCHEMAS[kind].empty()
        empty.insert(0, KEY, pd.Series([], dtype="datetime64[ns, UTC]"))
        con.register(f"_empty_{kind}", empty)
        parts = [f"SELECT * FROM _empty_{kind}"]
        for stamp in listed[KEY]:
            path = self._partition(stamp) / f"{kind}.parquet"
            quoted = str(path).replace("'", "''")
            parts.append(
                f"SELECT TIMESTAMPTZ '{stamp.isoformat()}' AS {KEY}, * "
                f"FROM read_parquet('{quoted}', hive_partitioning = false)"
            )
        return " UNION ALL BY NAME ".join(parts)

    def _folders(self) -> builtins.list[Path]:
        if not self.path.is_dir():
            return []
        found = [p for p in self.path.glob(f"{PARTITION_PREFIX}*") if (p / MANIFEST).is_file()]
        return sorted(found)

    def _partition(self, stamp: pd.Timestamp) -> Path:
        return self.path / f"{PARTITION_PREFIX}{stamp.tz_convert('UTC').strftime(_PARTITION_TIME)}"


def _stamp(at: At) -> pd.Timestamp:
    stamp = pd.Timestamp(at)
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def _label(stamp: pd.Timestamp) -> str:
    return stamp.tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%S.%fZ")
