"""The routes ``benchmarks/scale.py history`` times on a stored history, each in a process of
its own so that its peak RSS (``ru_maxrss``) is its own.

A route is a function of the history's folder returning a frame (its answer); ``run_route``
runs one and prints one JSON line: seconds, peak RSS in MiB (``peak_rss_mib``), rows and a
digest of the answer, so that routes answering the same question can be checked to agree.
Routes named ``peer ...`` are what a competent analyst writes without the toolkit: pandas
reading every partition's file (only the columns needed) and concatenating them, or DuckDB
straight on the folders' glob.
"""

from __future__ import annotations

import hashlib
import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

POINTS_SQL = (
    "SELECT pulled_at, program_id, sum(balance_points) AS outstanding, count(*) AS cards "
    "FROM cards GROUP BY ALL ORDER BY ALL"
)
"""Points outstanding per day and program (the typical question of a history)."""
ACTIVE_SQL = (
    "SELECT pulled_at, count(*) AS active FROM members WHERE status = 'ACTIVE' "
    "GROUP BY ALL ORDER BY ALL"
)
"""ACTIVE members per day."""
JOIN_SQL = (
    "SELECT c.pulled_at, m.status, sum(c.balance_points) AS outstanding FROM cards c "
    "JOIN members m ON c.pulled_at = m.pulled_at AND c.member_id = m.id "
    "GROUP BY ALL ORDER BY ALL"
)
"""Points outstanding per day by the status of the member holding them (a join of two kinds
over every day: the one that needs memory)."""
_KEY_FORMAT = "%Y%m%dT%H%M%S.%fZ"


def _partitions(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("pulled_at=*") if (p / "manifest.json").is_file())


def _stamp(partition: Path) -> pd.Timestamp:
    return pd.to_datetime(partition.name.split("=", 1)[1], format=_KEY_FORMAT, utc=True)


def bare(folder: Path) -> pd.DataFrame:
    """Nothing but the imports every route pays (pandas, lyt_toolkit, DuckDB)."""
    return pd.DataFrame()


def listed(folder: Path) -> pd.DataFrame:
    from lyt_toolkit.snapshot import SnapshotHistory

    return SnapshotHistory(folder).list()


def points(folder: Path) -> pd.DataFrame:
    from lyt_toolkit.snapshot import SnapshotHistory

    return SnapshotHistory(folder).query(POINTS_SQL)


def active(folder: Path) -> pd.DataFrame:
    from lyt_toolkit.snapshot import SnapshotHistory

    return SnapshotHistory(folder).query(ACTIVE_SQL)


def peer_pandas_points(folder: Path) -> pd.DataFrame:
    frames = [
        pd.read_parquet(p / "cards.parquet", columns=["program_id", "balance_points"]).assign(
            pulled_at=_stamp(p)
        )
        for p in _partitions(folder)
    ]
    cards = pd.concat(frames, ignore_index=True)
    out = cards.groupby(["pulled_at", "program_id"], observed=True, as_index=False).agg(
        outstanding=("balance_points", "sum"), cards=("balance_points", "size")
    )
    return out.sort_values(["pulled_at", "program_id"], ignore_index=True)


def peer_pandas_active(folder: Path) -> pd.DataFrame:
    frames = [
        pd.read_parquet(p / "members.parquet", columns=["status"]).assign(pulled_at=_stamp(p))
        for p in _partitions(folder)
    ]
    members = pd.concat(frames, ignore_index=True)
    active = members[members["status"] == "ACTIVE"]
    out = active.groupby("pulled_at", as_index=False).size().rename(columns={"size": "active"})
    return out.sort_values("pulled_at", ignore_index=True)


def _peer_duckdb(folder: Path, kinds: tuple[str, ...], sql: str) -> pd.DataFrame:
    import duckdb

    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        for kind in kinds:
            glob = str(folder / "pulled_at=*" / f"{kind}.parquet").replace("'", "''")
            con.execute(
                f"CREATE VIEW {kind} AS SELECT CAST(strptime(pulled_at, '{_KEY_FORMAT}') AS "
                f"TIMESTAMPTZ) AS pulled_at, * EXCLUDE (pulled_at) FROM read_parquet('{glob}', "
                "hive_partitioning = true, hive_types = {'pulled_at': VARCHAR})"
            )
        return con.sql(sql).to_arrow_table().to_pandas()


def peer_duckdb_points(folder: Path) -> pd.DataFrame:
    return _peer_duckdb(folder, ("cards",), POINTS_SQL)


def peer_duckdb_active(folder: Path) -> pd.DataFrame:
    return _peer_duckdb(folder, ("members",), ACTIVE_SQL)


def join(folder: Path) -> pd.DataFrame:
    from lyt_toolkit.snapshot import SnapshotHistory

    return SnapshotHistory(folder).query(JOIN_SQL)


def peer_pandas_join(folder: Path) -> pd.DataFrame:
    parts = []
    for p in _partitions(folder):
        cards = pd.read_parquet(p / "cards.parquet", columns=["member_id", "balance_points"])
        members = pd.read_parquet(p / "members.parquet", columns=["id", "status"])
        both = cards.merge(members, left_on="member_id", right_on="id")
        parts.append(both[["status", "balance_points"]].assign(pulled_at=_stamp(p)))
    rows = pd.concat(parts, ignore_index=True)
    out = rows.groupby(["pulled_at", "status"], observed=True, as_index=False).agg(
        outstanding=("balance_points", "sum")
    )
    return out.sort_values(["pulled_at", "status"], ignore_index=True)


def peer_duckdb_join(folder: Path) -> pd.DataFrame:
    return _peer_duckdb(folder, ("cards", "members"), JOIN_SQL)


def diff(folder: Path) -> pd.DataFrame:
    """``history.diff`` of the last two days: every kind, every column."""
    from lyt_toolkit.snapshot import SnapshotHistory

    history = SnapshotHistory(folder)
    a, b = history.list()["pulled_at"].iloc[-2:]
    return history.diff(a, b).summary().reset_index()


def peer_diff_cards(folder: Path) -> pd.DataFrame:
    """What an analyst writes for the cards whose balance changed between the last two days
    (one kind, two columns: a narrower answer than ``diff``)."""
    a, b = _partitions(folder)[-2:]
    columns = ["id", "member_id", "balance_points", "balance_pending_points"]
    before = pd.read_parquet(a / "cards.parquet", columns=columns)
    after = pd.read_parquet(b / "cards.parquet", columns=columns)
    both = before.merge(after, on=["id", "member_id"], how="outer", suffixes=("_a", "_b"))
    changed = (both["balance_points_a"] != both["balance_points_b"]).fillna(True) | (
        both["balance_pending_points_a"] != both["balance_pending_points_b"]
    ).fillna(True)
    return both[changed].reset_index(drop=True)


def load(folder: Path) -> pd.DataFrame:
    """``history.load`` of the last day: the whole snapshot in pandas, hashes checked."""
    from lyt_toolkit.snapshot import SnapshotHistory

    history = SnapshotHistory(folder)
    snapshot = history.load(history.list()["pulled_at"].iloc[-1])
    return pd.DataFrame(
        {"kind": list(snapshot.frames()), "rows": [len(f) for f in snapshot.frames().values()]}
    )


ROUTES: dict[str, Callable[[Path], pd.DataFrame]] = {
    "bare": bare,
    "list": listed,
    "points": points,
    "peer pandas points": peer_pandas_points,
    "peer duckdb points": peer_duckdb_points,
    "active": active,
    "peer pandas active": peer_pandas_active,
    "peer duckdb active": peer_duckdb_active,
    "join": join,
    "peer pandas join": peer_pandas_join,
    "peer duckdb join": peer_duckdb_join,
    "diff": diff,
    "peer diff cards": peer_diff_cards,
    "load": load,
}
"""Every route by name."""


def digest(frame: pd.DataFrame) -> str:
    """The answer's values (not its dtypes), as a short hash routes can be compared by."""
    if frame.empty:
        return ""
    text = frame.astype("str").to_csv(index=False, header=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def peak_rss_mib() -> float:
    """This process's peak RSS in MiB: ``VmHWM`` of ``/proc/self/status`` where there is one
    (the peak of this program's own memory, which starts afresh with ``exec``), else
    ``ru_maxrss``, which Linux carries over from the parent that forked the process (a
    benchmark holding a large history in memory would lend its children its own peak)."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_route(name: str, folder: str) -> None:
    """In the route's own process: run it and print its figures as one JSON line. The time
    leaves out the imports (pandas, lyt_toolkit, DuckDB), the peak RSS holds them: the
    ``bare`` route shows what they alone take."""
    import duckdb  # noqa: F401

    import lyt_toolkit.snapshot  # noqa: F401

    started = time.perf_counter()
    answer = ROUTES[name](Path(folder))
    seconds = time.perf_counter() - started
    out = {
        "route": name,
        "seconds": seconds,
        "rss_mib": peak_rss_mib(),
        "rows": len(answer),
        "digest": digest(answer),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    run_route(sys.argv[1], sys.argv[2])
