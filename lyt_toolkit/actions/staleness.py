"""Whether a saved plan is stale: each touched object whose live row (``reread``) differs
from its base hash (``touched``), or whose created name another benefit took since, and
each pending bucket the plan activates whose date the service's clock has reached since
(its row unchanged, the service now refuses it: 423). Objects the plan's own writes made
(an interrupted apply) are not staleness."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from .._text import counted, figure
from .reread import LiveRows, date_reached, deleted_words, gone_words
from .touched import StalePlanError, Touched, is_name, names_hash, rows_hashed

__all__ = [
    "NAMED_AT_MOST",
    "ChunkStop",
    "Replanned",
    "StalePlanError",
    "stale_error",
    "stale_objects",
]

NAMED_AT_MOST = 10
"""Stale objects a refusal names, one a line; the rest are counted (``StalePlanError.stale``
holds all)."""


def stale_objects(
    touched: Iterable[Touched],
    live: LiveRows,
    own: Mapping[str, set[str]],
    *,
    today: dt.date | None = None,
    activatable: Collection[str] = (),
) -> list[str]:
    """Each touched object whose ``live`` row differs from the base, as ``kind key`` (with
    why, when gone: e.g. ``(already DELETED)``, a tier structure the plan deletes; those
    ``own`` holds for their call, the plan's own writes, left out), and each of the
    ``activatable`` pending buckets (those the plan showed the service would activate)
    whose date is not after the service's ``today`` any more."""
    touched = [entry for entry in touched if entry["key"] not in own[entry["call"]]]
    rows = {(e["kind"], e["key"]): live[e["kind"], e["key"]] for e in touched if not is_name(e)}
    found = {at: row for at, row in rows.items() if row is not None}
    hashed = rows_hashed((kind, row) for (kind, _), row in found.items())  # not one at a time
    hashes = dict(zip(found, hashed, strict=True))
    stale = []
    for entry in touched:
        kind, key = entry["kind"], entry["key"]
        row = live[kind, key]
        if row is None:
            stale.append(f"{kind} {key} ({gone_words(kind, 'no longer exists')})")
        elif is_name(entry):
            if names_hash(row["id"]) != entry["sha256"]:
                held = ", ".join(row["id"]) or "no benefit"
                stale.append(f'benefit name "{key}" (now held by {held}; the plan creates it)')
        elif hashes[kind, key] != entry["sha256"]:
            deleted = deleted_words(kind, row, entry["call"])
            stale.append(f"{kind} {key} ({deleted})" if deleted else f"{kind} {key}")
        elif today is not None and kind == "pending_buckets" and key in activatable:
            reached = date_reached(row, today)
            if reached is not None:
                stale.append(f"{kind} {key} ({reached})")
    return stale


def stale_error(
    path: Path,
    pulled_at: pd.Timestamp,
    stale: list[str],
    replanned: Replanned | None = None,
    *,
    chunk: ChunkStop | None = None,
    unreviewed: str = "",
) -> StalePlanError:
    """The refusal of the plan file at ``path`` (its base pulled at ``pulled_at``), naming the
    first ``NAMED_AT_MOST`` stale objects, one a line, and counting the others, then the file
    ``replanned`` from the rows the re-read found, if one was written, with the command
    applying it, on a line of its own, else ``unreviewed``: why none (empty: nothing said);
    for a paced apply that checks each chunk of writes before it sends it, the ``chunk`` it
    stopped at: the writes its log holds and, with no file for review, why none, and each
    way on with its calls, a line each."""
    named = "".join(f"\n  {entry}" for entry in stale[:NAMED_AT_MOST])
    if len(stale) > NAMED_AT_MOST:
        named += (
            f"\n  and {figure(len(stale) - NAMED_AT_MOST)} more (the error's stale lists them all)"
        )
    then = "apply with refresh=True to plan against the live state"
    if chunk is not None:
        then = "apply with refresh=True and the same log to plan the rest against the live state"
    if replanned is not None and replanned.unsupported:  # else refused again after its read
        then = (
            "apply with refresh=True and ignore_unsupported=True to plan against the live"
            f" state, where {counted(replanned.unsupported, 'change')} can no longer be made"
        )
    if replanned is not None:
        made = (
            f" (without the {counted(replanned.made, 'write')} of the plan's own already made)"
            if replanned.made
            else ""
        )
        then = (
            f"the plan made again from the rows just read{made} is saved in {replanned.path}:"
            f" review it, then apply exactly it (it reads nothing again while the service"
            f" shows no call of the project since) with\n  {replanned.command}\n(then verify"
            f" {path} against its base as before: lyt verify reads that file's log too)\nor {then}"
        )
    elif unreviewed and chunk is None:
        then = f"no plan made again was saved for review: {unreviewed};\n{then}"
    if chunk is not None:
        then = f"{chunk.held()}; {then}" if replanned is not None else chunk.ways(then)
    return StalePlanError(
        f"{path} is stale: {counted(len(stale), 'object')} changed since the"
        f" base was pulled at {pulled_at.isoformat()}:{named}\n{then}",
        stale,
        None if replanned is None else replanned.path,
        None if replanned is None else replanned.sha256,
    )


class ChunkStop(NamedTuple):
    """Where a paced apply checked as it writes (``chunked``) found a chunk stale: the
    plan's ``written`` writes its log holds; ``unreviewed``, why no plan made again was saved
    for review (empty: one was); the calls of each way on: running again (``again``: the
    chunk's re-read, read afresh), and ``refresh=True`` (``refresh`` in all, its
    ``refresh_reads`` re-reads, each chunk's just before its writes)."""

    written: int
    unreviewed: str = ""
    again: int = 0
    refresh: int = 0
    refresh_reads: int = 0

    def held(self) -> str:
        """What the log holds of the plan's writes, and that none was sent after."""
        if not self.written:
            return "found before the next chunk of writes was sent: no write of the plan is made"
        return (
            "found before the next chunk of writes was sent: the log holds the plan's"
            f" {counted(self.written, 'write')} made before, each checked just before it was"
            " sent, and none was sent after"
        )

    def ways(self, refresh: str) -> str:
        """What the log holds, why no plan for review was saved, then each way on with its
        calls, a line each, the last ``refresh`` (what applies with ``refresh=True``)."""
        # the rows kept: read by this run or, some, by an earlier one stopped part way
        reads = (
            "its re-read answered by the rows kept beside the log, no call"
            if not self.refresh_reads
            else f"{counted(self.refresh_reads, 'call')} of them re-reading the objects left,"
            " each chunk's just before its writes"
        )
        return (
            f"{self.held()}.\nNo plan made again was saved for review: {self.unreviewed}."
            " Ways on, each with its calls:\n"
            f"  put right what changed, then run again: {counted(self.again, 'call')} to re-read"
            " this chunk's objects afresh, then the rest as planned, chunk by chunk;\n"
            "  plan again from a fresh pull, review that plan and apply it bound to its sha256:"
            " the pull's calls (counted before it reads), then that plan's re-read and writes;\n"
            f"  {refresh}, unreviewed: {counted(self.refresh, 'call')}, {reads}"
        )


class Replanned(NamedTuple):
    """A plan a stale apply re-planned and saved for review: its file, sha256, the
    ``lyt apply`` command applying exactly it, its changes the service cannot make, and the
    writes of the plan's own already made (``own_work``: left out of it)."""

    path: Path
    sha256: str
    command: str
    unsupported: int = 0
    made: int = 0
