"""Counting a pull's calls before it starts, by walking the lists it will walk.

See ``lyt_toolkit.snapshot.cost`` for what each kind costs and why two figures are bounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ..client import LoyaltyClient
from ..models import Page
from ..pull.member_tree import TREE, member_tree, walk_tree
from ..pull.program_lists import ListPart, program_lists
from .cost import PullEstimate, tree_depth, wanted_kinds
from .references import referenced_card_definitions

__all__ = ["estimate_pull"]

T = TypeVar("T")

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
    client: LoyaltyClient,
    kinds: Iterable[str] | None = None,
    *,
    cards_per_member: int | None = None,
    read_members: bool = False,
) -> PullEstimate:
    """The calls ``ProgramSnapshot.pull(client, kinds=kinds)`` will make (see ``cost``).

    Walks the lists (rewards, benefits, card definitions, tier structures, programs and
    members, as far as ``kinds`` need them) with ``client``: those figures are exact, as is
    one call per member. The bucket lists are bounded: at most ``cards_per_member`` cards
    per member (by default one per card definition listed, the most a member can hold),
    each one page. ``read_members`` counts each member's cards instead, reading every
    member (one call each, spent by the estimate).
    """
    if cards_per_member is not None and cards_per_member < 0:
        raise ValueError("cards_per_member must be 0 or more")
    if read_members and cards_per_member is not None:
        raise ValueError("give cards_per_member or read_members, not both")
    wanted = wanted_kinds(kinds)
    depth = tree_depth(wanted)
    used_before = client.quota.calls_used
    walk = _Walk()
    parts: dict[str, int] = {"token": 1}
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
        parts["card_definitions_by_id"] = len(referenced - {d.id for d in definitions})
    if depth >= 1:  # the member lists are walked, the members read only when asked to
        walked = min(depth, 3 if read_members else 2)
        with ThreadPoolExecutor(8) as pool:  # members read eight at a time
            tree = walk_tree(
                member_tree(walked),
                client,
                on_page=lambda r, _: walk.count(r.part),
                read_all=pool.map,
            )
        for part in TREE[: min(walked, 2)]:  # the lists: one call per page walked
            parts[part] = walk.parts.get(part, 0)
        if depth >= 3:  # one read per member
            parts["cards"] = len(tree.members)
        if depth >= 4 and read_members:
            parts["pending_buckets"] = sum(
                1 for m in tree.cards for c in m.cards if c.card is not None
            )
        elif depth >= 4:
            per_member = len(definitions) if cards_per_member is None else cards_per_member
            parts["pending_buckets"] = len(tree.members) * per_member
    quota = client.quota
    # What is exact: lists, members; not the cards' references (read by ID when unlisted) or,
    # without read_members, the bucket lists.
    return PullEstimate(
        wanted,
        parts,
        exact=depth < 3 or ("card_definitions" not in wanted and (depth < 4 or read_members)),
        spent=quota.calls_used - used_before,
        remaining=quota.remaining,
        limit=quota.limit,
        resets_at=quota.resets_at,
    )
