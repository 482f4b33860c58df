"""Re-planning a saved plan against the live rows of what it touches (``refresh=True``).

Each saved change is read against its object's live row in typed values: the change row's
``after`` as the live column's schema type (``frames.parse.typed_value``), the live value as
its ``before``. A change already made drops out; the rest go to the ``Planner`` as the diff
rows a comparison would give, so one the live state no longer allows is unsupported with
the planner's reason. No frame is edited, wrapped into a snapshot or compared again.

An object the service keeps in status DELETED is gone as one it no longer answers is: the
change unsupported with that reason, not planned (a tier structure someone else deleted: its
delete "already DELETED", which sent would be answered 404 and read back). So is the
activation of a pending bucket whose date the service's clock (``now``) reached, in a
refresh (``logged``): refused for good (a date once reached stays so), sent it was a 423 and
a read back, two calls for nothing; one blocked by what the live rows do not hold (its
member's or program's status) is planned, as the service makes it once that is put right. A
file for review keeps it, marked blocked (``blocked_reason``), as any plan does.

A benefit create stays as saved unless its card definition went (or is DELETED) or a
benefit took its name since (then it is unsupported); what the plan's own writes made (an
interrupted apply's log, ``reread.own_work``) is not re-planned: any change drops out, and
a create stays when the plan made again is applied with that log (a refresh: the log
settles it), else it drops out too (a file for review, applied with a log of its own, would
send it again). ``live`` may lack an object whose every write the log shows done
(``reread.left_to_read``): it is not re-read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pandas as pd

from ..frames.parse import typed_value
from ..snapshot import ProgramSnapshot
from .benefits import create_benefits
from .change_planner import UNSUPPORTED_COLUMNS, Planned, Planner
from .change_rows import CALL_KINDS
from .reread import LiveRows, date_reached, deleted_words, gone_words, id_positions
from .touched import Touched, creates_needing, is_name, names_hash, rows_hashed

__all__ = ["DIFF_COLUMNS", "Replannable", "live_changes", "replanned", "touched_again"]

ACTIVATE = "activate_pending_bucket"
"""The call activating a pending bucket."""

DIFF_COLUMNS = ("kind", "key", "change", "column", "before", "after")
"""The columns of the diff rows the ``Planner`` reads (``SnapshotDiff.changes``')."""


class Replannable(Protocol):
    """What re-planning reads of a saved plan (a ``SavedPlan`` is one)."""

    @property
    def base(self) -> ProgramSnapshot: ...
    @property
    def changes(self) -> pd.DataFrame: ...
    @property
    def inputs(self) -> Mapping[str, pd.DataFrame]: ...
    @property
    def touched(self) -> tuple[Touched, ...]: ...


def replanned(
    saved: Replannable,
    live: LiveRows,
    own: Mapping[str, set[str]],
    now: pd.Timestamp,
    *,
    logged: bool = True,
    dated: bool = True,
) -> tuple[ProgramSnapshot, Planned]:
    """The base of the ``live`` rows (the saved base's ``source``, pulled ``now``: the
    service's clock, by which its pending buckets are judged) and the plan of the ``saved``
    changes made again against it, what ``own`` holds (the plan's own writes) left out; its
    own creates kept for the log to settle while ``logged`` (applied with the plan's log),
    else left out too. While ``logged`` (a refresh, not a file for review, which keeps it
    marked blocked as any plan whose base shows it so), an activation whose bucket's date
    ``now`` reached is unsupported, unless not ``dated`` (``now`` this machine's clock, not
    known to be the service's: it is planned, as the service may still activate it; see the
    module)."""
    for_creates = [t for t in saved.touched if t["call"] == "create_benefit"]
    creates, gone = _creates_left(saved, live, own)
    if not logged:
        creates -= own["create_benefit"]  # made: another log would not know it
    made = {(t["kind"], t["key"]) for t in saved.touched if t["key"] in own[t["call"]]}
    skipped = made | {(t["kind"], t["key"]) for t in for_creates}
    calls = {(t["kind"], t["key"]): t["call"] for t in saved.touched}
    today = now.date()
    by_date = dated and logged  # a file for review keeps it, marked, as any plan its base blocks
    frames: dict[str, list[pd.DataFrame]] = {}
    for (kind, key), row in live.items():
        if (kind, key) in skipped:
            continue  # the plan's own change, made; or read for the creates' sake
        if row is None:
            reason = gone_words(kind, "no longer in the live program")
            gone.append({"kind": kind, "key": key, "reason": reason})
        elif deleted := deleted_words(kind, row, calls.get((kind, key), "")):
            # kept by the service, but gone: its delete done, no call changes it
            gone.append({"kind": kind, "key": key, "reason": f"{deleted} in the live program"})
        elif (
            by_date and calls.get((kind, key)) == ACTIVATE and (reached := date_reached(row, today))
        ):
            # listed, but the service refuses its activation for good: not sent (a 423, then
            # its read back: two calls for nothing)
            gone.append({"kind": kind, "key": key, "reason": reached})
        else:
            frames.setdefault(kind, []).append(row)
    rows = {kind: pd.concat(found, ignore_index=True) for kind, found in frames.items()}
    base = ProgramSnapshot.from_frames(rows, source=saved.base.source, pulled_at=now)
    planned = Planner(base, {}).plan(live_changes(saved.changes, rows), {})
    return base, _with_creates(planned, saved, creates, gone)


def touched_again(saved: Replannable, live: LiveRows, planned: Planned) -> list[Touched]:
    """The touched entries of the ``planned`` plan (``replanned``'s) as a file of it keeps
    them: the ``saved`` entries of each object it still sends (a kept create's card
    definition and name), hashed as ``live`` holds them now; a card's ``card_buckets`` as
    the saved plan counted it (its re-read just read the card in those pages)."""
    sent = {part.action: {str(item.target) for item in part.items} for part in planned.parts}
    creates = planned.inputs.get("create_benefit", pd.DataFrame(columns=["card_definition_id"]))
    cards = set(creates.get("card_definition_id", pd.Series(dtype=object)).dropna().map(str))
    kept: list[tuple[Touched, pd.DataFrame]] = []
    for entry in saved.touched:
        kind, key, call = entry["kind"], entry["key"], entry["call"]
        wanted = cards if kind == "card_definitions" else sent.get(call, set())
        row = live.get((kind, key))
        if key in wanted and row is not None:
            kept.append((entry, row))
    rows = [(entry["kind"], row) for entry, row in kept if not is_name(entry)]
    hashes = iter(rows_hashed(rows))  # not one at a time: in the order of the rows kept
    return [
        {**entry, "sha256": names_hash(row["id"]) if is_name(entry) else next(hashes)}
        for entry, row in kept
    ]


def live_changes(changes: pd.DataFrame, live: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The diff rows (``DIFF_COLUMNS``) from the ``live`` frames to what the saved change
    rows (not creates) make, in typed values; a change the live row already shows, or
    whose object ``live`` lacks, gives none."""
    rows: list[tuple[Any, ...]] = []
    positions: dict[str, dict[str, list[int]]] = {}  # each live frame's IDs' positions
    columns: dict[tuple[str, str], pd.Series] = {}  # each taken from its frame once
    for change in changes.itertuples(index=False):
        kind, key = str(change.kind), str(change.key)
        frame = live.get(kind)
        if change.action == "create" or frame is None:
            continue
        if kind not in positions:
            positions[kind] = id_positions(frame["id"])
        at = positions[kind].get(key)
        if not at:
            continue
        if change.action == "delete":
            rows.append((kind, key, "removed", None, None, None))
            continue
        column = str(change.column)
        if (kind, column) not in columns:
            columns[kind, column] = frame[column]
        values = columns[kind, column]
        before = typed_value(values.iloc[at[0]], values.dtype)
        after = typed_value(change.after, values.dtype)
        if before != after:
            rows.append((kind, key, "changed", column, before, after))
    return pd.DataFrame(rows, columns=list(DIFF_COLUMNS), dtype=object)


def _creates_left(
    saved: Replannable, live: LiveRows, own: Mapping[str, set[str]]
) -> tuple[set[str], list[dict[str, Any]]]:
    """The names of the saved creates still to make, and a row (``kind``, ``key``,
    ``reason``) for each one dropped: its card definition went (or is DELETED), or its name
    was taken."""
    changes, rows = saved.changes, saved.inputs.get("create_benefit", pd.DataFrame())
    creates = set(changes.loc[changes["action"] == "create", "key"])
    gone: list[dict[str, Any]] = []
    for entry in (t for t in saved.touched if t["call"] == "create_benefit"):
        if is_name(entry) and entry["key"] in own["create_benefit"]:
            continue  # the plan's own create
        if (entry["kind"], entry["key"]) not in live:
            continue  # not re-read: every create needing it is done (``left_to_read``)
        reason = _creates_dropped(entry, live[entry["kind"], entry["key"]])
        if reason:
            dropped = creates_needing(entry, rows)
            creates -= dropped
            gone += [{"kind": "benefits", "key": name, "reason": reason} for name in dropped]
    return creates, gone


def _creates_dropped(entry: Touched, row: pd.DataFrame | None) -> str:
    """Why the creates needing ``entry`` (their card definition, a name) drop out, by its live
    ``row``: the card definition gone or DELETED, the name taken; "" while they stand."""
    if row is None:
        return f"card definition {entry['key']} is no longer in the live program"
    if is_name(entry):
        taken = names_hash(row["id"]) != entry["sha256"]
        return "a benefit of that name exists in the live program" if taken else ""
    deleted = deleted_words(entry["kind"], row, entry["call"])
    return f"card definition {entry['key']} is {deleted} in the live program" if deleted else ""


def _with_creates(
    planned: Planned, saved: Replannable, creates: set[str], gone: list[dict[str, Any]]
) -> Planned:
    """``planned`` with the saved creates still to make first and the ``gone`` rows
    unsupported."""
    changes, inputs = saved.changes, saved.inputs
    kept = (changes["action"] == "create") & changes["key"].isin(creates)
    parts, made = planned.parts, dict(planned.inputs)
    if kept.any():
        rows = inputs["create_benefit"]
        made["create_benefit"] = rows[rows["name"].isin(creates)].reset_index(drop=True)
        parts = (create_benefits(made["create_benefit"]), *parts)
    unsupported = [planned.unsupported] + ([pd.DataFrame(gone)] if gone else [])
    return Planned(
        pd.concat([changes[kept], planned.changes], ignore_index=True),
        pd.concat(unsupported, ignore_index=True)
        .reindex(columns=list(UNSUPPORTED_COLUMNS))
        .astype("string"),
        parts,
        {call: made[call] for call in CALL_KINDS if call in made},
    )
