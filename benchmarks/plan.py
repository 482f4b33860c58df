"""Plan an edit of 50,000 rewards (and their cost rows) with 1% of them edited, against the
diff of the same frames.

    .venv/bin/python benchmarks/plan.py [--rewards 50000] [--share 0.01] [--rounds 3]
                                        [--warmup 1]

The rewards and their costs come from a generated program (``lyt_toolkit.synthetic``, its
relative times resolved as the sandbox does), built into frames once as a pull builds
them. The edit moves ``share`` of the ACTIVE rewards to DRAFT, as an analyst does in
pandas. ``ChangePlan.from_frames`` (checking every edited frame, diffing it with the base
and mapping each change to a call) is timed against ``ProgramSnapshot.diff`` of the same
two states, in this process, alternating; the script prints each median, their ratio
against the goal (at most 1.5x the diff) and checks the plan holds one call per edit.
``--warmup`` untimed rounds of both come first: the first calls in a process pay for
growing Arrow's memory pool and pandas' first-use paths, and without them that cost
falls on whichever route happens to be timed first (``--warmup 0`` shows it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lyt_toolkit import ProgramSnapshot, actions  # noqa: E402
from lyt_toolkit.actions import ChangePlan  # noqa: E402
from lyt_toolkit.frames import reward_costs_frame, rewards_frame  # noqa: E402
from lyt_toolkit.sandbox.timeexpr import resolve_tree  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
GOAL = 1.5


def states(rewards: int, share: float) -> tuple[ProgramSnapshot, actions.ProgramEdit]:
    """The base snapshot (rewards and reward costs) and an edit of ``share`` of its rewards."""
    program = resolve_tree(generate_program(rewards=rewards, benefits=10, members=10, seed=1), NOW)
    base = ProgramSnapshot.from_frames(
        {
            "rewards": rewards_frame(program["rewards"]),
            "reward_costs": reward_costs_frame(program["rewards"]),
        },
        pulled_at=NOW,
    )
    edit = actions.edit(base)
    active = np.flatnonzero((edit.rewards["status"] == "ACTIVE").to_numpy())
    chosen = np.random.default_rng(1).choice(active, int(rewards * share), replace=False)
    edit.rewards.loc[edit.rewards.index[chosen], "status"] = "DRAFT"
    return base, edit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=50_000)
    parser.add_argument("--share", type=float, default=0.01)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds first")
    args = parser.parse_args()
    base, edit = states(args.rewards, args.share)
    after = ProgramSnapshot.from_frames(edit.frames(), pulled_at=NOW)
    routes: dict[str, Callable[[], object]] = {
        "plan": lambda: ChangePlan.from_frames(base, edit),
        "diff": lambda: base.diff(after),
    }
    times: dict[str, list[float]] = {name: [] for name in routes}
    for _ in range(args.warmup):
        for route in routes.values():
            route()
    for _ in range(args.rounds):
        for name, route in routes.items():
            start = time.perf_counter()
            route()
            times[name].append(time.perf_counter() - start)
    plan = ChangePlan.from_frames(base, edit)
    edited = int(args.rewards * args.share)
    calls = int(plan.changes["calls"].sum())
    print(
        f"{args.rewards} rewards, {len(base.reward_costs)} cost rows, {edited} edited; "
        f"the plan holds {calls} calls ({'one per edit' if calls == edited else 'MISMATCH'})"
    )
    medians = {name: statistics.median(t) for name, t in times.items()}
    for name, median in medians.items():
        print(f"{name:<6} {median:7.3f} s")
    ratio = medians["plan"] / medians["diff"]
    verdict = "met" if ratio <= GOAL else "NOT met"
    print(f"plan / diff = {ratio:.2f} (goal: at most {GOAL}: {verdict})")


if __name__ == "__main__":
    main()
