"""What a plan touches, as its file records it: for each object a call sends to (a reward,
pending bucket or tier structure) the sha256 of its row in the base (canonical JSON, see
``row_hash``); for a benefit create, its card definition (the row's hash, when the base
holds it) and its name (the hash of the IDs of the base's benefits holding it,
``names_hash``: none, usually)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import LytError
from ..frames.column_groups import card_definition_check
from ..snapshot import ProgramSnapshot

__all__ = [
    "TOUCHES",
    "StalePlanError",
    "Touched",
    "creates_needing",
    "is_name",
    "names_hash",
    "row_hash",
    "row_hashes",
    "rows_hashed",
    "touched_objects",
]

Touched = dict[str, Any]
"""One entry: ``kind``, ``key``, ``call``, ``sha256`` (and a pending bucket's
``card_buckets``: how many buckets its card held in the base)."""

TOUCHES: dict[str, tuple[str, ...]] = {
    "create_benefit": ("card_definitions", "benefits"),
    "move_reward_to_draft": ("rewards",),
    "activate_pending_bucket": ("pending_buckets",),
    "delete_tier_structure": ("tier_structures",),
}
"""Call -> the kinds of the objects it touches: a benefit create, its card definition and
its name (a ``benefits`` entry keyed by the name, see ``names_hash``)."""


class StalePlanError(LytError, RuntimeError):
    """Touched objects whose live state differs from the plan's base; ``stale`` names them
    (raised by ``staleness``, and by the re-read of a card grown past its count).
    ``replanned``: the plan file a stale apply wrote, re-planned from the rows it read, for
    review (None: none written), and ``replanned_sha256`` its file's sha256."""

    def __init__(
        self,
        message: str,
        stale: list[str],
        replanned: Path | None = None,
        replanned_sha256: str | None = None,
    ) -> None:
        super().__init__(message)
        self.stale = stale
        self.replanned = replanned
        self.replanned_sha256 = replanned_sha256


# Columns a snapshot fills from other objects (not the object's own state), left out of
# the hash: a pending bucket's program and member status (and, in a sample, its member's
# weight), a card definition's check.
_CHECKED = tuple(c.name for c in card_definition_check())
_JOINED = {
    "pending_buckets": ("program_status", "member_status", "weight", *_CHECKED),
    "card_definitions": ("listed",),  # whether the pull found it listed or by reference
}


def row_hash(kind: str, row: pd.DataFrame) -> str:
    """sha256 of a one-row frame's own values as canonical JSON (sorted keys)."""
    [sha256] = row_hashes(kind, row)
    return sha256


def row_hashes(kind: str, rows: pd.DataFrame) -> list[str]:
    """``row_hash`` of each row of ``rows``, in order, the frame converted once."""
    own = rows.drop(columns=[c for c in _JOINED.get(kind, _CHECKED) if c in rows.columns])
    records = json.loads(own.to_json(orient="records", date_format="iso", date_unit="us"))
    return [
        hashlib.sha256(
            json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        ).hexdigest()
        for record in records
    ]


def rows_hashed(rows: Iterable[tuple[str, pd.DataFrame]]) -> list[str]:
    """``row_hash`` of each (kind, one-row frame) of ``rows``, in order: the rows of one kind,
    columns and dtypes (the JSON of a value depends on its dtype) converted together."""
    rows = list(rows)
    groups: dict[tuple[Any, ...], list[int]] = {}
    hashes = [""] * len(rows)
    for at, (kind, row) in enumerate(rows):
        if len(row) != 1:  # refused as row_hash refuses it
            hashes[at] = row_hash(kind, row)
            continue
        groups.setdefault((kind, tuple(row.columns), tuple(row.dtypes)), []).append(at)
    for (kind, *_), ats in groups.items():
        frame = pd.concat([rows[at][1] for at in ats], ignore_index=True)
        for at, sha256 in zip(ats, row_hashes(kind, frame), strict=True):
            hashes[at] = sha256
    return hashes


def names_hash(ids: Iterable[str]) -> str:
    """sha256 of the sorted IDs of the benefits holding one name, as JSON."""
    return hashlib.sha256(json.dumps(sorted(map(str, ids))).encode()).hexdigest()


def is_name(entry: Mapping[str, Any]) -> bool:
    """Whether a touched entry is a created benefit's name (not an object's row)."""
    return entry["call"] == "create_benefit" and entry["kind"] == "benefits"


def touched_objects(
    base: ProgramSnapshot, changes: pd.DataFrame, inputs: Mapping[str, pd.DataFrame]
) -> list[Touched]:
    """Kind, key and base-row hash of every object the calls of ``changes`` touch
    (``inputs``: the rows each call's part is built from)."""
    touched = _create_touched(base, inputs.get("create_benefit"))
    for call, (kind,) in ((c, k) for c, k in TOUCHES.items() if c != "create_benefit"):
        keys = list(changes.loc[changes["call"] == call, "key"])
        if not keys:
            continue
        frame = getattr(base, kind).set_index("id", drop=False)
        if not frame.index.is_unique:  # each key's rows hashed alone: one row each, or refused
            rows = [frame.loc[[key]] for key in keys]
            hashes = [row_hash(kind, row) for row in rows]
            cards = [row["card_id"].iloc[0] for row in rows] if kind == "pending_buckets" else []
        else:  # all at once: a plan of thousands took a minute, a frame conversion per row
            picked = frame.loc[keys]
            hashes = row_hashes(kind, picked)
            cards = list(picked["card_id"]) if kind == "pending_buckets" else []
        # a bucket's: how many pages its card's re-read walks
        held = frame["card_id"].value_counts() if cards else None
        for at, (key, sha256) in enumerate(zip(keys, hashes, strict=True)):
            entry: Touched = {"kind": kind, "key": key, "call": call, "sha256": sha256}
            if held is not None:
                entry["card_buckets"] = int(held.get(cards[at], 0))
            touched.append(entry)
    return touched


def _create_touched(base: ProgramSnapshot, rows: pd.DataFrame | None) -> list[Touched]:
    """The card definitions the benefit creates need (those the base holds) and their names."""
    if rows is None or rows.empty:
        return []
    call = "create_benefit"
    definitions = base.card_definitions.set_index("id", drop=False)
    cards = rows["card_definition_id"].dropna() if "card_definition_id" in rows else ()
    touched = [
        {
            "kind": "card_definitions",
            "key": card,
            "call": call,
            "sha256": row_hash("card_definitions", definitions.loc[[card]]),
        }
        for card in dict.fromkeys(map(str, cards))
        if card in definitions.index
    ]
    held: dict[str, list[str]] = {}  # grouped once: a mask a name cost a plan of 400 a second
    named = base.benefits[base.benefits["name"].notna()]
    for name, id_ in zip(named["name"].tolist(), named["id"].tolist(), strict=True):
        held.setdefault(name, []).append(id_)
    for name in rows["name"].astype(str):
        touched.append(
            {
                "kind": "benefits",
                "key": name,
                "call": call,
                "sha256": names_hash(held.get(name, [])),
            }
        )
    return touched


def creates_needing(entry: Mapping[str, Any], creates: pd.DataFrame) -> set[str]:
    """The names of the benefit creates (``creates``: their rows) a touched card definition
    or name is needed by."""
    if is_name(entry):
        return {entry["key"]}
    if "card_definition_id" not in creates:
        return set()
    return set(creates.loc[creates["card_definition_id"] == entry["key"], "name"].astype(str))
