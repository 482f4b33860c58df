"""Daily snapshots of one generated program, built in memory (no sandbox, no HTTP).

``daily_snapshots(members, days)`` generates one program with ``lyt_toolkit.synthetic``
(its relative times resolved as the sandbox does), builds its frames once, the small kinds
with the frame builders a pull uses and members, cards and pending buckets straight from
the generated records with their schemas, then yields one ``ProgramSnapshot`` a day:

- about 8 % of the cards earn or burn each day (a random walk of their balances, never
  below zero) and about 2 % see their pending points change;
- about 0.3 % of the members change status (ACTIVE and INACTIVE), with ``updated_at`` set;
- about 0.1 % more members join each day, with a card each (the program grows);
- a day's pending buckets whose activation date has passed are gone.

The same arguments always give the same snapshots. Used by ``benchmarks/scale.py history``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.frames import (
    benefits_frame,
    card_definitions_frame,
    programs_frame,
    reward_costs_frame,
    rewards_frame,
    tier_structures_frame,
)
from lyt_toolkit.frames.members import CARDS, MEMBERS, PENDING_BUCKETS
from lyt_toolkit.sandbox.timeexpr import resolve_tree
from lyt_toolkit.synthetic import generate_program

START = datetime(2026, 1, 1, 6, tzinfo=UTC)
"""The first day's pull time; each later day is 24 hours on."""
SIZES = {"rewards": 500, "benefits": 100, "card_definitions": 5, "tier_structures": 3}
"""The program beside its members (the ``pull`` section's)."""


def base_frames(members: int, seed: int) -> dict[str, pd.DataFrame]:
    """Every frame of a generated program of ``members`` members (day 0, before any change),
    plus ``joiners``: a second generated program's members and cards, who join day by day."""
    program = resolve_tree(generate_program(members=members, seed=seed, **SIZES), START)
    frames = _frames(program)
    extra = max(members // 1000, 1) * 40  # enough joiners for 40 days at 0.1 % a day
    others = resolve_tree(generate_program(members=extra, seed=seed + 1, **SIZES), START)
    joiners = _frames(others)
    same = {  # the joiners' program and card definitions are the first program's
        "program_id": dict(zip(joiners["programs"]["id"], frames["programs"]["id"], strict=True)),
        "card_definition_id": dict(
            zip(
                joiners["card_definitions"]["id"],
                frames["card_definitions"]["id"],
                strict=True,
            )
        ),
    }
    for kind in ("members", "cards"):
        for column in ("id", "member_id", "customer_id"):
            if column in joiners[kind]:  # IDs of their own, never the first program's
                renamed = joiners[kind][column].str.replace("_0", "_j", n=1, regex=False)
                joiners[kind][column] = renamed.astype(joiners[kind][column].dtype)
        for column, mapping in same.items():
            if column in joiners[kind]:
                mapped = joiners[kind][column].map(mapping)
                joiners[kind][column] = mapped.astype(joiners[kind][column].dtype)
    frames["joiner_members"], frames["joiner_cards"] = joiners["members"], joiners["cards"]
    return frames


def _frames(program: dict[str, Any]) -> dict[str, pd.DataFrame]:
    return {
        "rewards": rewards_frame(program["rewards"]),
        "reward_costs": reward_costs_frame(program["rewards"]),
        "benefits": benefits_frame(program["benefits"]),
        "card_definitions": card_definitions_frame(program["card_definitions"]),
        "tier_structures": tier_structures_frame(program["tier_structures"]),
        "programs": programs_frame(program["programs"]),
        "members": MEMBERS.build(_member(m) for m in program["members"]),
        "cards": CARDS.build(card_row(c) for c in program["cards"]),
        "pending_buckets": PENDING_BUCKETS.build(bucket_row(b) for b in program["pending_buckets"]),
    }


def _member(m: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: m[k] for k in ("id", "program_id", "customer_id", "status", "created_at")},
        "metadata": None,
        "updated_at": m["updated_at"],
    }


def card_row(c: dict[str, Any]) -> dict[str, Any]:
    """A generated card as the ``cards`` frame's row (a pull reads it from member details)."""
    return {
        **{k: c[k] for k in ("id", "program_id", "member_id", "card_definition_id")},
        **{k: c[k] for k in ("card_type", "code", "member_role", "created_at")},
        "balance_points": c["balance"]["points"],
        "balance_pending_points": c["balance"]["pending_points"],
        "lifetime_pending_canceled": c.get("lifetime_bucket", {})
        .get("pending_points", {})
        .get("canceled", 0),
    }


def bucket_row(b: dict[str, Any]) -> dict[str, Any]:
    """A generated pending bucket as the ``pending_buckets`` frame's row."""
    return {
        **{k: b[k] for k in ("id", "program_id", "member_id", "card_id")},
        **{k: b[k] for k in ("card_definition_id", "type", "status", "created_at")},
        "points_total": b["points"]["total"],
        "date": b["date"],
        "program_status": None,
        "member_status": None,
        "updated_at": b["updated_at"],
    }


def daily_snapshots(members: int, days: int, seed: int = 0) -> Iterator[ProgramSnapshot]:
    """``days`` snapshots of one program of ``members`` members, a day apart (see the
    module doc); each is built when asked for, from the day before."""
    frames = base_frames(members, seed)
    joiner_members, joiner_cards = frames.pop("joiner_members"), frames.pop("joiner_cards")
    per_day = max(members // 1000, 1)
    rng = np.random.default_rng(seed)
    members_frame, cards = frames["members"], frames["cards"]
    for day in range(days):
        at = pd.Timestamp(START) + pd.Timedelta(days=day)
        if day:
            members_frame, cards = _next_day(members_frame, cards, rng, at)
            joined = slice((day - 1) * per_day, day * per_day)
            members_frame = pd.concat(
                [members_frame, _joined(joiner_members.iloc[joined], at)], ignore_index=True
            )
            cards = pd.concat([cards, _joined(joiner_cards.iloc[joined], at)], ignore_index=True)
        buckets = frames["pending_buckets"]
        buckets = buckets[buckets["date"] >= at.normalize()].reset_index(drop=True)
        yield ProgramSnapshot.from_frames(
            {**frames, "members": members_frame, "cards": cards, "pending_buckets": buckets},
            source="https://api.example.test/v1",
            pulled_at=at,
        )


def _joined(rows: pd.DataFrame, at: pd.Timestamp) -> pd.DataFrame:
    out = rows.copy()
    out["created_at"] = at - pd.Timedelta(hours=3)
    return out


def _next_day(
    members: pd.DataFrame, cards: pd.DataFrame, rng: np.random.Generator, at: pd.Timestamp
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The members and cards a day later: statuses flipped, balances earned and burnt."""
    members, cards = members.copy(), cards.copy()
    flip = rng.random(len(members)) < 0.003
    active = members["status"] == "ACTIVE"
    members.loc[flip & active, "status"] = "INACTIVE"
    members.loc[flip & ~active, "status"] = "ACTIVE"
    members.loc[flip, "updated_at"] = at - pd.Timedelta(hours=1)
    points = cards["balance_points"].to_numpy(dtype="int64", na_value=0)
    moved = rng.random(len(cards)) < 0.08
    step = np.rint(rng.normal(40, 300, moved.sum())).astype("int64")
    points[moved] = np.maximum(points[moved] + step, 0)
    cards["balance_points"] = pd.Series(points, cards.index, cards["balance_points"].dtype)
    pending = cards["balance_pending_points"].to_numpy(dtype="int64", na_value=0)
    changed = rng.random(len(cards)) < 0.02
    pending[changed] = rng.integers(0, 500, changed.sum())
    cards["balance_pending_points"] = pd.Series(
        pending, cards.index, cards["balance_pending_points"].dtype
    )
    return members, cards
