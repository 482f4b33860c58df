"""The synthetic program itself, its members with their cards, customers and pending buckets."""

from __future__ import annotations

import random
from typing import Any

from lyt_toolkit.models.enums import MemberStatus, PendingBucketStatus
from lyt_toolkit.models.ids import IdPrefix

from .rows import created_times, row_id, seed_tag
from .words import FIRST_NAMES, LAST_NAMES


def member_rows(
    count: int, seed: int, rng: random.Random, cds: list[str], pending: dict[str, str]
) -> dict[str, list[dict[str, Any]]]:
    """One ACTIVE program, its members (one card each), their customers and pending buckets."""
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
    bucket_n = 0
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
        card_id = row_id(IdPrefix.CARD, seed, n)
        cd = rng.choice(enabled)
        pending_total = 0
        for _ in range(rng.randrange(0, 4)):
            bucket_n += 1
            points = rng.randrange(10, 500, 5)
            pending_total += points
            buckets.append(
                {
                    "id": row_id(IdPrefix.PENDING_BUCKET, seed, bucket_n),
                    "card_id": card_id,
                    "card_definition_id": cd,
                    "program_id": program_id,
                    "member_id": member_id,
                    "card_type": "INDIVIDUAL",
                    "points": {"total": points},
                    "date": f"now{rng.choice('+-')}{rng.randrange(1, 60)}d",
                    "type": pending[cd] if pending[cd] != "IMMEDIATE" else "PERIOD_BASED",
                    "status": str(PendingBucketStatus.PENDING),
                    "created_at": created,
                    "updated_at": None,
                }
            )
        cards.append(
            {
                "id": card_id,
                "member_id": member_id,
                "program_id": program_id,
                "card_definition_id": cd,
                "card_type": "INDIVIDUAL",
                "code": f"SYN-{n:08d}",
                "member_role": "OWNER",
                "balance": {"points": rng.randrange(0, 20000), "pending_points": pending_total},
                "created_at": created,
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
