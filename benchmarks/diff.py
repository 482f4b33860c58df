"""Diff two 50,000-reward snapshots that differ in 1% of their rewards.

    .venv/bin/python benchmarks/diff.py [--rewards 50000] [--share 0.01] [--rounds 3]

The rewards (and their costs) come from a generated program
(``lyt_toolkit.synthetic``, its relative times resolved as the sandbox does)
built into frames once. The later snapshot moves half of the chosen 1% to
DRAFT and renames them, removes a quarter and adds as many new ones, the cost
rows following their rewards. ``ProgramSnapshot.diff`` (whole columns at a
time) is timed against the hand-written route it replaces: rewards and cost
rows turned into one dict per row, keyed by ID (costs by reward, cost and
spending index), compared value by value with NA-safe equality. Both run in
this process one after the other; the script prints each median, their ratio
and checks that both found the same changed values.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Hashable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lyt_toolkit import ProgramSnapshot  # noqa: E402
from lyt_toolkit.frames import reward_costs_frame, rewards_frame  # noqa: E402
from lyt_toolkit.sandbox.timeexpr import resolve_tree  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)


def snapshots(rewards: int, share: float) -> tuple[ProgramSnapshot, ProgramSnapshot]:
    """The earlier snapshot and the later one, ``share`` of the rewards touched."""
    program = generate_program(rewards=rewards, benefits=10, members=10, seed=1)
    program = resolve_tree(program, NOW)  # the file's relative times, as the service reads them
    before = ProgramSnapshot.from_frames(
        {
            "rewards": rewards_frame(program["rewards"]),
            "reward_costs": reward_costs_frame(program["rewards"]),
        },
        pulled_at="2026-01-15T12:00:00Z",
    )
    touched = np.random.default_rng(1).choice(rewards, int(rewards * share), replace=False)
    changed, removed = touched[: len(touched) // 2], touched[len(touched) // 2 :][::2]
    added_from = touched[len(touched) // 2 :][1::2]
    frame = before.rewards.copy()
    frame.loc[changed, "status"] = "DRAFT"
    frame.loc[changed, "name"] = frame.loc[changed, "name"] + " (renamed)"
    new = frame.loc[added_from].copy()
    new["id"] = new["id"] + "_new"
    frame = pd.concat([frame.drop(index=pd.Index(removed)), new], ignore_index=True)
    after = ProgramSnapshot.from_frames(
        {"rewards": frame, "reward_costs": _costs_of(before.reward_costs, frame)},
        pulled_at="2026-01-16T12:00:00Z",
    )
    return before, after


def _costs_of(costs: pd.DataFrame, rewards: pd.DataFrame) -> pd.DataFrame:
    """The cost rows of ``rewards`` (an added reward copies its source's costs)."""
    source = rewards["id"].str.removesuffix("_new")
    wanted = pd.DataFrame({"reward_id": source, "id": rewards["id"]})
    out = costs.merge(wanted, on="reward_id").drop(columns="reward_id")
    out = out.rename(columns={"id": "reward_id"})
    names = rewards.set_index("id")
    out["reward_name"] = out["reward_id"].map(names["name"])
    out["reward_status"] = (
        out["reward_id"].map(names["status"]).astype(costs["reward_status"].dtype)
    )
    return out[costs.columns]


def hand_written(before: ProgramSnapshot, after: ProgramSnapshot) -> int:
    """Changed values of rows in both snapshots, written by hand: a dict per row."""
    keys = {"rewards": ["id"], "reward_costs": ["reward_id", "cost_id", "spending_index"]}

    def rows(frame: pd.DataFrame, key: list[str]) -> dict[tuple[Any, ...], dict[Hashable, Any]]:
        kept = frame.drop(columns=[c for c in ("updated_at",) if c in frame])
        records = kept.astype(object).where(kept.notna(), None).to_dict("records")
        return {tuple(r[k] for k in key): r for r in records}

    count = 0
    for kind, key in keys.items():
        old, new = rows(getattr(before, kind), key), rows(getattr(after, kind), key)
        count += sum(
            1
            for k in old.keys() & new.keys()
            for column, value in old[k].items()
            if value != new[k][column]
        )
    return count


def median_time(run: Any, rounds: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=50_000)
    parser.add_argument("--share", type=float, default=0.01)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    before, after = snapshots(args.rewards, args.share)
    print(
        f"{len(before.rewards)} rewards and {len(before.reward_costs)} cost rows before, "
        f"{len(after.rewards)} rewards after"
    )
    diff_time, diff = median_time(lambda: before.diff(after), args.rounds)
    hand_time, hand_count = median_time(lambda: hand_written(before, after), args.rounds)
    values = int((diff.changes["change"] == "changed").sum())
    print(diff.summary().loc[["rewards", "reward_costs", "total"]].to_string())
    print(f"ProgramSnapshot.diff:      {diff_time:7.3f} s  (median of {args.rounds})")
    print(f"hand-written dict per row: {hand_time:7.3f} s")
    print(f"ratio hand-written / diff: {hand_time / diff_time:.1f}x")
    agree = "yes" if values == hand_count else f"NO ({values} against {hand_count})"
    print(f"same changed values found by both: {agree}")


if __name__ == "__main__":
    main()
