"""Time every economics frame of a generated program against the goal of under 1 s in total.

    .venv/bin/python benchmarks/economics.py [--rewards 50000] [--cards 10000]
        [--buckets 20000] [--rounds 3]

The program comes from ``lyt_toolkit.synthetic`` (its relative times resolved as the
sandbox does) with one member, and one card, per requested card, and the requested
pending buckets. Rewards, costs, benefits and card definitions are built into frames
with the frame builders, as a pull builds them; cards and pending buckets straight from
the generated records with their schemas (a pull reads cards from member details).
No sandbox is involved: the figure is the economics alone, from a snapshot in memory
with the frames a pull gives. ``ECONOMICS`` lists the (name, function) pairs timed;
each function takes the snapshot. The script prints each frame's median time and rows,
and the total against the goal.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lyt_toolkit import ProgramSnapshot  # noqa: E402
from lyt_toolkit.economics import (  # noqa: E402
    burn_values,
    earn_rates,
    effective_return,
    expiry_schedule,
    liability,
    mispriced,
    pending_schedule,
    point_values,
    summarise,
)
from lyt_toolkit.frames import (  # noqa: E402
    benefits_frame,
    card_definitions_frame,
    reward_costs_frame,
    rewards_frame,
)
from lyt_toolkit.frames.members import CARDS, PENDING_BUCKETS  # noqa: E402
from lyt_toolkit.sandbox.timeexpr import resolve_tree  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
GOAL_SECONDS = 1.0

ECONOMICS: list[tuple[str, Callable[[ProgramSnapshot], pd.DataFrame]]] = [
    ("earn_rates", earn_rates),
    ("burn_values", burn_values),
    ("point_values", point_values),
    ("effective_return", effective_return),
    ("liability", liability),
    ("pending_schedule", pending_schedule),
    ("expiry_schedule", expiry_schedule),
    ("mispriced", lambda s: mispriced(burn_values(s), point_values(s))),
]
"""Every economics frame of one snapshot, as (name, function of the snapshot); each is timed
on its own (so point values are computed again inside those that need them). The goal is
judged on ``summarise``, which computes them all at once, as a report does."""


def snapshot(rewards: int, cards: int, buckets: int) -> ProgramSnapshot:
    """The generated program as a snapshot (see the module docstring)."""
    program = generate_program(
        rewards=rewards, benefits=1000, members=cards, pending_buckets=buckets, seed=1
    )
    program = resolve_tree(program, NOW)
    return ProgramSnapshot.from_frames(
        {
            "rewards": rewards_frame(program["rewards"]),
            "reward_costs": reward_costs_frame(program["rewards"]),
            "benefits": benefits_frame(program["benefits"]),
            "card_definitions": card_definitions_frame(program["card_definitions"]),
            "cards": CARDS.build(_card(c) for c in program["cards"]),
            "pending_buckets": PENDING_BUCKETS.build(
                _bucket(b) for b in program["pending_buckets"]
            ),
        },
        pulled_at=NOW,
    )


def _card(c: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: c[k] for k in ("id", "program_id", "member_id", "card_definition_id")},
        **{k: c[k] for k in ("card_type", "code", "member_role", "created_at")},
        "balance_points": c["balance"]["points"],
        "balance_pending_points": c["balance"]["pending_points"],
    }


def _bucket(b: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: b[k] for k in ("id", "program_id", "member_id", "card_id")},
        **{k: b[k] for k in ("card_definition_id", "type", "status", "created_at")},
        "points_total": b["points"]["total"],
        "date": b["date"],
        "program_status": None,
        "member_status": None,
        "updated_at": b["updated_at"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=50_000)
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--buckets", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    snap = snapshot(args.rewards, args.cards, args.buckets)
    print(
        f"program: {len(snap.rewards)} rewards, {len(snap.reward_costs)} cost rows, "
        f"{len(snap.benefits)} benefits, {len(snap.card_definitions)} card definitions, "
        f"{len(snap.cards)} cards, {len(snap.pending_buckets)} pending buckets"
    )
    total = 0.0
    for name, function in ECONOMICS:
        median, rows = _timed(function, snap, args.rounds)
        total += median
        print(f"{name:<20} {median * 1000:8.1f} ms  {rows:>7} rows")
    print(f"{'sum of the above':<20} {total * 1000:8.1f} ms")
    every, _ = _timed(lambda s: summarise(s).frames(), snap, args.rounds)
    verdict = "met" if every < GOAL_SECONDS else "NOT met"
    print(
        f"{'summarise (all)':<20} {every * 1000:8.1f} ms  "
        f"(goal: every frame under {GOAL_SECONDS:.0f} s: {verdict})"
    )


def _timed(
    function: Callable[[ProgramSnapshot], Any], snap: ProgramSnapshot, rounds: int
) -> tuple[float, int]:
    """The median seconds of ``rounds`` calls, and the rows (or length) of the last result."""
    times, rows = [], 0
    for _ in range(rounds):
        start = time.perf_counter()
        rows = len(function(snap))
        times.append(time.perf_counter() - start)
    return statistics.median(times), rows


if __name__ == "__main__":
    main()
