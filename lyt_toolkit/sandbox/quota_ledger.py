"""Where a ``--db`` sandbox keeps its call budget between runs: one ``meta`` row.

The row holds the plan in force, the plan the sandbox was started with, and the counts of
the current window and billing cycle. Every counted call stages it (``Store.stage_meta``),
so the next commit of the data carries it at no cost of its own; a call that makes
``SAVE_EVERY`` counted since the budget last committed the row is answered only once it has
committed it (``Budget.save``, not waiting for the disk: a killed process does not undo it,
a power cut may), a plan put in force is committed at once, and stopping the sandbox commits
what is staged. A kill -9 thus loses at most ``SAVE_EVERY - 1`` of the calls answered; a
stop loses none. Committing the row with every call, waiting for the disk, about doubled
the time of a call; this way costs nothing measurable (docs/explanation/budgets.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .store import Store

BUDGET_KEY = "budget"
"""The ``meta`` key of the row."""

SAVE_EVERY = 10
"""Counted calls between the budget's own commits (made without waiting for the disk)."""


class UnreadableBudget(ValueError):
    """The budget row of a ``--db`` file is not one this sandbox wrote."""


@dataclass(frozen=True)
class Counts:
    """A budget as it stood: ``plan`` in force, the plan the sandbox ``started_with``, the
    window starting at ``window_start`` having counted ``window_used`` calls, the billing
    cycle starting at ``cycle_start`` (epoch seconds; ``None`` before the first call)
    having counted ``cycle_used``."""

    plan: str
    started_with: str
    window_start: int
    window_used: int
    cycle_start: int | None
    cycle_used: int


_TYPES: dict[str, Any] = {
    "plan": str,
    "started_with": str,
    "window_start": int,
    "window_used": int,
    "cycle_start": (int, type(None)),
    "cycle_used": int,
}


def _counts(text: str) -> Counts:
    """The ``Counts`` a row holds; ``UnreadableBudget`` naming the first field amiss."""
    try:
        record = json.loads(text)
    except ValueError:
        raise UnreadableBudget("not JSON") from None
    if not isinstance(record, dict):
        raise UnreadableBudget("not a JSON object")
    for name, kind in _TYPES.items():
        value = record.get(name)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise UnreadableBudget(f"{name}: missing or of the wrong type")
        if isinstance(value, int) and value < 0:
            raise UnreadableBudget(f"{name}: must not be negative")
    return Counts(**{name: record[name] for name in _TYPES})


class Ledger:
    """The budget row of one store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def saved(self) -> Counts | None:
        """What the last run left (``None``: nothing); ``UnreadableBudget`` naming the
        database and the field when the row is not one a sandbox wrote."""
        text = self._store.get_meta(BUDGET_KEY)
        if text is None:
            return None
        try:
            return _counts(text)
        except UnreadableBudget as exc:
            raise self.unreadable(str(exc)) from None

    def unreadable(self, problem: str) -> UnreadableBudget:
        """The error for a row with ``problem``, naming the database."""
        return UnreadableBudget(
            f"--db {self._store.path}: its call budget (meta {BUDGET_KEY!r}) is unreadable:"
            f" {problem}; delete that row, or the file, to start afresh"
        )

    def stage(self, counts: Counts) -> None:
        """Write ``counts`` with the store's next commit. Safe to call under any lock."""
        self._store.stage_meta(BUDGET_KEY, json.dumps(vars(counts)))  # asdict: 5 times slower

    def commit(self, *, flush: bool = True) -> None:
        """Commit what is staged now; ``flush=False``: without waiting for the disk
        (``Store.save_staged``)."""
        self._store.save_staged(flush=flush)
