"""Plan files bound to their base: ``plan.save(path)``, ``ChangePlan.load(path).apply(...)``.

The file is readable JSON: its format and version, the base snapshot's ``source`` and
``pulled_at``, every change with its call, the rows each call's part is built from, and
for each object the plan touches (a reward, pending bucket or tier structure) the
sha256 of its row in the base (canonical JSON, see ``row_hash``). A benefit create
touches its card definition (the row's hash, when the base holds it) and its name (the
hash of the IDs of the base's benefits holding it, ``names_hash``: none, usually).

A loaded plan applies what it shows: ``load_plan`` makes each change row again from its call
(``change_rows``, as the planner made it) and refuses the first row that differs, and every
touched entry must be an object a call sends. The bytes are read by ``plan_reader``: any
broken key is one ``PlanFileError`` line naming the file and the key.

``apply`` of a loaded plan refuses what it can without sending anything (``check_apply``),
then re-reads exactly the touched objects (``reread_cost``, counted in the summary:
one call per reward, tier structure and card definition, one per 100 pending buckets a
card holding touched ones held in the base (``card_buckets``; every page is read), one
per 10 names of created benefits) and refuses a stale plan, naming each object whose
live row differs from the base and each created benefit's name another benefit took
since (``StalePlanError``); ``refresh=True`` re-plans against the live rows instead. A
plan applied to completion is recorded next to the file (``<file>.applied``, one line a
complete apply, each with the sha256 of the plan file's bytes) and that same plan refuses
to apply again; an interrupted apply resumes from its action log (objects the log saw
done are not stale: the plan changed them).

The record is bound to the plan's content, not its path: a new plan saved over an applied
one (the usual ``plan.save("plan.json")`` after the next pull) applies, while the applied
one, kept or written back, is still refused. Refusing the save instead would make the
analyst delete a marker by hand to reuse a name, and a deleted marker protects nothing;
hashing keeps the protection on what matters (sending the same calls twice) without the
chore. A marker written before the hash was recorded (no ``sha256``) refuses any plan at
that path, naming the marker to delete when the plan is a new one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import pandas as pd

from .._progress import Progress, display
from .._text import counted
from ..errors import APIError, LytError, NotFoundError, QuotaExhaustedError
from ..frames.column_groups import card_definition_check
from ..frames.registry import BUILDERS
from ..inputs import FLAT_COLUMNS
from ..snapshot import ProgramSnapshot
from ..snapshot.clock import utc_now
from .benefits import create_benefits
from .change_plan import CHANGE_COLUMNS, UNSUPPORTED_COLUMNS, ChangePlan
from .change_rows import change_row, first_difference
from .cost import PlanCost
from .deletions import delete_tier_structures
from .items import Outcome, PlanItem, Standing
from .lock import held
from .log import LogSource, LogState, log_state
from .pending import activate_pending_buckets
from .plan import ActionPlan
from .plan_reader import PlanFileError, Reader, read_document, shown
from .rewards import move_rewards_to_draft

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = [
    "COMPLETE",
    "FORMAT",
    "VERSION",
    "PlanAlreadyAppliedError",
    "PlanFileError",
    "SavedPlan",
    "StalePlanError",
    "load_plan",
    "row_hash",
    "save_plan",
]

FORMAT = "lyt-change-plan"
VERSION = 2
"""Version 2 adds the benefit creates' touched card definitions and names; version 1
files (no such entries: their creates are not checked) are still read."""
BUCKETS_PER_PAGE = 100
"""Pending buckets one page of a card's re-read holds (the service's largest page)."""
NAMES_PER_READ = 10
"""Names one benefits listing asks for (a text filter's ``$in`` takes 10 values)."""

# Call -> the builder of its part, in the order a plan runs its parts.
_BUILDERS: dict[str, Callable[[pd.DataFrame], ActionPlan[Any]]] = {
    "create_benefit": create_benefits,
    "move_reward_to_draft": move_rewards_to_draft,
    "activate_pending_bucket": activate_pending_buckets,
    "delete_tier_structure": delete_tier_structures,
}
# Kinds of the objects each call touches: a benefit create, its card definition and its
# name (a "benefits" entry keyed by the name, see ``names_hash``).
_TOUCHES: dict[str, tuple[str, ...]] = {
    "create_benefit": ("card_definitions", "benefits"),
    "move_reward_to_draft": ("rewards",),
    "activate_pending_bucket": ("pending_buckets",),
    "delete_tier_structure": ("tier_structures",),
}
# Columns a snapshot fills from other objects (not the object's own state), left out of
# the hash: a pending bucket's program and member status, a card definition's check.
_CHECKED = tuple(c.name for c in card_definition_check())
_JOINED = {
    "pending_buckets": ("program_status", "member_status", *_CHECKED),
    "card_definitions": ("listed",),  # whether the pull found it listed or by reference
}


class StalePlanError(LytError, RuntimeError):
    """Touched objects whose live state differs from the plan's base; ``stale`` names them."""

    def __init__(self, message: str, stale: list[str]) -> None:
        super().__init__(message)
        self.stale = stale


class PlanAlreadyAppliedError(LytError, RuntimeError):
    """A plan file already applied to completion."""


def row_hash(kind: str, row: pd.DataFrame) -> str:
    """sha256 of a one-row frame's own values as canonical JSON (sorted keys)."""
    return hashlib.sha256(_canonical(kind, row).encode()).hexdigest()


def _canonical(kind: str, row: pd.DataFrame) -> str:
    own = row.drop(columns=[c for c in _JOINED.get(kind, _CHECKED) if c in row.columns])
    [record] = json.loads(own.to_json(orient="records", date_format="iso", date_unit="us"))
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def names_hash(ids: Iterable[str]) -> str:
    """sha256 of the sorted IDs of the benefits holding one name, as JSON."""
    return hashlib.sha256(json.dumps(sorted(map(str, ids))).encode()).hexdigest()


def _is_name(entry: Mapping[str, Any]) -> bool:
    """Whether a touched entry is a created benefit's name (not an object's row)."""
    return entry["call"] == "create_benefit" and entry["kind"] == "benefits"


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """JSON records of ``frame``, blank cells left out."""
    rows = json.loads(frame.to_json(orient="records", date_format="iso", date_unit="us"))
    return [{k: v for k, v in row.items() if v is not None} for row in rows]


def _touched(plan: ChangePlan) -> list[dict[str, Any]]:
    """Kind, key and base-row hash of every object the plan's calls touch."""
    touched = _create_touched(plan)
    for call, (kind,) in ((c, k) for c, k in _TOUCHES.items() if c != "create_benefit"):
        frame = getattr(plan.base, kind).set_index("id", drop=False)
        for key in plan.changes.loc[plan.changes["call"] == call, "key"]:
            row = frame.loc[[key]]
            touched.append({"kind": kind, "key": key, "call": call, "sha256": row_hash(kind, row)})
            if kind == "pending_buckets":  # how many pages the card's re-read walks
                touched[-1]["card_buckets"] = int(
                    (frame["card_id"] == row["card_id"].iloc[0]).sum()
                )
    return touched


def _create_touched(plan: ChangePlan) -> list[dict[str, Any]]:
    """The card definitions the benefit creates need (those the base holds) and their names."""
    rows = plan.inputs.get("create_benefit")
    if rows is None or rows.empty:
        return []
    call = "create_benefit"
    definitions = plan.base.card_definitions.set_index("id", drop=False)
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
    held = plan.base.benefits
    for name in rows["name"].astype(str):
        ids = held.loc[(held["name"] == name).to_numpy(bool, na_value=False), "id"]
        touched.append({"kind": "benefits", "key": name, "call": call, "sha256": names_hash(ids)})
    return touched


def as_saved(plan: ChangePlan, path: str | Path = "") -> SavedPlan:
    """``plan`` as ``load_plan`` reads it once saved at ``path``: what ``lyt plan`` shows,
    its summary and cost counting the re-read ``apply`` sends first (and the budget
    ``plan`` last read, if any)."""
    saved = SavedPlan(
        plan.base,
        plan.changes,
        plan.unsupported,
        plan.parts,
        plan.inputs,
        path=Path(path),
        touched=tuple(_touched(plan)),
    )
    if plan._budget is not None:
        saved._remember(plan._budget)
    return saved


def save_plan(plan: ChangePlan, path: str | Path) -> Path:
    """Write ``plan`` to ``path`` as readable JSON (see the module); the path written."""
    target = Path(path)
    saved = as_saved(plan, target)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "base": {"source": plan.base.source, "pulled_at": plan.base.pulled_at.isoformat()},
        "summary": saved.summary(),
        "changes": _records(plan.changes),
        "unsupported": _records(plan.unsupported),
        "calls": {call: _records(rows) for call, rows in plan.inputs.items()},
        "touched": list(saved.touched),
    }
    target.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


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


def load_plan(path: str | Path) -> SavedPlan:
    """The plan ``save_plan`` wrote to ``path``; every broken key is refused by name, and
    so is a change row that says other than what its call sends."""
    source = Path(path)
    document, raw = read_document(source)
    read = Reader(source)
    if read.get(document, "format", str, "") != FORMAT:
        raise read.fail("format", f"{shown(document['format'])} is not {FORMAT!r}")
    version = read.get(document, "version", int, "")
    if version not in (1, VERSION):
        raise read.fail("version", f"{version!r}: this toolkit reads versions 1 and {VERSION}")
    base = read.get(document, "base", dict, "")
    pulled_at = read.get(base, "pulled_at", str, "base")
    named = read.get(base, "source", str, "base")
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
    _check_touched(read, touched, parts, inputs, version)
    frame = pd.DataFrame(changes, columns=list(CHANGE_COLUMNS))
    return SavedPlan(
        snapshot,
        frame.astype({c: "string" for c in CHANGE_COLUMNS if c != "calls"}).astype(
            {"calls": "int64"}
        ),
        pd.DataFrame(unsupported, columns=list(UNSUPPORTED_COLUMNS)).astype("string"),
        tuple(parts),
        inputs,
        path=source,
        touched=tuple(touched),
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def _parts(
    read: Reader, changes: list[dict[str, Any]], calls: dict[str, Any]
) -> tuple[list[ActionPlan[Any]], dict[str, pd.DataFrame]]:
    """The part of every call and the rows it is built from; each change row must be the
    one its call makes (``change_row``), else the first difference is refused."""
    unknown = sorted(set(calls) - set(_BUILDERS))
    if unknown:
        raise read.fail(
            f"calls.{unknown[0][:40]}", f"not a call a plan makes ({', '.join(_BUILDERS)})"
        )
    for number, change in enumerate(changes):
        if change["call"] not in _BUILDERS:
            raise read.fail(f"changes[{number}].call", f"{shown(change['call'])} is not a call")
    parts, inputs = [], {}
    for call in _BUILDERS:
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
        part = _BUILDERS[call](rows)
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
    version: int,
) -> None:
    """Each touched entry is an object a call sends (a create's card definition or name),
    and every object a call sends has its base hash (a version 1 file's creates excepted)."""
    sent = {part.action: [item.target for item in part.items] for part in parts}
    creates = inputs.get("create_benefit", pd.DataFrame(columns=["card_definition_id"]))
    cards = set(creates.get("card_definition_id", pd.Series(dtype=object)).dropna().map(str))
    for number, entry in enumerate(touched):
        at = f"touched[{number}]"
        kind, key, call = entry["kind"], entry["key"], entry["call"]
        if kind not in _TOUCHES.get(call, ()):
            raise read.fail(at, f"{shown(kind)}/{shown(call)} is not a touched kind/call")
        wanted = cards if kind == "card_definitions" else set(sent.get(call, ()))
        if key not in wanted:
            raise read.fail(at, f"{kind} {shown(key)}: no call of {call} sends it")
        if not re.fullmatch("[0-9a-f]{64}", entry["sha256"]):
            raise read.fail(f"{at}.sha256", f"{shown(entry['sha256'])} is not a sha256")
        held = read.optional(entry, "card_buckets", int, at)
        if held is not None and held < 0:
            raise read.fail(f"{at}.card_buckets", f"{held} is not a count")
    checked = set(_TOUCHES) - ({"create_benefit"} if version == 1 else set())
    hashed = {(t["call"], t["key"]) for t in touched if t["kind"] != "card_definitions"}
    for call in (c for c in _BUILDERS if c in checked):
        for key in sent.get(call, ()):
            if (call, key) not in hashed:
                raise read.fail("touched", f"no base hash for {shown(key)} ({call})")


# -- applying -----------------------------------------------------------------------------


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _one_writer(
    apply: Callable[Concatenate[SavedPlan, _P], _R],
) -> Callable[Concatenate[SavedPlan, _P], _R]:
    """``apply`` holding the plan file's lock throughout: one writer per plan (``lock``)."""

    @functools.wraps(apply)
    def one_writer(plan: SavedPlan, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with held(plan.path, "is being applied"):
            return apply(plan, *args, **kwargs)

    return one_writer


@dataclass(frozen=True, eq=False)
class SavedPlan(ChangePlan):
    """A ``ChangePlan`` read from its file: ``apply`` checks the base first.

    Its ``base`` holds the base's ``source`` and ``pulled_at`` only (no rows): pass the
    snapshot to ``rehearse(snapshot)``.
    """

    path: Path = field(default=Path(), kw_only=True)
    touched: tuple[dict[str, Any], ...] = field(default=(), kw_only=True)
    sha256: str = field(default="", kw_only=True)
    """sha256 of the plan file's bytes as read: what ``<file>.applied`` records."""

    @property
    def applied_marker(self) -> Path:
        """Where a complete apply is recorded: next to the plan file."""
        return self.path.with_name(self.path.name + ".applied")

    def applied_before(self) -> dict[str, Any] | None:
        """The marker's record of an apply to completion of this very plan (its file's
        sha256), else ``None``; a record without a hash (an older toolkit's) counts as
        this plan's: it cannot tell."""
        try:
            lines = self.applied_marker.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return None
        for line in lines:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                record = None
            if not isinstance(record, dict):
                continue
            if record.get("sha256", self.sha256) == self.sha256:
                return record
        return None

    def reread_cost(self, client: LoyaltyClient | None = None) -> PlanCost:
        """The calls re-reading the touched objects takes: one per reward, tier structure
        and card definition, one per page of 100 buckets of a card holding touched pending
        buckets (as many as the card held in the base), one per 10 names of created
        benefits (a name held by over 100 benefits, or a card grown since, costs more);
        with ``client``, one more for a token if it holds none, and the budget it last
        read."""
        return PlanCost.for_client(self._reread_calls(), client)

    def _reread_calls(self) -> int:
        """The calls of the re-read, without a token's (see ``reread_cost``)."""
        pages: dict[tuple[str, ...], int] = {}
        for entry in (t for t in self.touched if not _is_name(t)):
            held = entry.get("card_buckets", 1)  # a card's buckets in the base: its pages
            pages[_read_key(self, entry)] = max(
                pages.get(_read_key(self, entry), 1), -(-held // BUCKETS_PER_PAGE)
            )
        names = sum(1 for t in self.touched if _is_name(t))
        return sum(pages.values()) + -(-names // NAMES_PER_READ)

    def _calls_text(self) -> str:
        """``N calls (R re-reads, then W writes)``: ``apply`` re-reads before it writes."""
        reads, writes = self._reread_calls(), int(self.changes["calls"].sum())
        if not reads:
            return super()._calls_text()
        both = f"{counted(reads, 're-read')}, then {counted(writes, 'write')}"
        return f"{counted(reads + writes, 'call')} ({both})"

    def _needed(self, log: LogSource | None) -> int:
        """The re-read's calls, one read back of each write the ``log`` holds in doubt
        (``own_work``), then the parts' (those the ``log`` saw done left out)."""
        doubtful = sum(len(_doubtful(part, log_state(log, part.action))) for part in self.parts)
        return self._reread_calls() + doubtful + super()._needed(log)

    def check_apply(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None = None,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
        refresh: bool = False,
    ) -> PlanCost:
        """Raise what ``apply`` with these options refuses before the re-read (nothing is
        sent): a plan already applied, deletes without ``allow_destroy``, unsupported
        changes without ``ignore_unsupported`` (``refresh`` checks those of the plan made
        again), a budget that cannot hold the re-read and the writes; else that cost."""
        applied = self.applied_before()
        if applied is not None:
            unbound = "" if "sha256" in applied else "; if this is a new plan, delete that marker"
            raise PlanAlreadyAppliedError(
                f"{self.path} was applied to completion ({self.applied_marker}{unbound});"
                " plan again from a fresh snapshot"
            )
        self._check_options(
            allow_destroy=allow_destroy, ignore_unsupported=ignore_unsupported or refresh
        )
        cost = self.cost(client, log=log)
        if not cost.fits:
            what = f"re-reading the objects {self.path} touches, then the writes"
            raise cost.refusal(what, partial=False)  # apply takes no allow_partial
        return cost

    def live_rows(self, client: LoyaltyClient) -> dict[tuple[str, str], pd.DataFrame | None]:
        """(kind, key) -> the touched object's live row (``None`` when it is gone); for a
        created benefit's name, the live benefits holding it (``id``, ``name``)."""
        buckets: dict[tuple[str, ...], pd.DataFrame] = {}
        rows: dict[tuple[str, str], pd.DataFrame | None] = {}
        named = _benefits_named(client, [t["key"] for t in self.touched if _is_name(t)])
        for entry in self.touched:
            kind, key = entry["kind"], entry["key"]
            if _is_name(entry):
                rows[kind, key] = named[named["name"] == key].reset_index(drop=True)
            elif kind == "pending_buckets":
                card = _read_key(self, entry)
                if card not in buckets:  # every page of the card's buckets, 100 a page
                    buckets[card] = BUILDERS[kind](
                        client.pending_buckets.iter(*card[1:], limit=BUCKETS_PER_PAGE)
                    )
                found = buckets[card][buckets[card]["id"] == key]
                rows[kind, key] = found.reset_index(drop=True) if len(found) else None
            else:
                rows[kind, key] = _get_row(client, kind, key)
        return rows

    def own_work(self, client: LoyaltyClient, log: LogSource | None) -> dict[str, set[str]]:
        """Call -> the targets the plan's own writes made: done in the ``log``, or in doubt
        there (an apply stopped while sending them) and read back done, one read each (a
        benefit's name is unique: one holding it with the plan's settings is the plan's)."""
        own: dict[str, set[str]] = {call: set() for call in _TOUCHES}
        for part in self.parts:
            state = log_state(log, part.action, client)
            own[part.action] = set(state.succeeded)
            doubtful = _doubtful(part, state)
            if doubtful:
                observe = part.observer(client)
                own[part.action] |= {i.target for i in doubtful if _read_done(observe, i)}
        return own

    def stale(self, client: LoyaltyClient, *, log: LogSource | None = None) -> list[str]:
        """Each touched object whose live row differs from the base, as ``kind key``
        (objects the plan's own writes made, ``own_work``, are not staleness)."""
        live = self.live_rows(client)
        done = self.own_work(client, log)
        stale = []
        for entry in self.touched:
            kind, key = entry["kind"], entry["key"]
            row = live[kind, key]
            if key in done[entry["call"]]:
                continue
            if row is None:
                stale.append(f"{kind} {key} (no longer exists)")
            elif _is_name(entry):
                if names_hash(row["id"]) != entry["sha256"]:
                    held = ", ".join(row["id"]) or "no benefit"
                    stale.append(f'benefit name "{key}" (now held by {held}; the plan creates it)')
            elif row_hash(kind, row) != entry["sha256"]:
                stale.append(f"{kind} {key}")
        return stale

    def refreshed(self, client: LoyaltyClient, *, log: LogSource | None = None) -> ChangePlan:
        """The plan made again against the live rows of the touched objects: a change
        already made drops out, one the live state no longer allows is unsupported. What the
        plan's own writes made (``own_work`` of ``log``) is not re-planned: a create stays
        (the log settles it), any other change drops out."""
        live = self.live_rows(client)
        own = self.own_work(client, log)
        frames: dict[str, list[pd.DataFrame]] = {}
        gone = []
        creates = set(self.changes.loc[self.changes["action"] == "create", "key"])
        for_creates = [t for t in self.touched if t["call"] == "create_benefit"]
        for entry in for_creates:
            row = live[entry["kind"], entry["key"]]
            if _is_name(entry) and entry["key"] in own["create_benefit"]:
                continue  # the plan's own create
            if row is None or (_is_name(entry) and names_hash(row["id"]) != entry["sha256"]):
                dropped = _creates_needing(self, entry)
                creates -= dropped
                reason = (
                    f"card definition {entry['key']} is no longer in the live program"
                    if row is None
                    else "a benefit of that name exists in the live program"
                )
                gone += [{"kind": "benefits", "key": name, "reason": reason} for name in dropped]
        made = {(t["kind"], t["key"]) for t in self.touched if t["key"] in own[t["call"]]}
        for (kind, key), row in live.items():
            if any((t["kind"], t["key"]) == (kind, key) for t in for_creates):
                continue  # read for the creates' sake, checked above
            if (kind, key) in made:
                continue  # the plan's own change, made
            if row is None:
                gone.append({"kind": kind, "key": key, "reason": "no longer in the live program"})
            else:
                frames.setdefault(kind, []).append(row)
        now = {kind: pd.concat(rows, ignore_index=True) for kind, rows in frames.items()}
        base = ProgramSnapshot.from_frames(now, source=self.base.source, pulled_at=utc_now())
        target = {kind: frame.copy() for kind, frame in now.items()}
        for change in self.changes.itertuples(index=False):
            kind, key = str(change.kind), str(change.key)
            if kind not in target or change.action == "create":
                continue
            frame = target[kind]
            if change.action == "delete":
                target[kind] = frame[frame["id"] != key]
            else:
                frame.loc[(frame["id"] == key).to_numpy(), str(change.column)] = str(change.after)
        plan = ChangePlan.from_frames(base, target)
        kept = (self.changes["action"] == "create") & self.changes["key"].isin(creates)
        unsupported = [plan.unsupported] + ([pd.DataFrame(gone)] if gone else [])
        parts, inputs = plan.parts, dict(plan.inputs)
        if kept.any():
            rows = self.inputs["create_benefit"]
            inputs["create_benefit"] = rows[rows["name"].isin(creates)].reset_index(drop=True)
            parts = (create_benefits(inputs["create_benefit"]), *parts)
        return ChangePlan(
            base,
            pd.concat([self.changes[kept], plan.changes], ignore_index=True),
            pd.concat(unsupported, ignore_index=True)
            .reindex(columns=list(UNSUPPORTED_COLUMNS))
            .astype("string"),
            parts,
            {call: inputs[call] for call in _BUILDERS if call in inputs},
        )

    @_one_writer
    def apply(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None = None,
        refresh: bool = False,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
        concurrency: int = 8,
        progress: Progress = True,
        cancel: threading.Event | None = None,
    ) -> pd.DataFrame:
        """Check the base, then apply (see ``ChangePlan.apply``, ``cancel`` too); recorded
        once complete.

        Refused before anything is sent: a plan another apply is applying (``LockHeldError``
        naming it: one writer per plan, see ``lock``); then (``check_apply``, before the
        re-read) a plan already applied (``PlanAlreadyAppliedError``), deletes without
        ``allow_destroy``, unsupported changes without ``ignore_unsupported``, a budget that
        cannot hold the re-read and the writes; after the re-read, a stale plan
        (``StalePlanError`` naming each object; ``refresh=True`` re-plans against the live
        state instead). With the ``log`` of an interrupted apply, what the plan's own writes
        made (``own_work``) is neither stale nor sent again.

        ``progress`` as everywhere: ``True`` prints the re-read's cost as a line of text
        where a bar would show (a notebook, a terminal; not with ``LYT_PROGRESS=off``),
        a callable or ``False`` prints nothing.
        """
        self.check_apply(
            client,
            log=log,
            allow_destroy=allow_destroy,
            ignore_unsupported=ignore_unsupported,
            refresh=refresh,
        )
        if progress is True and display() is not None:  # where a bar would show, as text
            reread = self.reread_cost(client)
            print(f"Re-reading {counted(len(self.touched), 'touched object')}: {reread}")
        if refresh:
            plan: ChangePlan = self.refreshed(client, log=log)
        else:
            stale = self.stale(client, log=log)
            if stale:
                raise StalePlanError(
                    f"{self.path} is stale: {counted(len(stale), 'object')} changed since the"
                    f" base was pulled at {self.base.pulled_at.isoformat()}: {', '.join(stale)};"
                    " apply with refresh=True to plan against the live state",
                    stale,
                )
            plan = ChangePlan(self.base, self.changes, self.unsupported, self.parts, self.inputs)
        results = ChangePlan.apply(
            plan,
            client,
            log=log,
            allow_destroy=allow_destroy,
            ignore_unsupported=ignore_unsupported,
            concurrency=concurrency,
            progress=progress,
            cancel=cancel,
        )
        self._remember(PlanCost.for_client(0, client))  # the budget the apply left
        if results["outcome"].isin(COMPLETE).all():
            record = {"applied_at": utc_now().isoformat(), "calls": len(results)}
            with self.applied_marker.open("a", encoding="utf-8") as marker:
                marker.write(json.dumps({**record, "sha256": self.sha256}) + "\n")
        return results


def _doubtful(part: ActionPlan[Any], state: LogState) -> list[Any]:
    """The items of ``part`` the log holds in doubt: sent, perhaps done, never answered."""
    return [
        i
        for i in part.items
        if i.error is None and i.target not in state.succeeded and state.in_doubt(i.target)
    ]


COMPLETE = (Outcome.SUCCEEDED, Outcome.ALREADY_DONE, Outcome.SKIPPED)
"""Outcomes of an item the plan no longer has to send."""


def _read_key(plan: SavedPlan, entry: Mapping[str, Any]) -> tuple[str, ...]:
    """What one re-read call fetches: the object, or for a pending bucket its card."""
    if entry["kind"] != "pending_buckets":
        return (entry["kind"], entry["key"])
    rows = plan.inputs["activate_pending_bucket"]
    row = rows[rows["bucket_id"] == entry["key"]].iloc[0]
    return ("card", str(row["program_id"]), str(row["member_id"]), str(row["card_id"]))


def _creates_needing(plan: SavedPlan, entry: Mapping[str, Any]) -> set[str]:
    """The names of the benefit creates a touched card definition or name is needed by."""
    if _is_name(entry):
        return {entry["key"]}
    rows = plan.inputs["create_benefit"]
    if "card_definition_id" not in rows:
        return set()
    return set(rows.loc[rows["card_definition_id"] == entry["key"], "name"].astype(str))


def _read_done(observe: Callable[[PlanItem[Any]], Standing], item: PlanItem[Any]) -> bool:
    """Whether the service shows ``item`` done (a failed read: not known to be; a spent
    budget is raised, not taken for an answer)."""
    try:
        return observe(item).done is not None
    except QuotaExhaustedError:
        raise
    except APIError:
        return False


def _benefits_named(client: LoyaltyClient, names: list[str]) -> pd.DataFrame:
    """``id`` and ``name`` of every live benefit holding one of ``names`` (10 a listing)."""
    found = [
        (benefit.id, benefit.name)
        for start in range(0, len(names), NAMES_PER_READ)
        for benefit in client.benefits.iter(
            filters={"name": {"$in": names[start : start + NAMES_PER_READ]}}, limit=100
        )
    ]
    return pd.DataFrame(found, columns=["id", "name"], dtype="str")


def _get_row(client: LoyaltyClient, kind: str, key: str) -> pd.DataFrame | None:
    """The live row of one reward, tier structure or card definition; ``None`` when the
    service has none."""
    try:
        if kind == "rewards":
            model: Any = client.rewards.get(key)
        elif kind == "tier_structures":
            model = client.tier_structures.get(key)
        else:
            model = client.card_definitions.get(key)
    except NotFoundError:
        return None
    return BUILDERS[kind]([model])
