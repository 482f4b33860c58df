"""The writes a ``refresh=True`` apply is known to drop before it sends a call: those the
plan made again from the rows kept beside its log alone (``kept_reads``: a stale refusal's,
a paced re-read stopped part way) no longer sends, already made or no longer allowed
(``replan``). A refresh's cost leaves out their calls: it sends none of them.

Only a write whose every object the kept rows answer is judged; one needing an object they
do not hold (a reward, a created benefit's name: listings, never kept), or held in doubt by
the log (a read back settles it), is counted as sent: the cost before the re-read cannot
know it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pandas as pd

from ..frames.registry import BUILDERS
from .change_rows import refused_keys
from .chunked import to_send
from .kept_reads import KeptReads
from .kept_replan import KeptReplan, Made, kept_key
from .log import LogSource, log_state
from .plan import ActionPlan
from .replan import Replannable, replanned
from .reread import LiveRows, ReadKeys, doubtful, id_positions, needed_by, rows_at
from .touched import TOUCHES, Touched, is_name

__all__ = ["dropped_as_kept"]


def dropped_as_kept(
    saved: Replannable,
    parts: tuple[ActionPlan[Any], ...],
    log: LogSource | None,
    left: list[Touched],
    kept: KeptReads,
    now: pd.Timestamp,
    replans: KeptReplan | None = None,
    *,
    dated: bool = True,
) -> int:
    """The calls a refresh's cost counts (its ``_needed``) for the writes of ``parts`` the
    plan made again from the rows ``kept`` holds of the objects ``left`` to read (its
    clock ``now``) drops: a write, the read back of one the base shows refused, and the
    second call of one the ``log`` shows refused for good (sent again, read back). No call
    is sent: the objects read are those ``kept`` holds fresh. ``replans`` holds the plan
    made again for the apply that follows on the same rows (``kept_replan``). Not ``dated``
    (``now`` this machine's clock, the service's not known yet), a bucket whose date it
    reached is counted as sent (``replan``), and the plan is not held for the apply."""
    kept.expire()  # in memory only: a row too old is read again, its writes counted
    read_key = ReadKeys(saved.inputs)
    answered = [
        entry
        for entry in left
        if not is_name(entry) and entry["kind"] != "rewards" and read_key(entry) in kept.held
    ]
    if not answered:
        return 0
    read = {(entry["kind"], entry["key"]) for entry in answered}  # each a row, or None
    states = {part.action: log_state(log, part.action) for part in parts}
    own: dict[str, set[str]] = {call: set() for call in TOUCHES}
    own |= {call: set(state.succeeded) for call, state in states.items()}
    key = (
        None
        if replans is None or not dated
        else kept_key(parts, saved.inputs, log, left, kept, now)
    )

    def replan() -> Made:  # the rows typed only to make the plan: a plan held needs none
        return replanned(saved, _kept_rows(answered, read_key, kept), own, now, dated=dated)

    _, planned = (replans or KeptReplan()).made(key, replan)
    still = {part.action: {str(item.target) for item in part.items} for part in planned.parts}
    blocked = refused_keys(saved.changes)
    calls = 0
    for part in parts:
        if part.action == "create_benefit":
            continue  # a create needs its name's listing, never kept
        state = states[part.action]
        in_doubt = {str(item.target) for item in doubtful(part, state)}
        for index in to_send(part, state, reconsidered=True):
            target = str(part.items[index].target)
            if target in in_doubt or target in still.get(part.action, set()):
                continue
            if not _all_read(saved.touched, saved.inputs, part.action, target, read):
                continue
            again = target in state.refused
            calls += 2 if again else 1 + (target in blocked.get(part.action, ()))
    return calls


def _all_read(
    touched: tuple[Touched, ...],
    inputs: Any,
    call: str,
    target: str,
    read: Collection[tuple[str, str]],
) -> bool:
    """Whether every object the write of ``call`` to ``target`` needs is among ``read``."""
    needs = needed_by(touched, inputs, call, {target})
    return bool(needs) and all((entry["kind"], entry["key"]) in read for entry in needs)


def _kept_rows(touched: list[Touched], read_key: ReadKeys, kept: KeptReads) -> LiveRows:
    """The live rows of ``touched`` as ``kept`` holds them (``reread.live_rows``' answer,
    its every read kept): every card's buckets typed in one frame, not a frame a card (800
    cards' frames took seconds, a re-plan's cost of what a cost counts)."""
    cards = {read_key(entry) for entry in touched if entry["kind"] == "pending_buckets"}
    models = [model for card in cards for model in kept.held[card]]
    buckets = BUILDERS["pending_buckets"](models)
    at = id_positions(buckets["id"])
    rows: LiveRows = {}
    for entry in touched:
        kind, key = entry["kind"], entry["key"]
        if kind == "pending_buckets":
            found = at.get(key)
            rows[kind, key] = rows_at(buckets, found) if found else None
        else:
            held = kept.held[read_key(entry)]
            rows[kind, key] = BUILDERS[kind](held) if held else None
    return rows
