"""The live state of one sandbox, reachable from every request handler."""

from __future__ import annotations

import json
import random
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from .clock import Clock, IdGenerator, iso
from .clock_seen import CLOCK_SEEN, UnreadableClock, clock_seen
from .config import DEMO_PROGRAM, SandboxConfig
from .faults import Faults
from .loader import (
    ProgramFileError,
    collector_paused,
    load_program,
    program_now,
    relist_buckets,
)
from .store import Store

LOAD_COMPLETE = "load_complete"
"""Meta key written in the same transaction as a program load: present means finished."""

INSTANCE = "instance"
"""Meta key: the name of this state, made afresh with every program load (a new database, a
reset) and kept with the database, so a ``--db`` file served again is the same instance and
a fresh start on the same program and seed is not (an action log tells them apart)."""


class IncompleteDatabase(RuntimeError):
    """A ``--db`` file holds data but no finished program load; it is never served."""


class StoredIds:
    """An ``IdGenerator`` whose position is kept in the store, so none repeats on restart.

    The seed and the count of IDs drawn are staged with every new ID and land in
    the database with the commit that stores it. A restarted sandbox rebuilds the
    generator from them; a fresh database with the same seed gives the same IDs.
    ``taken`` (when given) skips values already in use.
    """

    def __init__(
        self,
        store: Store,
        key: str,
        seed: int | None,
        *,
        taken: Callable[[str], bool] | None = None,
    ) -> None:
        saved = store.get_meta(key)
        drawn = 0
        if saved is not None:
            position = json.loads(saved)
            seed, drawn = int(position["seed"]), int(position["drawn"])
        elif seed is None:
            seed = random.SystemRandom().getrandbits(64)
        self._store, self._key, self._seed, self._taken = store, key, seed, taken
        self._ids = IdGenerator(seed, skip=drawn)
        self._lock = threading.Lock()

    def new(self, prefix: str) -> str:
        while True:
            with self._lock:
                value = self._ids.new(prefix)
                # json.dumps({"seed": ..., "drawn": ...})'s text, without its encoder
                position = f'{{"seed": {self._seed}, "drawn": {self._ids.drawn}}}'
                self._store.stage_meta(self._key, position)
            if self._taken is None or not self._taken(value):
                return value

    def token(self) -> str:
        return self._ids.token()


@dataclass
class SandboxState:
    """Store, clock, ID generators and the faults in force; ``instance`` names the state
    (``INSTANCE``)."""

    config: SandboxConfig
    store: Store
    clock: Clock
    ids: StoredIds
    cursor_ids: StoredIds
    faults: Faults = field(default_factory=Faults)
    program: dict[str, Any] = field(default_factory=dict)
    instance: str = ""

    @classmethod
    def create(
        cls, config: SandboxConfig, *, alongside: Callable[[], object] | None = None
    ) -> SandboxState:
        """A sandbox over ``config.db``: a database file whose program load finished is
        resumed as it was left, its clock too unless ``config.now`` is given; an empty one
        is loaded afresh; any other is refused.

        ``alongside``: work for this thread while the load's indexes are built on another
        (``Store.indexes_deferred``); not called when nothing is loaded."""
        program = load_program_source(config.data)
        if not isinstance(program, dict):
            raise ProgramFileError("must hold a JSON object")
        store = Store(config.db)
        try:
            finished = store.get_meta(LOAD_COMPLETE) is not None
            if not finished and store.size():
                raise IncompleteDatabase(
                    f"--db {config.db}: the program load into this database never finished"
                    " (interrupted, or written by an older lyt); delete the file to start afresh"
                )
            seed = config.seed
            state = cls(
                config=config,
                store=store,
                clock=_starting_clock(config, program, store if finished else None),
                ids=StoredIds(store, "ids", seed),
                cursor_ids=StoredIds(
                    store,
                    "cursor_ids",
                    None if seed is None else seed + 1,
                    taken=store.cursor_exists,
                ),
                program=program,
            )
            if not finished:
                state.reload(alongside)
            else:  # listed as this build lists, whichever build loaded it
                relist_buckets(store)
                state.instance = store.get_meta(INSTANCE) or state._new_instance()
            state._forget_expired_before_restart()
        except BaseException:
            store.close()
            raise
        return state

    def reload(self, alongside: Callable[[], object] | None = None) -> None:
        """Drop the data and load the program again at the current clock: one transaction,
        so a load cut short leaves the database as it was, its ``instance`` too; a load
        that finishes is a new instance. ``alongside``: as for ``create``."""
        with self.store.transaction():
            self.store.clear()
            self.store.delete_meta(LOAD_COMPLETE)
            with self.store.indexes_deferred(alongside):
                load_program(self.store, self.program, self.clock.now())
            self.store.set_meta(LOAD_COMPLETE, self.now_iso())
            instance = self._new_instance()
        self.instance = instance

    def _new_instance(self) -> str:
        """A new name for this state, written to the store (``INSTANCE``): 16 random hex
        digits, whatever the seed (two loads of one program with one seed are two states)."""
        instance = secrets.token_hex(8)
        self.store.set_meta(INSTANCE, instance)
        return instance

    def set_clock(self, moment: datetime) -> datetime:
        """Move the clock; tokens and cursors expired at the old time stay expired."""
        before = self.clock.now()
        after = self.clock.set(moment)
        if after < before:
            self.store.revoke_expired(before.timestamp(), iso(before))
        self._write_clock()
        return after

    def advance_clock(self, seconds: float) -> datetime:
        after = self.clock.advance(seconds)
        self._write_clock()
        return after

    def note_clock(self) -> None:
        """Record what the clock shows now (and, when it runs, its offset from wall time)
        with the next commit."""
        now = self.clock.now()
        offset = None if self.clock.is_fixed else (now - datetime.now(UTC)).total_seconds()
        record = {"seen": now.timestamp(), "at": now.isoformat(), "offset": offset}
        self.store.stage_meta(CLOCK_SEEN, json.dumps(record))

    def _write_clock(self) -> None:
        with self.store.transaction():
            self.note_clock()

    def _forget_expired_before_restart(self) -> None:
        """A restart on an earlier clock (``--now``, the program's ``now``) treats the last
        run's clock as having kept going: what had expired by then stays expired."""
        try:
            saved = clock_seen(self.store)
        except UnreadableClock:
            if self.config.now is None:
                raise
            saved = None  # --now sets the clock afresh: the row is written again below
        if saved is not None:
            seen = saved.last_seen()
            if self.clock.now().timestamp() < seen:
                moment = datetime.fromtimestamp(seen, UTC)
                self.store.revoke_expired(seen, iso(moment))
        self._write_clock()

    def now_iso(self) -> str:
        return iso(self.clock.now())


def _starting_clock(config: SandboxConfig, program: dict[str, Any], resumed: Store | None) -> Clock:
    """``now`` when given; else, on a database being ``resumed``, the clock as the last run
    left it (``CLOCK_SEEN``: fixed at its instant, or running at its offset), so a restart
    neither moves it back nor gives back the calls of its window; else the program's ``now``
    (a running clock without one). A row not one this sandbox wrote raises
    ``UnreadableClock``."""
    saved = None if config.now is not None or resumed is None else clock_seen(resumed)
    if saved is None:
        return Clock(config.now or program_now(program))
    return saved.clock()


def load_program_source(data: Any) -> dict[str, Any]:
    """The program dict from a path, a dict, or the bundled demo when ``None``.

    The file is parsed in native code: pydantic-core's parser gives the values ``json``
    gives (integers of any size, ``NaN``, the last of repeated keys) about twice as fast,
    and faster still caching only the keys' strings (the values' are mostly distinct).
    A file it refuses (a lone surrogate's escape, nesting too deep, not JSON, not UTF-8)
    is read and parsed as always, so ``json`` parses it or raises its own error.
    """
    if isinstance(data, dict):
        return data
    source = Path(data) if data is not None else DEMO_PROGRAM
    with collector_paused():
        try:
            program: dict[str, Any] = from_json(source.read_bytes(), cache_strings="keys")
        except ValueError:
            program = json.loads(source.read_text(encoding="utf-8"))
        return program
