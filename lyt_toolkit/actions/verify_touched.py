"""Verifying an apply against its rehearsal by reading only what the rehearsal changed.

``rehearsal.verify(after_snapshot)`` needs a full pull of production after the run: at
20,000 members some 23,000 calls, ten windows of a professional plan's share, to check a few
thousand changes. ``verify_touched(rehearsal, client)`` reads from production only the objects
the rehearsal's diff changed and those its items wrote to (``touched_reads``), each kind the
cheapest way the interface offers (the readers of ``reread``):

- rewards and benefits listed by ID, 99 a listing (a reward's costs come with it); created
  benefits by name, 10 names a listing;
- card definitions, tier structures and programs one get each;
- members with their cards one member read each (a card: its member's);
- a card's pending buckets by its bucket list, in as many pages as the rehearsed snapshot's
  buckets of the card fill (``bucket_pages``); a card listing more is refused. A card its
  member's read shows holding no pending points is not listed (none is PENDING, as a pull
  skips it).

The "after" is the rehearsed snapshot with those rows replaced by what production holds now (a
row the service no longer lists gone, a card's buckets those it lists now), and it is compared
as ``verify`` compares a full pull. So a change production made to any other object is not
seen: the ``Verification`` says so (``scope``).

Its cost is known before any read (``verify_touched_cost``), and a verification needing more
than ``budget_share`` of the window is refused before it (``BudgetExceededError`` naming
``paced=True``); ``paced=True`` holds the client's paced allowance, as a paced pull does:
a read beyond the window's share waits for its reset. Reads change nothing, so an
interrupted verification is run again from its start. Paced with the plan's action log
(``log=``), it is one more run of the plan's paced work: the calls the plan's runs (its apply,
a verification stopped partway) sent in the window count against the same share, and its own
are noted there, so a verification run again in the window takes no new share of what the
first left. Without a log each paced verification takes a share of what the window has left.

It lives here, not in ``rehearsal``, because the rehearsal imports no plan-side module
(pyproject.toml's contract) and the readers are ``reread``'s.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._text import counted
from ..client.allowance import checked_share
from ..fill.refresh_merge import with_member_statuses
from ..frames.definitions import card_definitions_frame
from ..frames.registry import BUILDERS, SCHEMAS
from ..frames.schema import Schema
from ..pull.member_tree import holds_pending
from ..snapshot import ProgramSnapshot
from ..snapshot.defaults import DEFAULT_SHARE
from ..snapshot.references import mark_card_definitions
from ._activated import changed_cards
from ._listed import IDS_PER_READ, NAMES_PER_READ, benefits_named, listed_by_id
from .cost import PlanCost, budgeted
from .log import LogSource, refuse_foreign
from .paced import hearing, refuse_past_cycle
from .rehearsal import Rehearsal, Verification
from .reread import GETTERS, bucket_pages, card_buckets, got, member_read, service_now
from .touched import TOUCHES

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..client import LoyaltyClient
    from .plan import ActionPlan

__all__ = [
    "SCOPE",
    "TouchedReads",
    "planned_reads",
    "touched_reads",
    "verify_touched",
    "verify_touched_cost",
]

SCOPE = (
    "read only what the rehearsal changed or its items wrote to ({objects}): a change"
    " production made to any other object is not seen"
)
"""What a focused verification's ``scope`` says (``objects``: how many it read)."""

_GREW = (
    "(its pending buckets in the rehearsed snapshot): production added pending points to the"
    " card since; nothing was sent but that read: verify against a full pull,"
    " rehearsal.verify(ProgramSnapshot.pull(client, checkpoint='pull-checkpoint'))"
)


@dataclass
class TouchedReads:
    """The objects a focused verification reads, by the way each is read."""

    listed: dict[str, set[str]] = field(
        default_factory=lambda: {"rewards": set(), "benefits": set()}
    )
    """Rewards and benefits by ID."""
    names: set[str] = field(default_factory=set)
    """Created benefits' names."""
    gets: dict[str, set[str]] = field(default_factory=lambda: {kind: set() for kind in GETTERS})
    """Card definitions, tier structures and programs by ID."""
    members: set[tuple[str, str]] = field(default_factory=set)
    """(program, member): one member read each (with its cards)."""
    cards: dict[tuple[str, str, str], int] = field(default_factory=dict)
    """(program, member, card) -> the pages of its bucket list to read."""

    @property
    def objects(self) -> int:
        """How many objects (a card's bucket list one) are read."""
        return (
            sum(map(len, self.listed.values()))
            + len(self.names)
            + sum(map(len, self.gets.values()))
            + len(self.members)
            + len(self.cards)
        )

    @property
    def calls(self) -> int:
        """The calls reading them takes, without a token's."""
        listings = sum(-(-len(ids) // IDS_PER_READ) for ids in self.listed.values())
        return (
            listings
            + -(-len(self.names) // NAMES_PER_READ)
            + sum(map(len, self.gets.values()))
            + len(self.members)
            + sum(self.cards.values())
        )


def touched_reads(rehearsal: Rehearsal) -> TouchedReads:
    """What ``verify_touched`` reads: each object of the rehearsal's diff (a created benefit by
    its name), and each object its items wrote to (``TOUCHES``). ``ValueError`` for a diff
    adding a row of another kind (its ID in production cannot be known)."""
    base = rehearsal.snapshot
    reads = TouchedReads()
    where = _Where(base)
    for kind, key, change, after in rehearsal.diff.changes[
        ["kind", "key", "change", "after"]
    ].itertuples(index=False):
        if change == "added" and kind != "benefits":
            raise ValueError(
                f"the rehearsal added a {kind} row ({key}), which production gives another ID:"
                " verify against a full pull, rehearsal.verify(ProgramSnapshot.pull(client))"
            )
        if change == "added":
            reads.names.add(str(json.loads(after)["name"]))
        else:
            _add(reads, where, str(kind), str(key))
    _add_items(reads, where, _items(rehearsal.results, rehearsal.action))
    return reads


def planned_reads(snapshot: ProgramSnapshot, parts: Iterable[ActionPlan[Any]]) -> TouchedReads:
    """What ``verify_touched`` certainly reads of a rehearsal of ``parts`` on ``snapshot``,
    known before the rehearsal: the objects the valid items write to, and the member of each
    card an activation certainly changes (``_activated.changed_cards``: its balance). Part of
    ``touched_reads`` (its calls a lower bound of ``verify_touched_cost``'s), which adds the
    objects the rehearsal's other changes reach (an activation the snapshot does not tell
    certain: its member's read)."""
    reads = TouchedReads()
    where = _Where(snapshot)
    valid = [(part.action, item) for part in parts for item in part.items if item.error is None]
    _add_items(reads, where, [(call, str(i.target)) for call, i in valid if call in TOUCHES])
    paths = [i.to_send for call, i in valid if call == "activate_pending_bucket"]
    for _, member, card in changed_cards(snapshot, paths):
        _add(reads, where, "cards", f"{member}/{card}")
    return reads


def _add_items(reads: TouchedReads, where: _Where, items: Iterable[tuple[str, str]]) -> None:
    """Add the reads of the objects the ``items`` (call, target) write to."""
    for call, target in items:
        kind = TOUCHES[call][-1] if call != "create_benefit" else "benefits"
        if call == "create_benefit":
            reads.names.add(target)
        elif kind != "pending_buckets" or target in where.cards:
            _add(reads, where, kind, target)


def _items(results: pd.DataFrame, action: str) -> list[tuple[str, str]]:
    """(call, target) of each item of the rehearsal's results that could be sent (not
    invalid), of a call writing to a snapshot object (``TOUCHES``)."""
    calls = results["call"] if "call" in results else pd.Series([action] * len(results))
    sent = (results["outcome"].astype(str) != "invalid").to_numpy()
    return [
        (str(call), str(target))
        for call, target, ok in zip(calls, results["target"], sent, strict=True)
        if ok and call in TOUCHES and not pd.isna(target)
    ]


class _Where:
    """Where the rehearsed snapshot holds each member and bucket, indexed once (a plan may
    touch thousands of buckets of a program of tens of thousands)."""

    def __init__(self, base: ProgramSnapshot) -> None:
        members = base.members
        self.programs = dict(
            zip(members["id"].astype(str), members["program_id"].astype(str), strict=True)
        )
        buckets = base.pending_buckets
        card = zip(
            buckets["program_id"].astype(str),
            buckets["member_id"].astype(str),
            buckets["card_id"].astype(str),
            strict=True,
        )
        self.cards = dict(zip(buckets["id"].astype(str), card, strict=True))
        """Bucket ID -> (program, member, card)."""
        self.held = Counter((member, card) for _, member, card in self.cards.values())
        """(member, card) -> the buckets the snapshot holds of it."""


def _add(reads: TouchedReads, where: _Where, kind: str, key: str) -> None:
    """Add the read of ``kind``'s row ``key`` (a diff's key) to ``reads``."""
    if kind in reads.listed:
        reads.listed[kind].add(key)
    elif kind == "reward_costs":
        reads.listed["rewards"].add(key.split("/")[0])
    elif kind in reads.gets:
        reads.gets[kind].add(key)
    elif kind in ("members", "cards"):
        member = key.split("/")[0]
        if member in where.programs:
            reads.members.add((where.programs[member], member))
    elif kind == "pending_buckets":
        card = where.cards[key]
        reads.cards[card] = bucket_pages(where.held[card[1], card[2]])


def verify_touched_cost(
    rehearsal: Rehearsal,
    client: LoyaltyClient | None = None,
    *,
    budget_share: float = DEFAULT_SHARE,
) -> PlanCost:
    """The calls ``verify_touched`` sends (``TouchedReads.calls``; with ``client``, one more
    for a token if it holds none) set against ``budget_share`` of the budget it last read.
    Nothing is sent. An upper bound: a card whose bucket list no longer fills the pages its
    rehearsed snapshot's buckets did is read in fewer, and one read holding no pending points
    in none."""
    needed = touched_reads(rehearsal).calls
    return PlanCost.for_client(needed, client, checked_share(budget_share))


def verify_touched(
    rehearsal: Rehearsal,
    client: LoyaltyClient,
    *,
    results: pd.DataFrame | None = None,
    budget_share: float = DEFAULT_SHARE,
    paced: bool = False,
    log: LogSource | None = None,
) -> Verification:
    """``rehearsal.verify`` against production read with ``client``: only the objects the
    rehearsal changed or its items wrote to (see the module), so a change production made
    elsewhere is not seen (the result's ``scope`` says so). ``results``: the real run's, one
    check per item's outcome, as ``verify`` (not kept: ``logged_results``, from its log).

    Refused before any read (``BudgetExceededError``) when its calls
    (``verify_touched_cost``) exceed ``budget_share`` of the window; ``paced=True`` waits for
    the window's reset instead (refused only past that share of the billing cycle), with
    ``log`` (the plan's action log) counting what the plan's runs sent in the window against
    that share (see the module; a log of another service or project: ``ForeignLogError``)."""
    share = checked_share(budget_share)
    reads = touched_reads(rehearsal)
    what = f"verifying against the rehearsal ({counted(reads.calls, 'read')})"
    with hearing(client, share, paced, what="verification", log=log if paced else None) as heard:
        refuse_foreign(log if paced else None, client)
        cost = budgeted(lambda: PlanCost.for_client(reads.calls, client, share), client)
        if paced:
            refuse_past_cycle(cost.needed, client, share, what, heard)
        elif not cost.fits:
            raise cost.refusal(what, partial=False, paced=True, resumable=False)
        after = production_after(rehearsal.snapshot, client, reads)
    checked = rehearsal.verify(after, results=results)
    return dataclasses.replace(
        checked, scope=SCOPE.format(objects=counted(reads.objects, "object"))
    )


def production_after(
    base: ProgramSnapshot, client: LoyaltyClient, reads: TouchedReads
) -> ProgramSnapshot:
    """``base`` with the rows of ``reads`` replaced by what production holds now (the rows it
    no longer lists gone), pulled at the service's clock."""
    frames = dict(base.frames())
    rewards = listed_by_id(client, "rewards", sorted(reads.listed["rewards"]))
    asked = sorted(reads.listed["rewards"])
    _replace(frames, "rewards", "id", asked, BUILDERS["rewards"](rewards.values()))
    costs = BUILDERS["reward_costs"](rewards.values())
    _replace(frames, "reward_costs", "reward_id", asked, costs)
    benefits = list(listed_by_id(client, "benefits", sorted(reads.listed["benefits"])).values())
    named = benefits_named(client, sorted(reads.names))
    held = frames["benefits"]
    gone = [*reads.listed["benefits"], *held.loc[held["name"].isin(reads.names), "id"]]
    _replace(frames, "benefits", "id", gone, BUILDERS["benefits"]([*benefits, *named]))
    for kind, keys in reads.gets.items():
        found = [m for m in (got(client, kind, key) for key in sorted(keys)) if m is not None]
        _replace(frames, kind, "id", sorted(keys), _built(kind, found, frames[kind]))
    members = [member_read(client, *key) for key in sorted(reads.members)]
    read = [m for m in members if m is not None]
    ids = [member for _, member in sorted(reads.members)]
    _replace(frames, "members", "id", ids, BUILDERS["members"](read))
    _replace(frames, "cards", "member_id", ids, BUILDERS["cards"](read))
    empty = _read_empty(read)
    listed = [
        BUILDERS["pending_buckets"]([])
        if card in empty
        else card_buckets(client, ("card", *card), pages, grew=_GREW)
        for card, pages in sorted(reads.cards.items())
    ]
    cards = [card for _, _, card in sorted(reads.cards)]
    _replace(frames, "pending_buckets", "card_id", cards, *listed)
    _marked(frames, base.kinds)
    return ProgramSnapshot.from_frames(
        {kind: frames[kind] for kind in base.kinds},
        source=base.source,
        pulled_at=service_now(client),
    )


def _read_empty(members: list[Any]) -> set[tuple[str, str, str]]:
    """(program, member, card) of each card just read holding no pending points: the service
    lists none of its buckets PENDING, so its bucket list is not read (as a pull skips it)."""
    return {
        (member.program_id, member.id, held.card.id)
        for member in members
        for held in member.cards
        if held.card is not None and not holds_pending(held.card)
    }


def _built(kind: str, models: list[Any], held: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``models``; a card definition's ``listed`` as the snapshot had it."""
    if kind != "card_definitions":
        return BUILDERS[kind](models)
    unlisted = set(held.loc[~held["listed"].astype(bool).to_numpy(), "id"].astype(str))
    return card_definitions_frame(
        [m for m in models if m.id not in unlisted],
        unlisted=[m for m in models if m.id in unlisted],
    )


def _replace(
    frames: dict[str, pd.DataFrame], kind: str, key: str, keys: Any, *read: pd.DataFrame
) -> None:
    """``frames[kind]`` without the rows whose ``key`` is one of ``keys``, then ``read``."""
    held = frames[kind]
    kept = held[~held[key].astype(str).isin([str(k) for k in keys]).to_numpy(bool)]
    parts = [part for part in (kept, *read) if len(part)]
    frames[kind] = _conformed(pd.concat(parts, ignore_index=True) if parts else kept, SCHEMAS[kind])


def _conformed(frame: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    return schema.conform(frame).reset_index(drop=True)


def _marked(frames: dict[str, pd.DataFrame], kinds: frozenset[str]) -> None:
    """The columns a pull fills from other objects filled again: each row's card definition
    (its found, status, name), each bucket's program and member status."""
    if "card_definitions" in kinds:
        definitions = frames["card_definitions"]
        status = dict(zip(definitions["id"], definitions["status"].astype(object), strict=True))
        names = dict(zip(definitions["id"], definitions["name"].astype(object), strict=True))
        for kind, named in (("reward_costs", names), ("benefits", None), ("tier_structures", None)):
            frames[kind] = mark_card_definitions(frames[kind].copy(), SCHEMAS[kind], status, named)
    if "pending_buckets" in kinds:
        frames["pending_buckets"] = with_member_statuses(
            frames["pending_buckets"], frames["programs"], frames["members"]
        )
