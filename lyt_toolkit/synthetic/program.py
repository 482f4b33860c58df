"""Large synthetic programs in the ``lyt-program/1`` format, for benchmarks.

The demo program is small and full of deliberate mistakes; benchmarks need the
opposite: many rows, all well formed and resolvable, identical for a given seed.
Rows are built from plain dicts and a seeded ``random.Random`` so that 100,000
rewards take a few seconds and the same seed always yields the same file.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from lyt_toolkit._text import counted
from lyt_toolkit.models.enums import CardDefinitionStatus

from .catalog import catalog_rows
from .loyalty import (
    benefit_rows,
    card_definition_rows,
    point_values,
    reward_rows,
    tier_structure_rows,
)
from .members import PENDING_PER_MEMBER, member_rows
from .rows import seed_tag

FORMAT = "lyt-program/1"
DEFAULT_NOW = "2026-01-15T12:00:00Z"

MINIMUM_COUNTS = {
    "programs": 1,
    "rewards": 0,
    "benefits": 0,
    "card_definitions": 2,
    "tier_structures": 0,
    "members": 0,
    "pending_buckets": 0,
}
"""The fewest of each resource a program file may hold: one program, two card definitions
(so that ACTIVE and non-ACTIVE ones both exist for references to point at)."""


def generate_program(
    *,
    programs: int = 1,
    rewards: int = 1000,
    benefits: int = 1000,
    card_definitions: int = 10,
    tier_structures: int = 10,
    members: int = 100,
    pending_buckets: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """A well-formed synthetic program with the requested number of each resource.

    Every reference resolves; ACTIVE benefits point at ACTIVE card definitions;
    names are unique; ``created_at`` values are distinct. Members are skewed as in
    production (see :mod:`~.members`): split unevenly over ``programs`` loyalty programs,
    joined over up to six years, some inactive, with heavy-tailed balances. Each member
    holds one card. ``pending_buckets`` is the total number of PENDING buckets (default
    0.4 per member, rounded), held 1 to 4 a card by about half as many cards, mostly
    active recent members', activating over the coming 180 days. Rewards are priced near
    their card definition's value per point (see :func:`~.loyalty.reward_rows`). The same
    arguments always give the same dict.
    """
    if pending_buckets is None:
        pending_buckets = round(PENDING_PER_MEMBER * members)
    counts = {
        "programs": programs,
        "rewards": rewards,
        "benefits": benefits,
        "card_definitions": card_definitions,
        "tier_structures": tier_structures,
        "members": members,
        "pending_buckets": pending_buckets,
    }
    for label, value in counts.items():
        if value < MINIMUM_COUNTS[label]:
            raise ValueError(f"{label} must be >= {MINIMUM_COUNTS[label]}, got {value}")
    if pending_buckets and not members:
        raise ValueError(f"pending_buckets needs members to hold them, got {pending_buckets}")
    rng = random.Random(seed)
    cds = card_definition_rows(card_definitions, seed, rng)
    active_cds = [c["id"] for c in cds if c["status"] == CardDefinitionStatus.ACTIVE]
    pending_cds = {c["id"]: c["pending_points"]["type"] for c in cds}
    limits = {c["id"]: balance_limit(c) for c in cds}
    catalog = catalog_rows(seed)
    values = point_values(active_cds, rng)
    return {
        "format": FORMAT,
        "description": (
            f"Synthetic program (seed {seed}): {counted(rewards, 'reward')}, "
            f"{counted(benefits, 'benefit')}, {counted(card_definitions, 'card definition')}, "
            f"{counted(tier_structures, 'tier structure')}, {counted(members, 'member')} over "
            f"{counted(programs, 'program')}, {counted(pending_buckets, 'pending bucket')}."
        ),
        "now": DEFAULT_NOW,
        "card_definitions": cds,
        "tier_structures": tier_structure_rows(tier_structures, seed, rng, active_cds),
        "rewards": reward_rows(rewards, seed, rng, values, catalog),
        "benefits": benefit_rows(benefits, seed, rng, active_cds, [c["id"] for c in cds], catalog),
        **member_rows(
            members, pending_buckets, seed, rng, active_cds, pending_cds, limits, programs
        ),
        **catalog,
        "promotion_tiers": [],
        "projects": [
            {
                "id": f"proj_Synth{seed_tag(seed)}",
                "name": "Synthetic project",
                "plan": {"webhooks": True},
            }
        ],
        "webhooks": [],
    }


def balance_limit(card_definition: dict[str, Any]) -> int | None:
    """The most points a card of this definition may hold (its balance-based earning
    limit), None when it has none: generated balances stay within it."""
    limits = card_definition["earning_limits"]["global"]["limits"]
    caps = [limit["max"] for limit in limits if limit["type"] == "BALANCE_BASED"]
    return min(caps) if caps else None


def write_program(path: str | Path, **kwargs: Any) -> Path:
    """Generate a program (see :func:`generate_program`) and write it as JSON to ``path``."""
    return save_program(path, generate_program(**kwargs))


def save_program(path: str | Path, program: dict[str, Any]) -> Path:
    """Write ``program`` (as :func:`generate_program` returns it) as JSON to ``path``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # json.dumps, not json.dump: dump streams through the pure-Python encoder, about
    # three times slower (8 s against 3 s for 200,000 members)
    text = json.dumps(program, separators=(",", ":"))
    with target.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.write("\n")
    return target
