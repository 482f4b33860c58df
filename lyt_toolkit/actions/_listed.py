"""Rewards and benefits read by ID and benefits by name, many a call, as the interface lists
them: what a saved plan's re-read, a focused verification and the previews of reward moves
and benefit creates read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import Benefit, Reward

__all__ = [
    "IDS_PER_READ",
    "LISTED_BY_ID",
    "NAMES_PER_READ",
    "benefits_named",
    "listed_by_id",
    "listings",
    "rewards_by_id",
]

IDS_PER_READ = 99
"""Rewards one listing reads by ID: an ID filter's ``$in`` takes 100 values, and 99 never
fill a page of 100 (a full last page may carry a cursor to an empty one): one call each."""
NAMES_PER_READ = 10
"""Names one benefits listing asks for (a text filter's ``$in`` takes 10 values)."""


def listings(count: int, per_read: int) -> int:
    """The listings reading ``count`` IDs or names, ``per_read`` a listing."""
    return -(-count // per_read)


LISTED_BY_ID = ("rewards", "benefits")
"""The kinds whose list takes an ID filter (``$in``)."""


def listed_by_id(client: LoyaltyClient, kind: str, ids: Sequence[str]) -> dict[str, Any]:
    """ID -> each object of ``ids`` (of a kind of ``LISTED_BY_ID``) the service lists
    (``IDS_PER_READ`` a listing)."""
    resource = getattr(client, kind)
    found = {}
    for start in range(0, len(ids), IDS_PER_READ):
        asked = {"id": {"$in": list(ids[start : start + IDS_PER_READ])}}
        for model in resource.iter(filters=asked, limit=100):
            found[model.id] = model
    return found


def rewards_by_id(client: LoyaltyClient, ids: Sequence[str]) -> dict[str, Reward]:
    """ID -> each reward of ``ids`` the service holds (``listed_by_id``)."""
    return listed_by_id(client, "rewards", ids)


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
