"""The synthetic programs, their members with cards and customers, and pending buckets.

Skewed the way real programs are, so that sampled and budget-aware pulls are tried on data
where sampling is hard: one large program and smaller, younger ones; joins that grow over
the years; old joiners more often inactive; heavy-tailed balances that grow with tenure;
and pending points on a minority of cards, mostly active recent members'. With the defaults
a 20,000-member program (seed 0) has 18 % inactive members and 20 % of cards holding
pending points; its top 1 % of members hold about 18 % of all points (an exponential, the
shape before, gives them under 6 %), its median balance is about 600 and its mean 1,800.
Balance tracks what a sampler can see before reading a member (program, status, join
date), so stratifying narrows estimates, but a lognormal tail remains within each group.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

from lyt_toolkit.models.enums import MemberStatus, PendingBucketStatus
from lyt_toolkit.models.ids import IdPrefix

from .rows import growing_ages, row_id, seed_tag
from .words import FIRST_NAMES, LAST_NAMES

YEAR = 365 * 86400
"""Seconds in a year, the unit tenure is counted in."""

HISTORY_YEARS = 6.0
"""The first (largest) program started six years ago; each later one is three quarters as
old as the one before, so a fifth program is about two years old."""

PROGRAM_AGE_FACTOR = 0.75
"""Program ``k`` is ``0.75 ** (k - 1)`` as old as the first."""

PROGRAM_SIZE_EXPONENT = 1.5
"""Program ``k`` gets members in proportion to ``1 / k ** 1.5``: with three programs
65 %, 23 % and 12 %."""

GROWTH = 2.0
"""Joins per day grow ``e ** 2`` (about 7.4) fold over a program's life: a third of a
six-year program's members joined in its last year."""

INACTIVE_BASE = 0.06
"""The chance a member is INACTIVE at joining: 6 % (``INACTIVE_PER_YEAR`` more per year of
tenure, at most ``INACTIVE_MOST``). About 18 % of a six-year program's members."""

INACTIVE_PER_YEAR = 0.06
"""The chance a member is INACTIVE grows 6 points per year of tenure."""

INACTIVE_MOST = 0.5
"""The chance a member is INACTIVE is at most 50 %."""

BALANCE_MEDIAN = 300.0
"""An active member's balance is lognormal around a median of ``300 * (1 + years) ** 1.2``
points (300 at joining, about 1,600 after three years) with sigma 1.2, the tail within a
tenure group that a stratified sampler cannot see."""

BALANCE_TENURE_EXPONENT = 1.2
"""The median balance grows as ``(1 + years) ** 1.2`` (see ``BALANCE_MEDIAN``)."""

BALANCE_SIGMA = 1.2
"""The sigma of an active member's lognormal balance (see ``BALANCE_MEDIAN``)."""

INACTIVE_EMPTY = 0.5
"""Half the inactive members hold nothing; the rest a lognormal remnant around
``INACTIVE_MEDIAN`` points with sigma ``INACTIVE_SIGMA``."""

INACTIVE_MEDIAN = 50.0
"""The median balance of an inactive member holding points."""

INACTIVE_SIGMA = 1.0
"""The sigma of an inactive member's lognormal balance."""

PENDING_PER_MEMBER = 0.4
"""Pending buckets per member by default: about a fifth of the cards hold them, two each on
average."""

MOST_BUCKETS = 4
"""A holder holds 1 to 4 pending buckets (more only when asked for over 4 per member)."""

PENDING_RECENCY_YEARS = 1.0
"""A member's chance to hold pending points falls ``e``-fold per year of tenure."""

PENDING_INACTIVE_WEIGHT = 0.05
"""Inactive members hold pending points 20 times less often than active ones of the same
tenure (points earned before they lapsed)."""

PENDING_DAYS = 180
"""Pending buckets activate on a day of the coming 180."""

PENDING_EARNED_DAYS = 60
"""Pending buckets were created (their points earned) in the last 60 days."""


def program_sizes(members: int, programs: int) -> list[int]:
    """Members of each program, ``1 / k ** 1.5`` shares by largest remainder; each program
    gets at least one while there are members enough."""
    weights = [1 / k**PROGRAM_SIZE_EXPONENT for k in range(1, programs + 1)]
    total = sum(weights)
    exact = [members * w / total for w in weights]
    sizes = [int(x) for x in exact]
    by_remainder = sorted(range(programs), key=lambda k: (sizes[k] - exact[k], k))
    for k in by_remainder[: members - sum(sizes)]:
        sizes[k] += 1
    for k in range(programs):
        if not sizes[k] and members >= programs:
            sizes[0] -= 1
            sizes[k] = 1
    return sizes


def program_rows(programs: int, seed: int) -> list[dict[str, Any]]:
    """``programs`` ACTIVE programs, the first the oldest (see ``HISTORY_YEARS``)."""
    return [
        {
            "id": row_id(IdPrefix.PROGRAM, seed, k),
            "name": "Synthetic Rewards" if k == 1 else f"Synthetic Rewards {k}",
            "status": "ACTIVE",
            "start_date": f"now-{program_days(k)}d",
            "end_date": None,
            "validity_hours": {"type": "ANY_TIME"},
            "metadata": {},
            "created_at": f"now-{program_days(k) + 70}d",
            "updated_at": None,
        }
        for k in range(1, programs + 1)
    ]


def program_days(k: int) -> int:
    """Days since program ``k`` started."""
    return round(HISTORY_YEARS * 365 * PROGRAM_AGE_FACTOR ** (k - 1))


def balance(years: float, active: bool, rng: random.Random) -> int:
    """Points on a card whose member joined ``years`` ago (see ``BALANCE_*``)."""
    if active:
        median = BALANCE_MEDIAN * (1 + years) ** BALANCE_TENURE_EXPONENT
        return int(rng.lognormvariate(math.log(median), BALANCE_SIGMA))
    if rng.random() < INACTIVE_EMPTY:
        return 0
    return int(rng.lognormvariate(math.log(INACTIVE_MEDIAN), INACTIVE_SIGMA))


def member_rows(
    count: int,
    bucket_count: int,
    seed: int,
    rng: random.Random,
    cds: list[str],
    pending: dict[str, str],
    limits: dict[str, int | None],
    programs: int = 1,
) -> dict[str, list[dict[str, Any]]]:
    """``programs`` ACTIVE programs, their members (one card each), customers and buckets.

    Members are numbered program by program, oldest first, so IDs follow join order.
    ``bucket_count`` PENDING buckets go to about half as many cards (1 to 4 each), drawn
    with weights favouring active, recent members; a card's pending total is the sum of
    its buckets. A balance never exceeds its card definition's balance limit (``limits``).
    """
    members: list[dict[str, Any]] = []
    cards: list[dict[str, Any]] = []
    customers: list[dict[str, Any]] = []
    ages: list[int] = []
    weights: list[float] = []
    enabled = [cd for cd in cds if pending[cd] != "IMMEDIATE"] or cds
    # the first card definitions are the common ones, as a program's main card is
    cd_weights = list(itertools.accumulate(1 / k for k in range(1, len(enabled) + 1)))
    statuses = {True: str(MemberStatus.ACTIVE), False: str(MemberStatus.INACTIVE)}
    n = 0
    for k, size in enumerate(program_sizes(count, programs), start=1):
        program_id = row_id(IdPrefix.PROGRAM, seed, k)
        # drawn a program at a time: one call per column is several times faster
        draws = zip(
            growing_ages(size, program_days(k) * 86400, GROWTH, rng),
            rng.choices(FIRST_NAMES, k=size),
            rng.choices(LAST_NAMES, k=size),
            rng.choices(("regular", "regular", "vip"), k=size),
            rng.choices(enabled, cum_weights=cd_weights, k=size),
            strict=True,
        )
        for age, first, last, segment, cd in draws:
            n += 1
            years = age / YEAR
            customer_id = f"cust_Synth{seed_tag(seed)}{n:08d}"
            customers.append(
                {
                    "id": customer_id,
                    "source_id": f"synthetic-customer-{n}",
                    "name": f"{first} {last}",
                    "email": f"{first}.{last}.{n}@example.com".lower(),
                    "metadata": {"segment": segment},
                }
            )
            member_id = row_id(IdPrefix.MEMBER, seed, n)
            inactive = min(INACTIVE_BASE + INACTIVE_PER_YEAR * years, INACTIVE_MOST)
            active = rng.random() >= inactive
            created = f"now-{age}s"
            members.append(
                {
                    "id": member_id,
                    "customer_id": customer_id,
                    "program_id": program_id,
                    "status": statuses[active],
                    "metadata": {},
                    "created_at": created,
                    "updated_at": None,
                }
            )
            points = balance(years, active, rng)
            limit = limits.get(cd)
            cards.append(
                {
                    "id": row_id(IdPrefix.CARD, seed, n),
                    "member_id": member_id,
                    "program_id": program_id,
                    "card_definition_id": cd,
                    "card_type": "INDIVIDUAL",
                    "code": f"SYN-{n:08d}",
                    "member_role": "OWNER",
                    "balance": {
                        "points": points if limit is None else min(points, limit),
                        "pending_points": 0,
                    },
                    "created_at": created,
                    "updated_at": None,
                }
            )
            ages.append(age)
            weights.append(
                math.exp(-years / PENDING_RECENCY_YEARS)
                * (1 if active else PENDING_INACTIVE_WEIGHT)
            )
    buckets = bucket_rows(bucket_count, seed, rng, cards, ages, weights, pending)
    return {
        "programs": program_rows(programs, seed),
        "members": members,
        "cards": cards,
        "pending_buckets": buckets,
        "customers": customers,
    }


def bucket_sizes(total: int, holders: int, rng: random.Random) -> list[int]:
    """``total`` buckets over ``holders`` cards: one each, the rest at random up to
    ``MOST_BUCKETS`` a card, then (only when ``total`` exceeds that) anywhere."""
    sizes = [1] * holders
    room = list(range(holders))
    for _ in range(total - holders):
        if room:
            j = rng.randrange(len(room))
            k = room[j]
            sizes[k] += 1
            if sizes[k] >= MOST_BUCKETS:
                room[j] = room[-1]
                room.pop()
        else:
            sizes[rng.randrange(holders)] += 1
    return sizes


def bucket_rows(
    count: int,
    seed: int,
    rng: random.Random,
    cards: list[dict[str, Any]],
    ages: list[int],
    weights: list[float],
    pending: dict[str, str],
) -> list[dict[str, Any]]:
    """``count`` PENDING buckets on about ``count / 2`` cards drawn by ``weights`` (without
    replacement, Efraimidis-Spirakis keys); each card's pending total is set to their sum.

    A card's buckets are created oldest first and activate in that order, so listing them
    (by ``created_at``) lists them by activation date too.
    """
    if not count or not cards:
        return []
    holders = min(len(cards), -(-count // 2))
    keys = sorted(
        ((math.log(1 - rng.random()) / w, i) for i, w in enumerate(weights)), reverse=True
    )
    chosen = sorted(i for _, i in keys[:holders])
    buckets: list[dict[str, Any]] = []
    for holder, size in zip(chosen, bucket_sizes(count, holders, rng), strict=True):
        card = cards[holder]
        cd = card["card_definition_id"]
        earned_within = min(PENDING_EARNED_DAYS * 86400, ages[holder] - 1)
        created = sorted(
            (rng.randrange(max(earned_within, 1)) + 1 for _ in range(size)), reverse=True
        )
        dates = sorted(rng.randrange(1, PENDING_DAYS + 1) for _ in range(size))
        for age, day in zip(created, dates, strict=True):
            points = rng.randrange(10, 500, 5)
            card["balance"]["pending_points"] += points
            buckets.append(
                {
                    "id": row_id(IdPrefix.PENDING_BUCKET, seed, len(buckets) + 1),
                    "card_id": card["id"],
                    "card_definition_id": cd,
                    "program_id": card["program_id"],
                    "member_id": card["member_id"],
                    "card_type": "INDIVIDUAL",
                    "points": {"total": points},
                    "date": f"now+{day}d",
                    "type": pending[cd] if pending[cd] != "IMMEDIATE" else "PERIOD_BASED",
                    "status": str(PendingBucketStatus.PENDING),
                    "created_at": f"now-{age}s",
                    "updated_at": None,
                }
            )
    return buckets
