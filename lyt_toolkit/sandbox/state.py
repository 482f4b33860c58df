"""The live state of one sandbox, reachable from every request handler."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import Request

from .clock import Clock, IdGenerator, iso
from .config import DEMO_PROGRAM, SandboxConfig
from .faults import Faults
from .loader import load_program
from .store import Store


@dataclass
class SandboxState:
    """Store, clock, ID generators and the faults in force."""

    config: SandboxConfig
    store: Store
    clock: Clock
    ids: IdGenerator
    cursor_ids: IdGenerator
    faults: Faults = field(default_factory=Faults)
    program: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, config: SandboxConfig) -> SandboxState:
        """A sandbox over ``config.db``: a database file that already holds a program
        is resumed as it was left; otherwise the program is loaded afresh."""
        program = load_program_source(config.data)
        store = Store(config.db)
        stored = store.size()
        seed = config.seed
        if seed is not None and stored:
            # Resumed data: the same seed must not mint the IDs it minted last time.
            seed = seed * 1_000_003 + stored
        state = cls(
            config=config,
            store=store,
            clock=Clock(config.now or program.get("now")),
            ids=IdGenerator(seed),
            cursor_ids=IdGenerator(None if seed is None else seed + 1),
            program=program,
        )
        if not stored:
            state.reload()
        return state

    def reload(self) -> None:
        """Drop everything and load the program again at the current clock."""
        self.store.clear()
        with self.store.indexes_deferred():
            load_program(self.store, self.program, self.clock.now())

    def now_iso(self) -> str:
        return iso(self.clock.now())


def load_program_source(data: Any) -> dict[str, Any]:
    """The program dict from a path, a dict, or the bundled demo when ``None``."""
    if isinstance(data, dict):
        return data
    path = Path(data) if data is not None else DEMO_PROGRAM
    return json.loads(path.read_text(encoding="utf-8"))


def get_state(request: Request) -> SandboxState:
    """FastAPI dependency: the state of the app serving this request."""
    return request.app.state.sandbox
