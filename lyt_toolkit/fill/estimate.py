"""Counting a pull's calls before it starts, by walking the lists it will walk.

See ``lyt_toolkit.snapshot.cost`` for what each kind costs and why two figures are bounds.
The estimate walks the lists only (one call per page of 100), never a member one by one
unless asked to read a sample of them (``read_sample``: drawn at random, seeded, to project
the bucket lists from, ``fill.projection``), and within a share of the calls left in the
window: when even the lists do not fit, it stops there and says so
(``PullEstimate.complete``) instead of raising half-way; a sample that does not fit in what
the lists left is read as far as it fits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from numbers import Integral
from typing import Any, TypeVar

from .._deprecation import deprecation, warn
from .._stop import StoppablePool
from ..client import LoyaltyClient
from ..client.allowance import Allowance, AllowanceSpent, checked_share
from ..frames.members import members_frame
from ..models import Member, Page
from ..pull.member_tree import TREE, member_tree, walk_tree
from ..pull.program_lists import ListPart, program_lists
from ..pull.window_cost import member_list_calls, windowed_calls
from ..snapshot.cost import ProjectedLists, PullEstimate, tree_depth, wanted_kinds
from ..snapshot.defaults import EstimateOptions
from ..snapshot.references import referenced_card_definitions
from .projection import PendingRate, drawn_members, pending_holders, projected_lists

__all__ = ["EstimateOptions", "estimate_pull"]

T = TypeVar("T")

READ_SAMPLE_SEED = 0
"""The seed of the members an estimate reads (``read_sample``): the same list, the same draw."""

_REFERENCING: tuple[ListPart, ...] = ("rewards", "benefits", "tier_structures")
"""The lists whose items point at card definitions, in ``referenced_card_definitions``' order."""


class _Walk:
    """Walks lists with the largest page, keeping the items and the pages it took per part."""

    def __init__(self) -> None:
        self.parts: dict[str, int] = {}

    def __call__(self, part: str, pages: Iterator[Page[T]]) -> list[T]:
        items: list[T] = []
        for page in pages:
            items.extend(page.data)
            self.count(part)
        return items

    def count(self, part: str) -> None:
        """One more page (one more call) of ``part``."""
        self.parts[part] = self.parts.get(part, 0) + 1


def estimate_pull(
    client: LoyaltyClient, options: EstimateOptions = EstimateOptions()
) -> PullEstimate:
    """The calls ``ProgramSnapshot.pull(client, kinds=...)`` will make (see ``cost``).

    Walks the lists (rewards, benefits, card definitions, tier structures, programs and
    members, as far as ``kinds`` need them) with ``client``, within ``budget_share`` of the
    calls left in the window: those figures are exact, as is one read per member. The
    bucket lists are a bound: at most ``cards_per_member`` cards per member (by default one
    per card definition listed, the most a member can hold) hold pending points, each one
    page. ``read_sample`` members, drawn at random, are read (one call each) to project the
    bucket lists from (``PullEstimate.projected``), as many as fit in what the lists left
    of the share. ``read_members`` (deprecated) reads every member to count them instead.
    """
    cards_per_member, read_members = options.cards_per_member, options.read_members
    read_sample = checked_read_sample(options.read_sample)
    if read_members and read_sample is not None:
        raise ValueError("read_sample: give read_sample or read_members (deprecated), not both")
    if cards_per_member is not None and cards_per_member < 0:
        raise ValueError("cards_per_member must be 0 or more")
    if read_members and cards_per_member is not None:
        raise ValueError("give cards_per_member or read_members, not both")
    if read_members:
        warn(
            deprecation("lyt_toolkit.snapshot.ProgramSnapshot.estimate(read_members=True)"),
            stacklevel=3,
        )
    share = checked_share(options.budget_share)
    wanted = wanted_kinds(options.kinds)
    depth = tree_depth(wanted)
    walk = _Walk()
    parts: dict[str, int] = {"token": 1}
    bounds: set[str] = set()
    quota = client.quota
    used_before = quota.calls_used
    projected: ProjectedLists | None = None
    with quota.allowance(share) as allowance:
        try:
            projected = _count(
                client,
                walk,
                wanted,
                depth,
                parts,
                bounds,
                cards_per_member,
                read_members,
                _Reader(allowance, read_sample),
            )
            complete = True
        except AllowanceSpent:
            parts.update(walk.parts)
            complete = False
    return PullEstimate(
        wanted,
        parts,
        exact=not bounds and complete,
        spent=quota.calls_used - used_before,
        remaining=quota.remaining,
        limit=quota.limit,
        resets_at=quota.resets_at,
        bounds=frozenset(bounds),
        complete=complete,
        share=share,
        allowed=allowance.calls,
        others=allowance.others,
        cycle=quota.cycle,
        projected=projected,
    )


def checked_read_sample(read_sample: object) -> int | None:
    """``read_sample``, the members an estimate reads: None or a whole number from 1, else a
    ``TypeError`` or ``ValueError`` naming it."""
    if read_sample is None:
        return None
    if isinstance(read_sample, bool) or not isinstance(read_sample, Integral):
        raise TypeError(
            "read_sample: expected a whole number of members or None,"
            f" not {type(read_sample).__name__}"
        )
    if read_sample < 1:
        raise ValueError(f"read_sample: {read_sample!r} members; read 1 at least, or give None")
    return int(read_sample)


class _Reader:
    """Picks the members an estimate reads of those listed: every one (``read_members``), or
    ``size`` drawn at random (``drawn_members``), as many as the allowance has left."""

    def __init__(self, allowance: Allowance, size: int | None) -> None:
        self.allowance = allowance
        self.size = size

    def every(self, members: list[Member]) -> list[Member]:
        """Every member listed."""
        return members

    def sample(self, members: list[Member]) -> list[Member]:
        """``size`` of the members listed, drawn at random, at most as many as are left."""
        size, left = self.size or 0, self.allowance.left
        if left is not None:
            size = min(size, left)
        if size < 1 or not members:
            return []
        drawn = drawn_members(members_frame(members), size, READ_SAMPLE_SEED)
        return [m for m in members if m.id in drawn]


def _count(
    client: LoyaltyClient,
    walk: _Walk,
    wanted: frozenset[str],
    depth: int,
    parts: dict[str, int],
    bounds: set[str],
    cards_per_member: int | None,
    read_members: bool,
    reader: _Reader,
) -> ProjectedLists | None:
    """Walk the lists the pull of ``wanted`` walks and fill ``parts`` (calls per part) and
    ``bounds`` (the parts counted as an upper bound); read the members ``reader`` picks, and
    give the bucket lists projected from a sample of them (None: no sample read)."""
    bounded = depth == 4 and cards_per_member is None and not read_members
    # Card definitions are listed also to bound the cards a member can hold.
    lists = program_lists(wanted | ({"card_definitions"} if bounded else set()))
    found = {listed.part: walk(listed.part, listed.pages(client, models=True)) for listed in lists}
    definitions = found.pop("card_definitions", [])
    rewards, benefits, tiers = (found.get(p, []) for p in _REFERENCING)
    referenced = referenced_card_definitions(rewards, benefits, tiers, (), ())
    parts.update(walk.parts)
    if "card_definitions" not in wanted:
        parts.pop("card_definitions", None)
    else:
        # Those referenced by cards or buckets are met only when the pull reads them.
        parts["card_definitions_by_id"] = len(referenced - {d.id for d in definitions})
        if depth >= 3:
            bounds.add("card_definitions_by_id")
    if depth < 1:
        return None
    # The member lists are walked; the members are read only when asked to: every one
    # (deprecated), or a sample of them when the pull lists buckets.
    sampling = depth >= 4 and reader.size is not None
    walked = min(depth, 3 if read_members or sampling else 2)
    read: Callable[[list[Member]], list[Member]] = reader.sample if sampling else reader.every
    with StoppablePool(8, "the estimate was stopped") as pool:  # members read eight at a time
        tree = walk_tree(
            member_tree(walked, read=read),
            client,
            on_page=lambda r, _: walk.count(r.part),
            read_all=pool.map,
        )
    for part in TREE[: min(walked, 2)]:  # the lists: one call per page walked
        parts[part] = walk.parts.get(part, 0)
    _windowed(parts, tree.programs, tree.members)
    if depth >= 3:  # one read per member
        parts["cards"] = len(tree.members)
    if depth >= 4 and read_members:
        # the pull lists the buckets of cards holding pending points only
        parts["pending_buckets"] = len(pending_holders(tree.cards))
    elif depth >= 4:
        per_member = len(definitions) if cards_per_member is None else cards_per_member
        parts["pending_buckets"] = len(tree.members) * per_member
        bounds.add("pending_buckets")
        if sampling and tree.cards:
            rate = PendingRate.of(len(tree.cards), pending_holders(tree.cards))
            return projected_lists(rate, len(tree.members))
    return None


def _windowed(parts: dict[str, int], programs: list[Any], members: list[Any]) -> None:
    """The programs list and each program's members as the pull walks them, in
    ``created_at`` windows (``pull.windows``): their calls counted on the objects the
    estimate listed (``pull.window_cost``), where one page each was counted."""
    if "programs" in parts:
        parts["programs"] = windowed_calls(programs)
    if "members" in parts:
        parts["members"] = member_list_calls((p.id for p in programs), members)
