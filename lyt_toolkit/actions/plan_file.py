"""The plan file's format: ``save_plan`` writes a plan bound to its base, ``read_plan``
reads it back, refusing what it cannot trust.

The file is readable JSON: its format and version, the base snapshot's ``source`` and
``pulled_at`` (and a sampled base's ``sample``, as text), the summary (``plan_summary``:
the plan's counts and calls, no budget: that is the live service's, not the plan's), every
change with its call, the rows each call's part is built from, and the objects the plan
touches with their base hashes (``touched``). A plan a stale apply re-planned for review
holds the mark of the re-read it was made from (``read``: ``quiet.ReadMark``), inside what
its sha256 binds.

A read plan applies what it shows: ``read_plan`` makes each change row again from its call
(``change_rows``, as the planner made it) and refuses the first row that differs, every
touched entry must be an object a call sends, the summary must be the one its rows make
(one an older toolkit saved may count the writes alone, or end with the budget it read
then), and a version 1 file may not create benefits. The bytes are read by ``plan_reader``:
any broken key is one ``PlanFileError`` line naming the file and the key. Whether they are
the bytes a reviewer approved is ``reviewed``'s check, at apply.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import pandas as pd

from .._json_file import clipped
from .._text import counted
from .._write import replacing
from ..inputs import FLAT_COLUMNS
from ..snapshot import ProgramSnapshot
from .benefits import create_benefits
from .change_planner import CHANGE_COLUMNS, UNSUPPORTED_COLUMNS
from .change_rows import change_row, first_difference, refused_keys
from .deletions import delete_tier_structures
from .ledger import COMPLETE, PlanAlreadyAppliedError  # importable here, as before
from .pending import activate_pending_buckets
from .plan import ActionPlan
from .plan_reader import PlanFileError, Reader, read_document, shown
from .plan_text import calls_text, marked_calls_text, summary_line
from .quiet import ReadMark
from .reread import reread_calls
from .rewards import move_rewards_to_draft
from .staleness import StalePlanError  # importable here, as before
from .touched import TOUCHES, Touched, row_hash

__all__ = [
    "COMPLETE",
    "FORMAT",
    "VERSION",
    "PlanAlreadyAppliedError",
    "PlanDocument",
    "PlanFileError",
    "Savable",
    "StalePlanError",
    "plan_summary",
    "read_plan",
    "row_hash",
    "save_plan",
    "write_plan",
]

FORMAT = "lyt-change-plan"
VERSION = 2
"""Version 2 adds the benefit creates' touched card definitions and names; a version 1
file is still read unless it creates benefits (it has no such entries, so its creates
could not be checked: plan again)."""

BUILDERS: dict[str, Callable[[pd.DataFrame], ActionPlan[Any]]] = {
    "create_benefit": create_benefits,
    "move_reward_to_draft": move_rewards_to_draft,
    "activate_pending_bucket": activate_pending_buckets,
    "delete_tier_structure": delete_tier_structures,
}
"""Call -> the builder of its part, in the order a plan runs its parts."""


class Savable(Protocol):
    """What ``save_plan`` writes: a ``SavedPlan`` (the plan and what it touches)."""

    @property
    def base(self) -> ProgramSnapshot: ...
    @property
    def changes(self) -> pd.DataFrame: ...
    @property
    def unsupported(self) -> pd.DataFrame: ...
    @property
    def inputs(self) -> Mapping[str, pd.DataFrame]: ...
    @property
    def touched(self) -> tuple[Touched, ...]: ...
    @property
    def base_sample(self) -> str | None: ...


class PlanDocument(NamedTuple):
    """What ``read_plan`` found: a ``ChangePlan``'s fields (its ``base`` holds the base's
    ``source`` and ``pulled_at`` only), the ``touched`` entries and the file's ``sha256``."""

    base: ProgramSnapshot
    changes: pd.DataFrame
    unsupported: pd.DataFrame
    parts: tuple[ActionPlan[Any], ...]
    inputs: dict[str, pd.DataFrame]
    touched: tuple[Touched, ...]
    sha256: str
    sample: str | None = None
    """The sample the base was drawn by, as text (``base.sample``; None: a full base)."""
    read: ReadMark | None = None
    """The re-read a stale apply re-planned the file from (None: planned from a snapshot)."""


def save_plan(saved: Savable, path: str | Path, *, read: ReadMark | None = None) -> Path:
    """Write ``saved`` to ``path`` as readable JSON (see the module), with the mark of the
    re-read it was re-planned from (``read``); the path written. The file is written whole
    beside ``path`` and renamed onto it: a reader never sees half a plan, and a symbolic
    link at ``path`` is replaced, its target untouched (a reviewed plan it names stays as
    reviewed)."""
    target = Path(path)
    write_plan(saved, target, read=read)
    return target


def write_plan(saved: Savable, target: Path, *, read: ReadMark | None = None) -> str:
    """``save_plan``'s write; the sha256 of the bytes written (not of the file read back,
    which another process could have replaced since)."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "base": {
            "source": saved.base.source,
            "pulled_at": saved.base.pulled_at.isoformat(),
            **({} if saved.base_sample is None else {"sample": saved.base_sample}),
        },
        "summary": plan_summary(
            saved.changes, saved.unsupported, saved.touched, saved.inputs, marked=read is not None
        ),
        "changes": _records(saved.changes),
        "unsupported": _records(saved.unsupported),
        "calls": {call: _records(rows) for call, rows in saved.inputs.items()},
        "touched": list(saved.touched),
        **({} if read is None else {"read": _read_record(read)}),
    }
    data = (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()
    with replacing(target) as written:  # a link at ``target`` is replaced, never written through
        written.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def plan_summary(
    changes: pd.DataFrame,
    unsupported: pd.DataFrame,
    touched: Iterable[Touched],
    inputs: Mapping[str, pd.DataFrame],
    *,
    listed: bool = True,
    refusals: bool = True,
    marked: bool = False,
) -> str:
    """The summary a plan file holds: what ``SavedPlan.summary()`` says of it, its calls
    counting the re-read and the read back of each write the base shows refused
    (``refused_keys``), without a budget (``listed=False``: as a toolkit that re-read each
    reward on its own counted it; ``refusals=False``: as one that counted no read back); of a
    plan re-planned by a stale apply from the rows it read (``marked``: the file holds that
    read's mark), the re-read said as sent only should the service show a call since
    (``marked_calls_text``)."""
    reads = reread_calls(touched, inputs, listed=listed)
    return _summary(changes, unsupported, reads, refusals=refusals, marked=marked)


def _summary(
    changes: pd.DataFrame,
    unsupported: pd.DataFrame,
    reads: int,
    *,
    refusals: bool,
    marked: bool = False,
) -> str:
    """``plan_summary``'s line, its re-read's ``reads`` counted already."""
    writes = int(changes["calls"].sum())
    refused = sum(map(len, refused_keys(changes).values())) if refusals else 0
    calls = (marked_calls_text if marked else calls_text)(reads, writes, refused)
    return summary_line(changes, unsupported, calls, None)


def _read_record(read: ReadMark) -> dict[str, Any]:
    """``read`` as the file keeps it."""
    return {
        "window_ends": read.window_ends.isoformat(),
        "remaining": read.remaining,
        "today": read.today.isoformat(),
    }


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """JSON records of ``frame``, blank cells left out."""
    rows = json.loads(frame.to_json(orient="records", date_format="iso", date_unit="us"))
    return [{k: v for k, v in row.items() if v is not None} for row in rows]


# -- reading ------------------------------------------------------------------------------

_COLUMNS: dict[str, tuple[str, ...]] = {
    "create_benefit": FLAT_COLUMNS,
    "move_reward_to_draft": ("id", "name", "status"),
    "activate_pending_bucket": ("bucket_id", "program_id", "member_id", "card_id"),
    "delete_tier_structure": ("id", "name"),
}
"""Call -> the columns of the rows it is built from (what ``save_plan`` writes)."""
_SHOWN = ("column", "before", "after", "blocked_reason")
"""Keys of a change row that are text or null (older files lack ``blocked_reason``)."""
_BUDGET = re.compile(
    r", (budget unknown|[0-9]+ left in this window"
    r"( \([0-9]+ at the plan's share, [0-9.e+-]+\))?(; [0-9]+ calls? short)?)"
)
"""The budget an older toolkit ended a file's summary with (``summary_line``'s words, its
figures without separators: ``_plain``)."""
_SEPARATOR = re.compile(r"(?<=[0-9]),(?=[0-9]{3}(?![0-9]))")
"""A thousands separator (``1,200``): a summary's figures have them since 0.5.0."""


def _plain(summary: str) -> str:
    """``summary`` with its figures' thousands separators taken out, as a toolkit before
    0.5.0 wrote them (``1200 to create``)."""
    return _SEPARATOR.sub("", summary)


def read_plan(path: str | Path) -> PlanDocument:
    """What ``save_plan`` wrote to ``path``; every broken key is refused by name, and so
    is a change row that says other than what its call sends, a summary other than the
    rows make, and a version 1 file creating benefits."""
    source = Path(path)
    document, raw = read_document(source)
    read = Reader(source)
    if read.get(document, "format", str, "") != FORMAT:
        raise read.fail("format", f"{shown(document['format'])} is not {FORMAT!r}")
    version = read.get(document, "version", int, "")
    if version not in (1, VERSION):
        raise read.fail("version", f"{version!r}: this toolkit reads versions 1 and {VERSION}")
    summary = read.get(document, "summary", str, "")
    base = read.get(document, "base", dict, "")
    pulled_at = read.get(base, "pulled_at", str, "base")
    named = read.get(base, "source", str, "base")
    sample = read.get(base, "sample", str, "base") if "sample" in base else None
    try:
        snapshot = ProgramSnapshot.from_frames({}, source=named, pulled_at=pd.Timestamp(pulled_at))
    except (ValueError, TypeError, OverflowError):
        raise read.fail("base.pulled_at", f"{shown(pulled_at)} is not a date and time") from None
    changes = read.records(document, "changes", ("kind", "key", "action", "call"), _SHOWN)
    for number, change in enumerate(changes):
        read.get(change, "calls", int, f"changes[{number}]")
    unsupported = read.records(
        document, "unsupported", ("kind", "key", "reason"), ("column", "before", "after")
    )
    touched = read.records(document, "touched", ("kind", "key", "call", "sha256"))
    parts, inputs = _parts(read, changes, read.get(document, "calls", dict, ""))
    if version == 1 and "create_benefit" in inputs:  # relabelled, it would skip their check
        raise read.fail(
            "version",
            "1: a version 1 file holds no base hashes of its benefit creates"
            " (calls.create_benefit), so their staleness cannot be checked; plan again"
            f" (this toolkit saves version {VERSION})",
        )
    _check_touched(read, touched, parts, inputs)
    frame = _frame(changes, CHANGE_COLUMNS, calls="int64")
    dropped = _frame(unsupported, UNSUPPORTED_COLUMNS)
    _check_summary(read, summary, frame, dropped, touched, inputs, marked="read" in document)
    mark = _read_mark(read, document) if "read" in document else None
    return PlanDocument(
        snapshot,
        frame,
        dropped,
        tuple(parts),
        inputs,
        tuple(touched),
        hashlib.sha256(raw).hexdigest(),
        sample,
        mark,
    )


def _frame(rows: list[dict[str, Any]], columns: tuple[str, ...], **dtypes: Any) -> pd.DataFrame:
    """``rows`` (their ``columns``; a key missing is missing) as a frame of text columns, those
    named in ``dtypes`` of theirs: built a column at a time (a frame of objects cast to text
    costs some 5 ms)."""
    data = {
        c: pd.array([row.get(c) for row in rows], dtype=dtypes.get(c, "string")) for c in columns
    }
    return pd.DataFrame(data, columns=list(columns))


def _read_mark(read: Reader, document: Mapping[str, Any]) -> ReadMark:
    """The ``read`` key of a re-planned file; a broken one is refused by name."""
    held = read.get(document, "read", dict, "")
    ends = read.get(held, "window_ends", str, "read")
    remaining = read.get(held, "remaining", int, "read")
    today = read.get(held, "today", str, "read")
    try:
        instant = dt.datetime.fromisoformat(ends)
    except ValueError:
        raise read.fail("read.window_ends", f"{shown(ends)} is not a date and time") from None
    try:
        day = dt.date.fromisoformat(today)
    except ValueError:
        raise read.fail("read.today", f"{shown(today)} is not a date") from None
    if instant.tzinfo is None or remaining < 0:
        raise read.fail("read", "not a window's end (with its offset) and a count of calls")
    return ReadMark(instant, remaining, day)


def _check_summary(
    read: Reader,
    summary: str,
    changes: pd.DataFrame,
    unsupported: pd.DataFrame,
    touched: list[Touched],
    inputs: Mapping[str, pd.DataFrame],
    *,
    marked: bool = False,
) -> None:
    """Refuse a ``summary`` that is not the one the plan's rows make (``plan_summary``, of a
    ``marked`` plan too); an older toolkit's (its calls the writes alone, or a re-read of a
    call a reward, or no read back of a refused write, a budget after it, or of a ``marked``
    plan the re-read counted as sent) is read. The re-read is counted once
    a way of counting it (rewards listed or not), the older way only for a file whose summary
    is not the one this toolkit writes (each count walks every touched entry)."""
    reads: dict[bool, int] = {}

    def said(listed: bool, refusals: bool) -> str:
        if listed not in reads:
            reads[listed] = reread_calls(touched, inputs, listed=listed)
        return _summary(changes, unsupported, reads[listed], refusals=refusals)

    unmarked = said(listed=True, refusals=True)  # a marked plan's as an older toolkit wrote it
    made = (
        _summary(changes, unsupported, reads[True], refusals=True, marked=True)
        if marked
        else unmarked
    )
    if summary in (made, unmarked):
        return
    older = (said(*way) for way in ((False, True), (True, False), (False, False)))  # lazily
    writes = summary_line(changes, unsupported, counted(int(changes["calls"].sum()), "call"), None)
    plain = _plain(summary)  # an older toolkit's figures had no separators
    for line in map(_plain, itertools.chain((made, unmarked), older, (writes,))):
        if plain == line or (plain.startswith(line) and _BUDGET.fullmatch(plain[len(line) :])):
            return
    raise read.fail(
        "summary",
        f"{shown(summary, 200)}, but the plan's rows make {made!r}: the file was changed"
        " after it was saved; plan again",
    )


def _parts(
    read: Reader, changes: list[dict[str, Any]], calls: dict[str, Any]
) -> tuple[list[ActionPlan[Any]], dict[str, pd.DataFrame]]:
    """The part of every call and the rows it is built from; each change row must be the
    one its call makes (``change_row``), else the first difference is refused."""
    unknown = sorted(set(calls) - set(BUILDERS))
    if unknown:
        raise read.fail(
            f"calls.{clipped(unknown[0], 40)}", f"not a call a plan makes ({', '.join(BUILDERS)})"
        )
    for number, change in enumerate(changes):
        if change["call"] not in BUILDERS:
            raise read.fail(f"changes[{number}].call", f"{shown(change['call'])} is not a call")
    parts, inputs = [], {}
    for call in BUILDERS:
        shown_rows = [(n, c) for n, c in enumerate(changes) if c["call"] == call]
        rows = calls.get(call, [])
        if not isinstance(rows, list) or len(rows) != len(shown_rows):
            wanted = counted(len(shown_rows), "row")
            raise read.fail(f"calls.{call}", f"expected a list of the {wanted} its changes name")
        if not rows:
            continue
        read.cells(rows, f"calls.{call}", _COLUMNS[call])
        inputs[call] = pd.DataFrame(rows, dtype=object)  # numbers as written: no float64
        parts.append(_part(read, call, inputs[call]))
        _check_shown(read, shown_rows, parts[-1], rows)
    return parts, inputs


def _check_shown(
    read: Reader,
    shown_rows: list[tuple[int, dict[str, Any]]],
    part: ActionPlan[Any],
    rows: list[dict[str, Any]],
) -> None:
    """Refuse the first change row (numbered in ``changes``) that is not the row its item
    of ``part`` (built from ``rows``) makes."""
    call = part.action
    for index, ((number, change), item) in enumerate(zip(shown_rows, part.items, strict=True)):
        made = change_row(call, item.target, rows[index])
        column = first_difference(change, made)
        if column is not None:
            raise read.fail(
                f"changes[{number}].{column}",
                f"{shown(change.get(column))}, but calls.{call}[{index}] sends"
                f" {shown(made[column])}: the file was changed after it was saved (or saved"
                " by a toolkit that showed less of a create); plan again",
            )


def _part(read: Reader, call: str, rows: pd.DataFrame) -> ActionPlan[Any]:
    """The part of ``call`` built from ``rows``; a row it cannot build is named."""
    try:
        part = BUILDERS[call](rows)
    except (KeyError, TypeError, ValueError) as exc:
        raise read.fail(f"calls.{call}", f"its rows do not make a plan: {shown(exc)}") from None
    for number, item in enumerate(part.items):
        if item.error:
            raise read.fail(f"calls.{call}[{number}]", item.error)
    return part


def _check_touched(
    read: Reader,
    touched: list[dict[str, Any]],
    parts: list[ActionPlan[Any]],
    inputs: Mapping[str, pd.DataFrame],
) -> None:
    """Each touched entry is an object a call sends (a create's card definition or name),
    given once, and every object a call sends has its base hash."""
    sent = {part.action: dict.fromkeys(item.target for item in part.items) for part in parts}
    creates = inputs.get("create_benefit", pd.DataFrame(columns=["card_definition_id"]))
    cards = set(creates.get("card_definition_id", pd.Series(dtype=object)).dropna().map(str))
    seen: dict[tuple[str, str, str], int] = {}
    for number, entry in enumerate(touched):
        at = f"touched[{number}]"
        kind, key, call = entry["kind"], entry["key"], entry["call"]
        first = seen.setdefault((kind, key, call), number)
        if first != number:  # one object, one base hash: a second could differ
            raise read.fail(at, f"{kind} {shown(key)} ({call}) is touched[{first}] again")
        if kind not in TOUCHES.get(call, ()):
            raise read.fail(at, f"{shown(kind)}/{shown(call)} is not a touched kind/call")
        wanted = cards if kind == "card_definitions" else sent.get(call, {})
        if key not in wanted:
            raise read.fail(at, f"{kind} {shown(key)}: no call of {call} sends it")
        if not re.fullmatch("[0-9a-f]{64}", entry["sha256"]):
            raise read.fail(f"{at}.sha256", f"{shown(entry['sha256'])} is not a sha256")
        held = read.optional(entry, "card_buckets", int, at)
        if held is None:
            entry.pop("card_buckets", None)  # null reads as missing, as everywhere in a plan
        elif held < 0:
            raise read.fail(f"{at}.card_buckets", f"{held} is not a count")
    hashed = {(t["call"], t["key"]) for t in touched if t["kind"] != "card_definitions"}
    for call in BUILDERS:
        for key in sent.get(call, ()):
            if (call, key) not in hashed:
                raise read.fail("touched", f"no base hash for {shown(key)} ({call})")
