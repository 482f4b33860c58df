"""The synthetic program itself, its members with their cards, customers and pending buckets."""

from __future__ import annotations

import random
from typing import Any

from lyt_toolkit.models.enums import MemberStatus, PendingBucketStatus
from lyt_toolkit.models.ids import IdPrefix

from .rows import created_times, row_id, seed_tag
from .words import FIRST_NAMES, LAST_NAMES

PENDING_DAYS = 180
"""Pending buckets activate on a day of the coming 180."""


def member_rows(
    count: int,
    bucket_count: int,
    seed: int,
    rng: random.Random,
    cds: list[str],
    pending: dict[str, str],
) -> dict[str, list[dict[str, Any]]]:
    """One ACTIVE program, its members (one card each), their customers and pending buckets.

    ``bucket_count`` PENDING buckets fall on cards drawn at random; each card's pending total
    is the sum of its buckets.
    """
    program_id = row_id(IdPrefix.PROGRAM, seed, 1)
    programs = [
        {
            "id": program_id,
            "name": "Synthetic Rewards",
            "status": "ACTIVE",
            "start_date": "now-730d",
            "end_date": None,
            "validity_hours": {"type": "ANY_TIME"},
            "metadata": {},
            "created_at": "now-800d",
            "updated_at": None,
        }
    ]
    members: list[dict[str, Any]] = []
    cards: list[dict[str, Any]] = []
    buckets: list[dict[str, Any]] = []
    customers: list[dict[str, Any]] = []
    enabled = [cd for cd in cds if pending[cd] != "IMMEDIATE"] or cds
    holders = sorted(rng.randrange(count) for _ in range(bucket_count)) if count else []
    for n, created in enumerate(created_times(count, rng), start=1):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        customer_id = f"cust_Synth{seed_tag(seed)}{n:08d}"
        customers.append(
            {
                "id": customer_id,
                "source_id": f"synthetic-customer-{n}",
                "name": f"{first} {last}",
                "email": f"{first}.{last}.{n}@example.com".lower(),
                "metadata": {"segment": rng.choice(("regular", "regular", "vip"))},
            }
        )
        member_id = row_id(IdPrefix.MEMBER, seed, n)
        status = MemberStatus.ACTIVE if rng.random() < 0.9 else MemberStatus.INACTIVE
        members.append(
            {
                "id": member_id,
                "customer_id": customer_id,
                "program_id": program_id,
                "status": str(status),
                "metadata": {},
                "created_at": created,
                "updated_at": None,
            }
        )
        cards.append(
            {
                "id": row_id(IdPrefix.CARD, seed, n),
                "member_id": member_id,
                "program_id": program_id,
                "card_definition_id": rng.choice(enabled),
                "card_type": "INDIVIDUAL",
                "code": f"SYN-{n:08d}",
                "member_role": "OWNER",
                "balance": {"points": int(rng.expovariate(1 / 2000)), "pending_points": 0},
                "created_at": created,
                "updated_at": None,
            }
        )
    for n, holder in enumerate(holders, start=1):
        card = cards[holder]
        points = rng.randrange(10, 500, 5)
        card["balance"]["pending_points"] += points
        cd = card["card_definition_id"]
        buckets.append(
            {
                "id": row_id(IdPrefix.PENDING_BUCKET, seed, n),
                "card_id": card["id"],
                "card_definition_id": cd,
                "program_id": program_id,
                "member_id": card["member_id"],
                "card_type": "INDIVIDUAL",
                "points": {"total": points},
                "date": f"now+{rng.randrange(1, PENDING_DAYS + 1)}d",
                "type": pending[cd] if pending[cd] != "IMMEDIATE" else "PERIOD_BASED",
                "status": str(PendingBucketStatus.PENDING),
                "created_at": card["created_at"],
                "updated_at": None,
            }
        )
    return {
        "programs": programs,
        "members": members,
        "cards": cards,
        "pending_buckets": buckets,
        "customers": customers,
    }
