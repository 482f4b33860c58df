"""Rewards read by ID and benefits by name, many a call, as the interface lists them: what a
saved plan's re-read and the previews of reward moves and benefit creates read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import Benefit, Reward

__all__ = ["IDS_PER_READ", "NAMES_PER_READ", "benefits_named", "listings", "rewards_by_id"]

IDS_PER_READ = 99
"""Rewards one listing reads by ID: an ID filter's ``$in`` takes 100 values, and 99 never
fill a page of 100 (a full last page may carry a cursor to an empty one): one call each."""
NAMES_PER_READ = 10
"""Names one benefits listing asks for (a text filter's ``$in`` takes 10 values)."""


def listings(count: int, per_read: int) -> int:
    """The listings reading ``count`` IDs or names, ``per_read`` a listing."""
    return -(-count // per_read)


def rewards_by_id(client: LoyaltyClient, ids: Sequence[str]) -> dict[str, Reward]:
    """ID -> each reward of ``ids`` the service holds (``IDS_PER_READ`` a listing)."""
    found = {}
    for start in range(0, len(ids), IDS_PER_READ):
        asked = {"id": {"$in": list(ids[start : start + IDS_PER_READ])}}
        for reward in client.rewards.iter(filters=asked, limit=100):
            found[reward.id] = reward
    return found


def benefits_named(client: LoyaltyClient, names: Sequence[str]) -> list[Benefit]:
    """Every live benefit holding one of ``names`` (``NAMES_PER_READ`` a listing; a name
    held by over 100 benefits takes a page more)."""
    return [
        benefit
        for start in range(0, len(names), NAMES_PER_READ)
        for benefit in client.benefits.iter(
            filters={"name": {"$in": list(names[start : start + NAMES_PER_READ])}}, limit=100
        )
    ]
