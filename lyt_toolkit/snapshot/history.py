"""Snapshots kept over time in one folder, one Parquet partition per snapshot, queried with DuckDB.

``SnapshotHistory(path).append(snapshot)`` writes the snapshot with
``to_parquet`` into ``path/pulled_at=<YYYYMMDDTHHMMSS.ffffffZ>/`` (first into
a hidden folder, then renamed, so a reader never sees half a snapshot), keyed
by its ``pulled_at``. ``list()``, ``load(at)`` and ``diff(a, b)`` read it back, with what
its manifest records (its ``provenance`` too). Only full pulls are stored: a sampled
snapshot's member rows would read as the whole program's.

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

At scale: ``list()`` reads the manifests only; ``query`` too, then DuckDB scans the files of
the kinds the SQL names, only the columns it uses and only the snapshots a condition on
``pulled_at`` keeps (``history_sql``), so no snapshot is built in pandas, only the result.
``load``, ``latest`` and ``diff`` build whole snapshots (one, or two).
"""

from __future__ import annotations

import builtins
import errno
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from ..frames.registry import FRAME_NAMES
from ..reports.snapshot_csv import MANIFEST, SnapshotFileError, read_snapshot_manifest
from ..reports.snapshot_parquet import PARQUET_FORMAT
from .diff import DEFAULT_IGNORE, SnapshotDiff
from .files import read_snapshot
from .history_sql import create_views, named_kinds
from .model import ProgramSnapshot

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
        """One row per stored snapshot, oldest first: ``pulled_at``, ``source``, rows per kind.

        Only the manifests are read, never a frame's file."""
        return _listing(self._manifests())

    def _manifests(self) -> builtins.list[tuple[Path, dict[str, Any]]]:
        """Each stored snapshot's folder and checked manifest, oldest first."""
        return [
            (folder, read_snapshot_manifest(folder, formats=(PARQUET_FORMAT,)))
            for folder in self._folders()
        ]

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

    def diff(
        self, a: At, b: At, *, ignore: Iterable[str] = DEFAULT_IGNORE
    ) -> SnapshotDiff[ProgramSnapshot]:
        """What changed from the snapshot pulled at ``a`` to the one pulled at ``b``."""
        return self.load(a).diff(self.load(b), ignore=ignore)

    def query(self, sql: str) -> pd.DataFrame:
        """The result of DuckDB ``sql`` over every stored snapshot (views: see the module doc).

        Only the manifests are read in Python; DuckDB reads the columns the SQL names of the
        snapshots it keeps (see ``lyt_toolkit.snapshot.history_sql``)."""
        import duckdb  # about 20 MiB: imported by the first query, not by the import

        manifests = self._manifests()
        layouts: dict[str, builtins.list[tuple[Path, tuple[str, ...]]]] = {}
        for folder, manifest in manifests:
            for kind, entry in manifest["frames"].items():
                columns = tuple(c["name"] for c in entry["columns"])
                layouts.setdefault(kind, []).append((folder, columns))
        with duckdb.connect() as con:
            con.execute("SET TimeZone = 'UTC'")
            create_views(con, KEY, _listing(manifests), named_kinds(sql), layouts)
            return con.sql(sql).to_arrow_table().to_pandas()

    def _folders(self) -> builtins.list[Path]:
        if not self.path.is_dir():
            return []
        found = [p for p in self.path.glob(f"{PARTITION_PREFIX}*") if (p / MANIFEST).is_file()]
        return sorted(found)

    def _partition(self, stamp: pd.Timestamp) -> Path:
        return self.path / f"{PARTITION_PREFIX}{stamp.tz_convert('UTC').strftime(_PARTITION_TIME)}"


def _listing(manifests: Iterable[tuple[Path, Mapping[str, Any]]]) -> pd.DataFrame:
    """``list()`` of the snapshots whose manifests are given."""
    records = [
        {
            KEY: manifest["pulled_at"],
            "source": manifest.get("source", ""),
            **{n: manifest["frames"].get(n, {}).get("rows", 0) for n in FRAME_NAMES},
        }
        for _, manifest in manifests
    ]
    out = pd.DataFrame(records, columns=[KEY, "source", *FRAME_NAMES])
    out[KEY] = pd.to_datetime(out[KEY], utc=True, format="ISO8601").astype("datetime64[ns, UTC]")
    out["source"] = out["source"].astype("str")
    out = out.astype({n: "int64" for n in FRAME_NAMES})
    return out.sort_values(KEY, ignore_index=True)


def _stamp(at: At) -> pd.Timestamp:
    stamp = pd.Timestamp(at)
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def _label(stamp: pd.Timestamp) -> str:
    return stamp.tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%S.%fZ")
