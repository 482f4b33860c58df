"""SQLite storage of the sandbox: one table of JSON documents plus tokens and cursors.

Each resource is kept as the JSON the service answers with, beside the few
columns lists filter and order on (name, type, status, dates, customer). A
resource may belong to a scope (members to a program, buckets to a card,
webhooks to a project) so lists stay within it. One connection behind one
lock: writes are serialised, which is what makes "check the name, then insert"
atomic under concurrent requests.

A create is a plain ``INSERT``: an ID already taken is an error
(``DuplicateId``), never a silent overwrite; only ``put`` (an update) replaces a
document. A small ``meta`` table keeps what must survive a restart beside the
data: the ID generators' positions, the marker that the program load finished and the
call budget's counts (``quota_ledger``).
File databases run in WAL mode with a busy timeout.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from itertools import chain
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

from .clock import sortable_iso

# Columns copied out of a document so SQL can filter and order on them (``_row`` in this
# order; the timestamps are NULL when absent, the others "").
INDEXED = ("name", "type", "status", "customer_id", "created_at", "updated_at", "date")

_COLUMNS = ("scope", "listed", *INDEXED, "body")
_INSERT = (
    f"INSERT INTO resources (kind, id, {', '.join(_COLUMNS)})"
    f" VALUES (?, ?, {', '.join('?' * len(_COLUMNS))})"
)
ROWS_PER_INSERT = 80
"""Rows one ``INSERT`` of ``insert_many`` takes: 960 parameters, under the 999 of older
SQLite builds; a 50,000-row load inserts about 25% faster than with a statement a row."""
_INSERT_ROWS = _INSERT + f", ({', '.join('?' * (len(_COLUMNS) + 2))})" * (ROWS_PER_INSERT - 1)

_UPSERT = (
    _INSERT
    + " ON CONFLICT (kind, id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS)
)

_SET_META = "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"

BUSY_TIMEOUT_SECONDS = 10.0
"""How long a write waits for another process holding the database file."""

_TABLES = """
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
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS by_created ON resources (kind, scope, listed, created_at, id);
CREATE INDEX IF NOT EXISTS by_name ON resources (kind, scope, listed, name, id);
CREATE INDEX IF NOT EXISTS by_type ON resources (kind, scope, listed, type, id);
CREATE INDEX IF NOT EXISTS by_status ON resources (kind, scope, listed, status, id);
CREATE INDEX IF NOT EXISTS by_date ON resources (kind, scope, listed, date, id);
CREATE INDEX IF NOT EXISTS by_customer ON resources (kind, scope, listed, customer_id, id);
CREATE UNIQUE INDEX IF NOT EXISTS listed_benefit_names
    ON resources (name COLLATE BINARY) WHERE kind = 'benefits' AND listed = 1;
"""


ORDERED_BY_INDEX = frozenset(
    re.findall(r"ON resources \(kind, scope, listed, (\w+), id\)", _INDEXES)
)
"""The columns a list may be ordered by through an index, with no sort of its own."""


def _statements(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]


class DuplicateId(ValueError):
    """A create named an ID the store already holds for that kind."""


INDEX_BUILD_CACHE_SIZE = -65536
"""SQLite's page cache while the indexes are built after a load (negative: KiB, 64 MiB)."""

CURSOR_SWEEP_EVERY = 1000
"""Expired cursors are swept once per this many new ones."""

_CANONICAL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _text(value: Any) -> str:
    """A filtered column's value: ``""`` for none."""
    return "" if value is None else value if type(value) is str else str(value)


def _stamp(value: Any) -> str | None:
    """An ordered timestamp column's value: sortable, ``NULL`` for none."""
    if value is None:
        return None
    if type(value) is str and _CANONICAL.fullmatch(value):
        return value  # already the wire spelling; parsing it again is the slow part
    return sortable_iso(value)


def _row(kind: str, doc: dict[str, Any], scope: str, listed: bool) -> tuple[Any, ...]:
    """The ``resources`` row of a document (its columns in the order of ``INDEXED``)."""
    get = doc.get
    return (
        kind,
        doc["id"],
        scope,
        int(listed),
        _text(get("name")),
        _text(get("type")),
        _text(get("status")),
        _text(get("customer_id")),
        _stamp(get("created_at")),
        _stamp(get("updated_at")),
        _text(get("date")),
        _body(doc),
    )


def _body(doc: dict[str, Any]) -> str:
    """A document's stored JSON text, compact (what list pages splice in as it is).

    pydantic-core writes it several times faster than ``json.dumps``; text it cannot
    write as UTF-8 (a lone surrogate from an escaped program file) keeps ``json.dumps``'s
    ASCII escapes.
    """
    try:
        return to_json(doc).decode()
    except PydanticSerializationError:
        return json.dumps(doc, separators=(",", ":"))


def _build_indexes(conn: sqlite3.Connection) -> None:
    """Create the indexes, with room for the sort that builds each in memory (the default
    2 MiB spills it to temporary files; about 10% faster), for the build only."""
    cache_size = conn.execute("PRAGMA cache_size").fetchone()[0]
    conn.execute(f"PRAGMA cache_size = {INDEX_BUILD_CACHE_SIZE}")
    try:
        for statement in _statements(_INDEXES):
            conn.execute(statement)
    finally:
        conn.execute(f"PRAGMA cache_size = {int(cache_size)}")


class Store:
    """Documents by kind and ID, with the columns lists need."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or ":memory:"
        self._conn = sqlite3.connect(
            self.path,
            check_same_thread=False,
            isolation_level=None,
            timeout=BUSY_TIMEOUT_SECONDS,
        )
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._cursors_minted = 0
        self._staged: dict[str, str] = {}
        self._staged_lock = threading.Lock()
        with self._lock:
            self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
            self._conn.execute("PRAGMA journal_mode=WAL" if path else "PRAGMA journal_mode=MEMORY")
            self._synchronous = int(self._conn.execute("PRAGMA synchronous").fetchone()[0])
            with self.transaction() as conn:
                for statement in _statements(_TABLES + _INDEXES):
                    conn.execute(statement)

    @property
    def in_memory(self) -> bool:
        """Whether the data lives in memory only: a commit waits for no disk."""
        return self.path == ":memory:"

    @property
    def journal_mode(self) -> str:
        return str(self.query("PRAGMA journal_mode")[0][0])

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
                with self._staged_lock:
                    staged = dict(self._staged)
                self._conn.executemany(_SET_META, staged.items())
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
            with self._staged_lock:
                for key, value in staged.items():
                    if self._staged.get(key) == value:
                        del self._staged[key]

    @contextmanager
    def held_if_free(self) -> Iterator[bool]:
        """Hold the lock if no other thread holds it, without waiting; yields whether held."""
        held = self._lock.acquire(blocking=False)
        try:
            yield held
        finally:
            if held:
                self._lock.release()

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, tuple(params)).fetchall()

    # -- documents ----------------------------------------------------------

    def put(self, kind: str, doc: dict[str, Any], *, scope: str = "", listed: bool = True) -> None:
        """Save a changed document: replace it, or insert it when it is not there yet."""
        with self.transaction() as conn:
            conn.execute(_UPSERT, _row(kind, doc, scope, listed))

    def insert(
        self, kind: str, doc: dict[str, Any], *, scope: str = "", listed: bool = True
    ) -> None:
        """Create one document; ``DuplicateId`` when its ID is taken, nothing overwritten."""
        self.insert_many(kind, [(doc, scope, listed)])

    def insert_many(self, kind: str, docs: Iterable[tuple[dict[str, Any], str, bool]]) -> None:
        """Create ``(doc, scope, listed)`` rows in one transaction; all or none."""
        rows = [_row(kind, doc, scope, listed) for doc, scope, listed in docs]
        whole = len(rows) - len(rows) % ROWS_PER_INSERT
        with self.transaction() as conn:
            try:
                for start in range(0, whole, ROWS_PER_INSERT):
                    batch = rows[start : start + ROWS_PER_INSERT]
                    conn.execute(_INSERT_ROWS, list(chain.from_iterable(batch)))
                conn.executemany(_INSERT, rows[whole:])
            except sqlite3.IntegrityError as exc:
                which = f" {rows[0][1]}" if len(rows) == 1 else ""
                raise DuplicateId(f"{kind}{which}: already exists ({exc})") from None

    def get(self, kind: str, id_: str, *, scope: str | None = None) -> dict[str, Any] | None:
        body = self.get_json(kind, id_, scope=scope)
        return None if body is None else json.loads(body)

    def get_json(
        self, kind: str, id_: str, *, scope: str | None = None, listed: bool = False
    ) -> str | None:
        """A document's stored JSON text, as ``get`` would decode it (``None``: not there;
        ``listed``: nor when its lists leave it out, e.g. a deleted benefit)."""
        sql, params = "SELECT body FROM resources WHERE kind = ? AND id = ?", [kind, id_]
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        if listed:
            sql += " AND listed"
        rows = self.query(sql, params)
        return str(rows[0]["body"]) if rows else None

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

    def cursor_exists(self, token: str) -> bool:
        return self.get_cursor(token) is not None

    def revoke_expired(self, moment: float, moment_iso: str) -> None:
        """Forget tokens and cursors expired at ``moment``: a clock moved back to before
        their expiry must not bring them back."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM tokens WHERE expires_at <= ?", (moment,))
            conn.execute("DELETE FROM cursors WHERE expires_at <= ?", (moment_iso,))

    # -- meta ---------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", [key])
        return str(rows[0]["value"]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute(_SET_META, (key, value))

    def stage_meta(self, key: str, value: str) -> None:
        """Write ``key`` with the next transaction that commits, whichever it is.

        An ID generator stages its position this way: whatever row a new ID goes
        into is written by a later commit, so the position is on disk before the
        ID can be seen, at no extra commit. Safe to call while another thread
        holds the store lock.
        """
        with self._staged_lock:
            self._staged[key] = value

    def save_staged(self, *, flush: bool = True) -> None:
        """Commit what is staged now, in a transaction of its own. ``flush=False``: without
        waiting for the disk (``synchronous = NORMAL`` for this commit only; in WAL mode
        about 50 times faster): it survives the process being killed, not a power cut before
        the next flushed commit."""
        with self._lock:
            relaxed = not flush and not self._conn.in_transaction
            if relaxed:
                self._conn.execute("PRAGMA synchronous = NORMAL")
            try:
                with self.transaction():
                    pass
            finally:
                if relaxed:
                    self._conn.execute(f"PRAGMA synchronous = {self._synchronous}")

    def delete_meta(self, key: str) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM meta WHERE key = ?", (key,))

    def get_cursor(self, token: str) -> sqlite3.Row | None:
        rows = self.query("SELECT * FROM cursors WHERE token = ?", [token])
        return rows[0] if rows else None

    @contextmanager
    def indexes_deferred(self, alongside: Callable[[], object] | None = None) -> Iterator[None]:
        """Bulk loads go faster when the indexes are built once, afterwards.

        All of it happens in one transaction (joined when one is open), so an
        interrupted load leaves the indexes as they were. ``alongside``: work for this
        thread while another builds the indexes (SQLite releases the GIL meanwhile);
        it must not use the store.
        """
        with self.transaction() as conn:
            names = [
                r["name"]
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
                ).fetchall()
            ]
            for name in names:
                conn.execute(f"DROP INDEX {name}")
            yield
            if alongside is None:
                _build_indexes(conn)
                return
            with ThreadPoolExecutor(1, thread_name_prefix="lyt-indexes") as pool:
                built = pool.submit(_build_indexes, conn)
                try:
                    alongside()
                finally:
                    built.result()

    def clear(self) -> None:
        """Forget the data: documents, tokens and cursors (the ID generators' positions stay,
        so no ID is minted twice)."""
        with self.transaction() as conn:
            for table in ("resources", "tokens", "cursors"):
                conn.execute(f"DELETE FROM {table}")

    def close(self) -> None:
        """Commit what is staged (its next commit would have carried it), then close."""
        with self._lock:
            try:
                with self._staged_lock:
                    staged = bool(self._staged)
                if staged:
                    self.save_staged()
            finally:
                self._conn.close()
