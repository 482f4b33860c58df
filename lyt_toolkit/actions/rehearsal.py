"""Rehearsing a plan on a copy of production, then checking that production did the same.

``plan.rehearse(snapshot)`` starts a sandbox holding the snapshot (its clock at the
snapshot's ``pulled_at``, the sandbox's own credentials, a fixed ID seed), executes
the plan there with the options the real run will use, reads the sandbox again and
stops it. The ``Rehearsal`` keeps frames only: the results, the diff from the
snapshot to the rehearsed state, and the number of requests the run sent.

The sandbox changes nothing by itself but the activations it settles, so the read after the
run walks every list whole but reads again only the member trees (cards, pending buckets)
the run's requests wrote to (``written``: their paths name the members) or a plan's
``seed_rehearsal`` changed, copying the others' from the snapshot (``fill.repull``): frame
for frame what a full pull of the sandbox gives, for a few hundred calls instead of one per
member. A write naming no member, other than those known to leave every member tree as it
was, has every member read again.

After the real run, ``rehearsal.verify(after)`` lines the production diff (the
same snapshot to ``after``) up against the rehearsed one, change by change.
Objects the plan creates get new IDs in each place, so added rows of kinds with
a name are matched by name, and their service-generated fields (``id``,
``created_at``, ``updated_at``) are left out of the comparison.

The service lists a card's PENDING buckets only, and a pull reads a card's list only while
the card holds pending points. So a PENDING bucket that a pull after the run no longer
lists, its card read, is compared as no longer PENDING, which matches the same bucket seen
``ACTIVATED`` on the other side (a snapshot written before the sandbox listed as the
service does); a bucket not PENDING before that went unlisted has not changed. The card's
lifetime count of canceled pending points (``lifetime_pending_canceled``, read with the
card: no extra call) tells a canceled bucket from an activated one: unchanged, none was
canceled; risen, the buckets whose points make up the rise (when only one set of them
does) are ``CANCELED``, and when no one set does, each is reported as either.

A plan may need more in the sandbox than the snapshot holds: each plan's
``seed_rehearsal(program, at)`` adds it to the rehearsal's program file. Webhooks are
not part of a snapshot (the program frames do not list them), so a rehearsal of
webhook deletions adds each targeted webhook, in a project whose plan has webhooks;
its results and calls show the run, and ``verify(..., results=...)`` compares the
outcomes item by item, each change naming the outcome of the item writing to its row.

This module knows a plan only as a ``Rehearsed`` (what it reads of one), never a plan
kind: ``ActionPlan`` imports it, and no import goes back (pyproject.toml's contract).
"""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from pathlib import Path
from typing import Any, Protocol

import httpx
import pandas as pd

from .._progress import Progress
from .._text import counted, joined, tally
from ..client import LoyaltyClient
from ..errors import RehearsalSnapshotError
from ..fill.repull import repull
from ..frames.schema import Column, Schema, text
from ..snapshot import ProgramSnapshot, SnapshotDiff, read_snapshot
from ..snapshot.diff import KEY_SEPARATOR, MEMBER_KINDS
from .log import OWNER, RECONSIDERED, ActionLog, LogOwner, LogSource
from .written import WrittenMembers

__all__ = [
    "CHECKS",
    "GENERATED",
    "REHEARSAL_SEED",
    "STATUSES",
    "Rehearsal",
    "Rehearsed",
    "Verification",
    "rehearse",
    "rehearse_run",
    "sampled_base_line",
    "sampled_refusal",
]

REHEARSAL_SEED = 0
"""The ID seed of every rehearsal sandbox, so a rehearsal run one item at a time
mints the same IDs each time."""

GENERATED = ("id", "created_at", "updated_at")
"""Fields of a created row that the service generates: never compared."""

_UNLISTED = "not PENDING (no longer listed)"
"""The status of a PENDING bucket a pull no longer lists, its card read: as rehearsed against
``ACTIVATED``."""

_CANCELED = "CANCELED (no longer listed: its card's canceled pending points rose by its points)"
"""The status of such a bucket when the rise of its card's canceled pending points is made up
of its points (with those of the other buckets so canceled)."""

_UNSURE = "ACTIVATED or CANCELED (no longer listed: its card's canceled pending points rose)"
"""The status of such a bucket when its card's canceled pending points rose by an amount that
no one set of the card's unlisted buckets makes up."""

_MOST_SPLIT = 12
"""The most unlisted buckets of one card whose sets are tried against the rise (2**12 sets)."""

STATUSES = ("as rehearsed", "missing", "unexpected", "different")
"""Values of the ``status`` column of ``Verification.checks``."""

OUTCOME = "outcome"
"""The ``change`` and ``column`` of a check comparing one item's outcome."""

CHECKS = Schema(
    "verification",
    "One row per change the rehearsal or production made: what the rehearsal expected "
    "against what production did.",
    (
        text("kind", "frame kind of the changed row, or the plan's action for an outcome"),
        text("key", "the row's key (a created row: its name), or the item's target"),
        text("change", "added, removed, changed, or outcome"),
        text(
            "column",
            "the changed column (NA for an added or removed row; for a row created otherwise"
            " than rehearsed, the fields that differ)",
        ),
        text("expected", "the rehearsed value (added: the row as JSON, without generated IDs)"),
        text("actual", "production's value in the same form (NA: production made no such change)"),
        Column("status", "category", "as rehearsed, missing, unexpected or different", STATUSES),
        text(
            "item",
            "the plan's item writing to the changed row, as its call and target (NA: none)",
        ),
        text(
            "item_outcome",
            "that item's outcome in production, as the run's results (or its action log) tell"
            " it (NA: no results given)",
        ),
    ),
)
"""The declared schema of ``Verification.checks``."""

_MATCH = ["kind", "key", "change", "column"]

_PARTS = frozenset({"reward_costs"})
"""The kinds whose rows are parts of another's, their keys beginning with its key (a reward
cost's: its reward's), an item writing to that row writing to them."""


class Rehearsed(Protocol):
    """What a rehearsal reads of a plan (every ``ActionPlan`` is one): its ``action``,
    the snapshot kinds its rehearsal needs, and what it adds to the sandbox's program."""

    action: str
    rehearsal_kinds: frozenset[str]

    def seed_rehearsal(self, program: dict[str, Any], at: pd.Timestamp) -> None: ...


class _Executed(Rehearsed, Protocol):
    def execute(
        self,
        client: LoyaltyClient,
        *,
        concurrency: int = ...,
        log: LogSource | None = ...,
        progress: Progress = ...,
    ) -> pd.DataFrame: ...


@dataclass(frozen=True)
class Verification:
    """Whether production did what was rehearsed: ``checks`` holds one row per change,
    ``ok`` is true when every row is ``as rehearsed``, ``problems`` the rows that are not.
    ``scope``: what production was read for it, when not all of it (``verify_touched``: only
    what the rehearsal changed), shown in the repr; ``None`` for a full pull."""

    checks: pd.DataFrame
    scope: str | None = None

    @property
    def ok(self) -> bool:
        return bool((self.checks["status"] == "as rehearsed").all())

    @property
    def problems(self) -> pd.DataFrame:
        """The checks that are not ``as rehearsed``."""
        return self.checks[self.checks["status"] != "as rehearsed"].reset_index(drop=True)

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        counts = self.checks["status"].value_counts().reindex(list(STATUSES), fill_value=0)
        shown = tally(counts.items())
        scope = "" if self.scope is None else f"; {self.scope}"
        return f"Verification(ok={self.ok}, {shown or 'no changes'}{scope})"


@dataclass(frozen=True, eq=False)
class Rehearsal:
    """A plan run on a sandbox holding ``snapshot``: what it did and what it cost.

    ``results`` is the results frame of the rehearsed run; ``diff`` the ``SnapshotDiff``
    from ``snapshot`` to the sandbox after the run; ``calls`` the number of HTTP requests
    the run sent (see ``rehearse``).
    """

    action: str
    snapshot: ProgramSnapshot
    after: ProgramSnapshot
    results: pd.DataFrame
    calls: int

    def __repr__(self) -> str:
        shown = tally(self.results["outcome"].value_counts().items())
        return (
            f"<Rehearsal {self.action}: {counted(len(self.results), 'item')}"
            f"{f' ({shown})' if shown else ''},"
            f" {counted(len(self.diff), 'change')}, {counted(self.calls, 'call')}>"
        )

    @cached_property
    def diff(self) -> SnapshotDiff:
        """What the rehearsed run changed, from the snapshot to the sandbox after it."""
        return self.snapshot.diff(self.after)

    def verify(
        self, after_snapshot: ProgramSnapshot, *, results: pd.DataFrame | None = None
    ) -> Verification:
        """Compare production's changes (the rehearsed snapshot to ``after_snapshot``)
        with the rehearsed ones; ``results``, the real run's results frame (or
        ``logged_results``: its action log's), adds one check per item comparing its
        outcome. Each check names the item writing to its row (``item``: an item's target is
        its row's key, a created benefit's its name; a bucket's activation writes its card
        and member too) and, with ``results``, that item's outcome there (``item_outcome``):
        what explains a change not as rehearsed, when the item's outcome is not either.

        A PENDING bucket a pull no longer lists (the service lists PENDING buckets only), its
        card read, is compared as no longer PENDING: as rehearsed against ``ACTIVATED``,
        unless the rise of its card's canceled pending points shows it canceled (or cannot
        tell): then ``different``.

        ``after_snapshot`` must be a pull of production after the real run, of the same
        kinds as the rehearsed snapshot.
        """
        if not isinstance(after_snapshot, ProgramSnapshot):
            raise TypeError(
                f"after_snapshot: expected a ProgramSnapshot, not {type(after_snapshot).__name__}"
            )
        if after_snapshot.pulled_at < self.snapshot.pulled_at:
            raise ValueError(
                f"after_snapshot: pulled at {after_snapshot.pulled_at}, before the rehearsed"
                f" snapshot ({self.snapshot.pulled_at}); pull production after the real run"
            )
        if after_snapshot.kinds != self.snapshot.kinds:
            raise ValueError(
                f"after_snapshot: holds the kinds {sorted(after_snapshot.kinds)}, the rehearsed"
                f" snapshot {sorted(self.snapshot.kinds)}; pull production with kinds="
                f"{sorted(self.snapshot.kinds)} (frames built from other kinds differ)"
            )
        actual = self.snapshot.diff(after_snapshot)
        parts = [_checks(_comparable(_as_pulled(self.diff)), _comparable(_as_pulled(actual)))]
        rehearsed = self._outcomes(self.results, "rehearsal.results")
        outcomes = None
        if results is not None:
            outcomes = _checks(rehearsed, self._outcomes(results, "results"))
            parts.append(outcomes)
        checks = pd.concat(parts, ignore_index=True)
        checks = _with_items(checks, _writers(rehearsed, self.snapshot), outcomes)
        return Verification(CHECKS.conform(checks).reset_index(drop=True))

    def _outcomes(self, results: pd.DataFrame, name: str) -> pd.DataFrame:
        """One row per item: its call (a change plan's ``call``, else the plan's action),
        target and outcome as text (a failure with its status)."""
        missing = [c for c in ("target", "outcome", "status", "error_key") if c not in results]
        if missing:
            raise ValueError(f"{name}: not a results frame, it lacks the columns {missing}")
        outcome = results["outcome"].astype("str")
        failed = results["status"].notna()
        detail = " " + results["status"].astype("str") + " " + results["error_key"].fillna("")
        shown = outcome.where(~failed, outcome + detail.str.rstrip())
        n = len(results)
        calls = results["call"].astype("str") if "call" in results else [self.action] * n
        return pd.DataFrame(
            {
                "kind": list(calls),
                "key": results["target"].astype("str").to_numpy(),
                "change": [OUTCOME] * n,
                "column": [OUTCOME] * n,
                "value": shown.to_numpy(),
            }
        )


def rehearse(
    plan: _Executed,
    snapshot: ProgramSnapshot | str | Path,
    *,
    concurrency: int = 8,
    log: LogSource | None = None,
    progress: Progress = True,
) -> Rehearsal:
    """Run ``plan`` on a sandbox started from ``snapshot`` (or a folder ``to_csv`` wrote),
    then read the sandbox again (the lists whole, the members the run wrote to: see the
    module).

    The options are ``execute``'s. A ``log`` is copied first: the rehearsal skips what
    it shows done, and never writes to it. The sandbox stops before this returns.

    ``calls`` counts every HTTP request the rehearsal's client sent during ``execute``,
    with an httpx request hook: the token request, each item's write, and the reads
    that check an item the service refused (already done?). Counting requests rather
    than result rows keeps those extra calls; a real run costs the same on a service
    in the snapshot's state, plus any retries its rate limits cause.
    """
    return rehearse_run(
        plan.action,
        [plan],
        snapshot,
        lambda client, copied: plan.execute(
            client, concurrency=concurrency, log=copied, progress=progress
        ),
        log=log,
        progress=progress,
    )


def rehearse_run(
    action: str,
    plans: Sequence[Rehearsed],
    snapshot: ProgramSnapshot | str | Path,
    run: Callable[[LoyaltyClient, Path | None], pd.DataFrame],
    *,
    log: LogSource | None = None,
    progress: Progress = True,
) -> Rehearsal:
    """``run(client, log)`` on one sandbox started from ``snapshot`` holding what ``plans``
    need, as ``rehearse`` does for one plan; its results frame becomes the rehearsal's."""
    if isinstance(snapshot, str | Path):
        snapshot = read_snapshot(snapshot)
    if not isinstance(snapshot, ProgramSnapshot):
        raise TypeError(
            "snapshot: expected a ProgramSnapshot or the folder its to_csv wrote,"
            f" not {type(snapshot).__name__}"
        )
    needed = _needed(plans)
    lacking = sorted(needed - snapshot.kinds)
    if lacking:
        raise RehearsalSnapshotError(
            f"snapshot: rehearsing {action} needs the kinds {joined(lacking)}, which it was"
            f" pulled without (it holds {joined(sorted(snapshot.kinds))}): pull with kinds="
            f"{sorted(needed | snapshot.kinds)}, or every kind",
            missing=tuple(lacking),
        )
    if snapshot.sample is not None:
        raise RehearsalSnapshotError(
            sampled_refusal(action, snapshot, plans), sample=str(snapshot.sample)
        )
    # The declared exception (pyproject.toml): a rehearsal is a sandbox. Imported here, so
    # importing the actions never loads the sandbox's server.
    from ..sandbox.server import Sandbox

    sent, written = _RequestCounter(), WrittenMembers()
    program = _RehearsalProgram(snapshot, tuple(plans))
    with (
        Sandbox.start(snapshot=program, seed=REHEARSAL_SEED) as sandbox,
        _copied(log, snapshot) as rehearsal_log,
        # The sandbox serves plain HTTP on loopback: nothing to verify (and no CA bundle
        # read, httpx's default verification built anew: ~47 ms a rehearsal).
        httpx.Client(event_hooks={"request": [sent, written]}, verify=False) as http,
        LoyaltyClient(
            base_url=sandbox.base_url,
            env_file=None,
            http_client=http,
            **sandbox.credentials.as_client_kwargs(),
        ) as client,
    ):
        results = run(client, rehearsal_log)
        calls = sent.count
        sandbox.settle()  # the activations' outcome, not their moment in progress, is pulled
        # The sandbox changes nothing by itself but settling: the trees of the members the run
        # (or a plan's seeding) wrote to are read again, the others are the snapshot's.
        changed = written.members
        changed = None if changed is None else changed | program.seeded_members
        after = repull(snapshot, client, changed, progress=progress)
    return Rehearsal(action, snapshot, after, results, calls)


def _needed(plans: Sequence[Rehearsed]) -> frozenset[str]:
    """The kinds a rehearsal of ``plans`` needs the snapshot to hold."""
    return frozenset().union(*(plan.rehearsal_kinds for plan in plans))


def sampled_refusal(action: str, snapshot: ProgramSnapshot, plans: Sequence[Rehearsed]) -> str:
    """Why a sampled ``snapshot`` cannot be rehearsed on, and the pull that can be: the kinds
    ``plans`` need, or, when they need the members' cards, every member paced."""
    head = (
        f"snapshot: a {snapshot.sample} cannot stand for production in a rehearsal (the members"
        " outside the sample would hold no cards or pending buckets)"
    )
    needed = _needed(plans)
    only = "" if needed & set(MEMBER_KINDS) else "only "  # the kinds, not every member
    return f"{head}; rehearsing {action} needs {only}{_pull_for(needed)}, and rehearse on that"


def sampled_base_line(plans: Sequence[Rehearsed]) -> str:
    """What a plan of ``plans`` made from a sampled base says when it is made: it can be
    applied, but neither rehearsed on that base nor verified against it, and the pull to
    rehearse and verify on instead (as ``sampled_refusal`` names it)."""
    return (
        "Rehearse and verify cannot follow: they refuse a sampled base (it cannot stand for"
        " production); this plan can be applied, but rehearsing it first and verifying it after"
        f" needs {_pull_for(_needed(plans))}, and rehearse and verify on that"
    )


def _pull_for(needed: frozenset[str]) -> str:
    """The pull a rehearsal needing the kinds ``needed`` can use: every member's cards paced,
    or only those kinds, with its Python spelling."""
    if needed & set(MEMBER_KINDS):
        return (
            "every member's cards: pull them paced over as many budget windows as it takes,"
            " ProgramSnapshot.pull(client, checkpoint='pull-checkpoint')"
        )
    kinds = sorted(needed) or ["programs"]
    return f"the kinds {joined(kinds)}: pull them, ProgramSnapshot.pull(client, kinds={kinds})"


class _RequestCounter:
    """An httpx request hook counting the requests sent (from any thread)."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> None:
        with self._lock:
            self.count += 1


@contextmanager
def _copied(log: LogSource | None, snapshot: ProgramSnapshot) -> Iterator[Path | None]:
    """A copy of ``log`` in a temporary folder, without its owner line, so the rehearsal
    sandbox claims it (nothing without a log), ending with a ``RECONSIDERED`` line when the
    log is read so (``ActionLog.as_reconsidered``); ``ForeignLogError`` when the log belongs
    to another service than the one the snapshot was pulled from."""
    if log is None:
        yield None
        return
    source = log if isinstance(log, ActionLog) else ActionLog(log)
    owner = source.owner()
    if owner is not None and snapshot.source:
        source.check(LogOwner(snapshot.source, owner.project))  # the snapshot has no project
    with tempfile.TemporaryDirectory(prefix="lyt-rehearsal-") as folder:
        copy = Path(folder) / "log.jsonl"
        if source.path.exists():
            with source.path.open("rb") as lines, copy.open("wb") as copied:
                copied.writelines(line for line in lines if not _owner_line(line))
        if source.reconsidered:
            with copy.open("ab") as copied:
                copied.write((json.dumps({"log": RECONSIDERED}) + "\n").encode())
        yield copy


def _owner_line(raw: bytes) -> bool:
    try:
        line = json.loads(raw)
    except ValueError:
        return False
    return isinstance(line, dict) and line.get("log") == OWNER


@dataclass
class _RehearsalProgram:
    """The snapshot's program file, plus what each plan adds (``seed_rehearsal``);
    ``seeded_members``: the members whose tree that changed, once written."""

    snapshot: ProgramSnapshot
    plans: tuple[Rehearsed, ...]
    seeded_members: frozenset[str] = frozenset()

    def to_program(self, path: str | Path) -> Path:
        written = self.snapshot.to_program(path)
        program = json.loads(written.read_text(encoding="utf-8"))
        seeded = json.dumps(program)
        for plan in self.plans:
            plan.seed_rehearsal(program, self.snapshot.pulled_at)
        if json.dumps(program) != seeded:
            self.seeded_members = _members_changed(json.loads(seeded), program)
            written.write_text(json.dumps(program), encoding="utf-8")
        return written


_TREES = {"members": "id", "cards": "member_id", "pending_buckets": "member_id"}
"""The lists of a program file holding member trees, and the field naming an entry's member."""


def _members_changed(before: dict[str, Any], after: dict[str, Any]) -> frozenset[str]:
    """The members an entry of their tree was added to, changed in or removed from between
    two program files."""
    changed: set[str] = set()
    for kind, member in _TREES.items():
        old = {json.dumps(e, sort_keys=True): e for e in before.get(kind, [])}
        new = {json.dumps(e, sort_keys=True): e for e in after.get(kind, [])}
        changed |= {str(e.get(member)) for k, e in (old | new).items() if (k in old) != (k in new)}
    return frozenset(changed)


# -- lining up two diffs ---------------------------------------------------------------


def _as_pulled(diff: SnapshotDiff[ProgramSnapshot]) -> pd.DataFrame:
    """``diff.changes`` as far as a pull can tell them: a bucket removed while the pull after
    read its card (the service lists PENDING buckets only, and a pull lists none of a card
    holding no pending points) is, if it was PENDING, a ``status`` changed to ``_UNLISTED``
    (activated), ``_CANCELED`` or ``_UNSURE`` (see ``_unlisted``); any other such bucket is
    left out (not PENDING before, it has not changed)."""
    changes = diff.changes
    removed = (changes["kind"] == "pending_buckets") & (changes["change"] == "removed")
    if not removed.any() or "cards" not in diff.after.kinds:
        return changes
    rises = _canceled_rises(diff.before.cards, diff.after.cards)
    rows = {i: json.loads(row) for i, row in changes.loc[removed, "before"].items()}
    unlisted = [i for i, r in rows.items() if (r["member_id"], r["card_id"]) in rises]
    pending = [i for i in unlisted if rows[i]["status"] == "PENDING"]
    unchanged = [i for i in unlisted if rows[i]["status"] != "PENDING"]
    by_card: dict[tuple[str, str], dict[Hashable, int]] = {}
    for i in pending:
        card = (rows[i]["member_id"], rows[i]["card_id"])
        by_card.setdefault(card, {})[i] = rows[i]["points_total"] or 0
    statuses = {
        i: status
        for card, points in by_card.items()
        for i, status in _unlisted(points, rises[card]).items()
    }
    out = changes.copy()
    out.loc[pending, ["change", "column", "before", "after"]] = [
        ["changed", "status", "PENDING", statuses[i]] for i in pending
    ]
    return out.drop(index=unchanged)


def _canceled_rises(before: pd.DataFrame, after: pd.DataFrame) -> dict[tuple[str, str], int]:
    """Each card the pull ``after`` read (member and card IDs) with the pending points canceled
    on it between the two pulls; 0 when either pull lacks the count (a snapshot written before
    it held it)."""
    column = "lifetime_pending_canceled"
    keys = list(zip(after["member_id"], after["id"], strict=True))
    if column not in before or column not in after:
        return dict.fromkeys(keys, 0)
    was = dict(
        zip(zip(before["member_id"], before["id"], strict=True), before[column], strict=True)
    )
    rises = {}
    for key, now in zip(keys, after[column], strict=True):
        then: Any = was.get(key, pd.NA)
        known = not (pd.isna(then) or pd.isna(now))
        rises[key] = max(int(now) - int(then), 0) if known else 0
    return rises


def _unlisted(points: dict[Hashable, int], rise: int) -> dict[Hashable, str]:
    """The status of each unlisted PENDING bucket of one card (change index: its points), given
    the rise of the card's canceled pending points: none canceled, all activated; else the one
    set of buckets whose points make up the rise canceled, the others activated; with no such
    one set, each either."""
    if not rise:
        return dict.fromkeys(points, _UNLISTED)
    canceled = _making_up(points, rise)
    if canceled is None:
        return dict.fromkeys(points, _UNSURE)
    return {i: _CANCELED if i in canceled else _UNLISTED for i in points}


def _making_up(points: dict[Hashable, int], total: int) -> set[Hashable] | None:
    """The one set of keys whose points add up to ``total``; None when none or several do,
    or when there are more than ``_MOST_SPLIT`` keys to try."""
    if len(points) > _MOST_SPLIT:
        return None
    found = [
        set(keys)
        for n in range(1, len(points) + 1)
        for keys in combinations(points, n)
        if sum(points[k] for k in keys) == total
    ]
    return found[0] if len(found) == 1 else None


def _comparable(changes: pd.DataFrame) -> pd.DataFrame:
    """``changes`` keyed for matching: a created row by its name (its ID is new in each
    place), the value of each change as one text (an added row without generated fields)."""
    out = pd.DataFrame(
        {
            "kind": changes["kind"].astype("str").to_numpy(),
            "key": changes["key"].astype("str").to_numpy(),
            "change": changes["change"].astype("str").to_numpy(),
            "column": changes["column"].astype("string").to_numpy(),
            "value": changes["after"].where(changes["change"] != "removed", changes["before"]),
        }
    )
    added = out.index[out["change"] == "added"]
    if len(added):
        rows = [json.loads(row) for row in out.loc[added, "value"]]
        names = [row.get("name") or row.get("id") for row in rows]
        out.loc[added, "key"] = _numbered(pd.Series(out.loc[added, "kind"] + "\0" + names))
        out.loc[added, "value"] = [
            json.dumps({k: v for k, v in row.items() if k not in GENERATED}, ensure_ascii=False)
            for row in rows
        ]
    return out


def _numbered(kind_and_key: pd.Series[str]) -> list[str]:
    """Keys without their kind; a repeated one gets ``#2``, ``#3``... in row order."""
    seen = kind_and_key.groupby(kind_and_key).cumcount().to_numpy()
    keys = kind_and_key.str.split("\0", n=1).str[1].to_numpy()
    return [k if n == 0 else f"{k}#{n + 1}" for k, n in zip(keys, seen, strict=True)]


def _checks(expected: pd.DataFrame, actual: pd.DataFrame) -> pd.DataFrame:
    """Expected against actual per change: matched on kind, key, change and column."""
    left = expected.assign(column=expected["column"].fillna(""))
    right = actual.assign(column=actual["column"].fillna(""))
    both = left.merge(right, on=_MATCH, how="outer", suffixes=("_e", "_a"), indicator=True)
    both = both.rename(columns={"value_e": "expected", "value_a": "actual"})
    same = (both["expected"] == both["actual"]).fillna(False) | (
        both["expected"].isna() & both["actual"].isna()
    )
    side = both["_merge"].astype("str")
    both["status"] = "different"
    both.loc[same | _activated(both), "status"] = "as rehearsed"
    both.loc[side == "left_only", "status"] = "missing"
    both.loc[side == "right_only", "status"] = "unexpected"
    both["column"] = both["column"].replace("", None)
    remade = both.index[(both["change"] == "added") & (both["status"] == "different")]
    both.loc[remade, "column"] = [
        _differing_fields(e, a) for e, a in both.loc[remade, ["expected", "actual"]].to_numpy()
    ]
    return both[[*_MATCH, "expected", "actual", "status"]]


def _writers(items: pd.DataFrame, base: ProgramSnapshot) -> dict[str, list[str]]:
    """Each key a changed row may have -> the items (call and target) writing to it: an
    item's target is its row's key (a created benefit's: its name), and a pending bucket's
    activation writes to its card (``member/card``) and member too."""
    held: dict[str, tuple[str, str]] = {}
    if "pending_buckets" in base.kinds:
        buckets = base.pending_buckets[["id", "member_id", "card_id"]].astype(str)
        held = {bucket: (member, card) for bucket, member, card in buckets.to_numpy()}
    writers: dict[str, list[str]] = {}
    for call, target in items[["kind", "key"]].itertuples(index=False):
        item = f"{call} {target}"
        keys = [target]
        if target in held:
            member, card = held[target]
            keys += [f"{member}/{card}", member]
        for key in keys:
            writers.setdefault(key, []).append(item)
    return writers


def _with_items(
    checks: pd.DataFrame, writers: dict[str, list[str]], outcomes: pd.DataFrame | None
) -> pd.DataFrame:
    """``checks`` with each one's ``item`` (an outcome's own; a change's the item writing to
    its row, or to the row it is part of: a reward cost's reward) and that item's outcome
    in production (``outcomes``: the outcome checks, None without results); of several items
    writing to one row, the first not as rehearsed."""
    produced: dict[str, str] = {}
    differs: set[str] = set()
    if outcomes is not None:
        for call, target, actual, status in outcomes[
            ["kind", "key", "actual", "status"]
        ].itertuples(index=False):
            item = f"{call} {target}"
            produced[item] = actual
            if status != "as rehearsed":
                differs.add(item)
    items: list[str | None] = []
    for change, kind, key in checks[["change", "kind", "key"]].itertuples(index=False):
        if change == OUTCOME:
            items.append(f"{kind} {key}")
            continue
        found = writers.get(key) or writers.get(_whole_row(kind, key)) or []
        items.append(next((i for i in found if i in differs), found[0] if found else None))
    outcome = [None if i is None else produced.get(i) for i in items]
    return checks.assign(
        item=pd.Series(items, index=checks.index, dtype=object),
        item_outcome=pd.Series(outcome, index=checks.index, dtype=object),
    )


def _whole_row(kind: str, key: str) -> str:
    """The key of the row a changed row is part of, as items name their targets: a repeated
    created row's (``NAME#2``) its name's, a reward cost's its reward's. A card's key begins
    with its member's, but it is a row of its own: an item writing to the member (activating
    a bucket of another of its cards) does not write to it."""
    key = key.split("#")[0]
    return key.split(KEY_SEPARATOR)[0] if kind in _PARTS else key


def _activated(both: pd.DataFrame) -> pd.Series[bool]:
    """Where each side saw a bucket ``ACTIVATED`` or ``_UNLISTED``: both activated, as a pull
    can tell."""
    shown = {"ACTIVATED", _UNLISTED}
    return (
        (both["kind"] == "pending_buckets")
        & (both["column"] == "status")
        & both["expected"].isin(shown)
        & both["actual"].isin(shown)
    )


def _differing_fields(expected: str, actual: str) -> str:
    """The fields two rows (as JSON objects) hold differently, comma-separated."""
    old, new = json.loads(expected), json.loads(actual)
    return ", ".join(k for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k))
