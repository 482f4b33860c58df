"""SQLite storage of the sandbox: one table of JSON documents plus tokens and cursors.

Each resource is kept as the JSON the service answers with, beside the few
columns lists filter and order on (name, type, status, dates, customer). A
resource may belong to a scope (members to a program, buckets to a card,
webhooks to a project) so lists stay within it. One connection behind one
lock: writes are serialised, which is what makes "check the name, then insert"
atomic under concurrent requests.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .clock import iso, parse_instant

# Columns copied out of a document so SQL can filter and order on them.
INDEXED = ("name", "type", "status", "customer_id", "created_at", "updated_at", "date")
_TIMESTAMPS = ("created_at", "updated_at")

_INSERT = (
    f"INSERT OR REPLACE INTO resources (kind, id, scope, listed, {', '.join(INDEXED)}, body)"
    f" VALUES (?, ?, ?, ?, {', '.join('?' * len(INDEXED))}, ?)"
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS resources (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT '',
    listed INTEGER NOT NULL DEFAULT 1,
    name TEXT COLLATE NOCASE,
    type TEXT,
    status TEXT,
    customer_id TEXT,
    created_at TEXT,
    updated_at TEXT,
    date TEXT,
    body TEXT NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE INDEX IF NOT EXISTS by_created ON resources (kind, scope, listed, created_at, id);
CREATE INDEX IF NOT EXISTS by_name ON resources (kind, scope, listed, name, id);
CREATE INDEX IF NOT EXISTS by_type ON resources (kind, scope, listed, type, id);
CREATE INDEX IF NOT EXISTS by_status ON resources (kind, scope, listed, status, id);
CREATE INDEX IF NOT EXISTS by_date ON resources (kind, scope, listed, date, id);
CREATE INDEX IF NOT EXISTS by_customer ON resources (kind, scope, listed, customer_id, id);
CREATE UNIQUE INDEX IF NOT EXISTS listed_benefit_names
    ON resources (name COLLATE BINARY) WHERE kind = 'benefits' AND listed = 1;
CREATE TABLE IF NOT EXISTS tokens (
    token_hash TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS cursors (
    token TEXT PRIMARY KEY,
    list_name TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    position TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
"""


CURSOR_SWEEP_EVERY = 1000
"""Expired cursors are swept once per this many new ones."""

_CANONICAL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _column_value(field: str, doc: dict[str, Any]) -> Any:
    value = doc.get(field)
    if value is None:
        return None if field in _TIMESTAMPS else ""
    if field in _TIMESTAMPS:
        if isinstance(value, str) and _CANONICAL.fullmatch(value):
            return value  # already the wire spelling; parsing it again is the slow part
        return iso(parse_instant(value))
    return str(value)


class Store:
    """Documents by kind and ID, with the columns lists need."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or ":memory:"
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._cursors_minted = 0
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL" if path else "PRAGMA journal_mode=MEMORY")
            self._conn.executescript(_SCHEMA)

    # -- transactions -------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and one SQLite transaction; roll back on any error."""
        with self._lock:
            if self._conn.in_transaction:  # nested use joins the outer transaction
                yield self._conn
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, tuple(params)).fetchall()

    # -- documents ----------------------------------------------------------

    def put(self, kind: str, doc: dict[str, Any], *, scope: str = "", listed: bool = True) -> None:
        """Insert or replace one document."""
        self.put_many(kind, [(doc, scope, listed)])

    def put_many(self, kind: str, docs: Iterable[tuple[dict[str, Any], str, bool]]) -> None:
        """Insert or replace ``(doc, scope, listed)`` rows in one transaction."""
        rows = (
            (
                kind,
                d["id"],
                scope,
                int(listed),
                *[_column_value(f, d) for f in INDEXED],
                json.dumps(d),
            )
            for d, scope, listed in docs
        )
        with self.transaction() as conn:
            conn.executemany(_INSERT, rows)

    def get(self, kind: str, id_: str, *, scope: str | None = None) -> dict[str, Any] | None:
        sql, params = "SELECT body FROM resources WHERE kind = ? AND id = ?", [kind, id_]
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        rows = self.query(sql, params)
        return json.loads(rows[0]["body"]) if rows else None

    def all(self, kind: str, *, scope: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT body FROM resources WHERE kind = ?", [kind]
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        return [json.loads(r["body"]) for r in self.query(sql + " ORDER BY created_at, id", params)]

    def size(self) -> int:
        """How many documents of any kind the store holds."""
        return int(self.query("SELECT COUNT(*) AS n FROM resources")[0]["n"])

    def delete(self, kind: str, id_: str) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM resources WHERE kind = ? AND id = ?", (kind, id_))

    def name_taken(self, kind: str, name: str) -> bool:
        """Whether a listed document of ``kind`` already has exactly this name."""
        rows = self.query(
            "SELECT 1 FROM resources WHERE kind = ? AND listed = 1 AND name = ? COLLATE BINARY",
            [kind, name],
        )
        return bool(rows)

    # -- tokens and cursors -------------------------------------------------

    def put_token(self, token_hash: str, client_id: str, scope: str, expires_at: float) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO tokens VALUES (?, ?, ?, ?)", (token_hash, client_id, scope, expires_at)
            )

    def get_token(self, token_hash: str) -> sqlite3.Row | None:
        rows = self.query("SELECT * FROM tokens WHERE token_hash = ?", [token_hash])
        return rows[0] if rows else None

    def put_cursor(
        self,
        token: str,
        list_name: str,
        fingerprint: str,
        position: Any,
        expires_at: str,
        *,
        now: str | None = None,
    ) -> None:
        """Keep a cursor; every so often forget those expired before ``now``.

        Every page with more to come mints a cursor, so without the sweep a long
        rehearsal would grow the table without bound.
        """
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO cursors VALUES (?, ?, ?, ?, ?)",
                (token, list_name, fingerprint, json.dumps(position), expires_at),
            )
            self._cursors_minted += 1
            if now is not None and self._cursors_minted % CURSOR_SWEEP_EVERY == 0:
                conn.execute("DELETE FROM cursors WHERE expires_at <= ?", (now,))

    def get_cursor(self, token: str) -> sqlite3.Row | None:
        rows = self.query("SELECT * FROM cursors WHERE token = ?", [token])
        return rows[0] if rows else None

    @contextmanager
    def indexes_deferred(self) -> Iterator[None]:
        """Bulk loads go faster when the indexes are built once, afterwards."""
        with self._lock:
            names = [
                r["name"]
                for r in self._conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
                ).fetchall()
            ]
            for name in names:
                self._conn.execute(f"DROP INDEX {name}")
            try:
                yield
            finally:
                self._conn.executescript(_SCHEMA)

    def clear(self) -> None:
        """Forget everything: documents, tokens and cursors."""
        with self.transaction() as conn:
            for table in ("resources", "tokens", "cursors"):
                conn.execute(f"DELETE FROM {table}")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
