"""Verify an applied plan against its rehearsal two ways on a generated program: reading only
what the rehearsal changed (``actions.verify_touched``) against pulling production whole.

    .venv/bin/python benchmarks/verify_touched.py [--members 2000] [--buckets 300]
        [--rewards 100] [--seed 11]

A program of ``members`` members is generated (``lyt_toolkit.synthetic``) and served by a
sandbox standing for production; a snapshot of every kind is pulled from it. The plan (an
``actions.edit`` of two parts) activates ``buckets`` pending buckets dated in the future and
moves ``rewards`` active rewards to draft. It is rehearsed on the snapshot, applied to
production, and verified:

- ``touched``: ``actions.verify_touched(rehearsal, client)``, its cost announced first
  (``verify_touched_cost``);
- ``full``: ``rehearsal.verify(ProgramSnapshot.pull(client))``.

The script prints each route's calls and seconds, checks that the touched route sent no more
than the calls it announced (an upper bound: a card its member's read shows holding no pending
points is not listed), that the reads counted before the rehearsal (``planned_reads``, what
``lyt verify`` refuses on before rehearsing) are no more than those announced, and that both
verifications hold the same checks.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from rehearsal import served  # the sibling benchmark's production: the script's folder

from lyt_toolkit import ProgramSnapshot, actions
from lyt_toolkit.actions.verify_touched import planned_reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--buckets", type=int, default=300)
    parser.add_argument("--rewards", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    with served(args.members, args.seed) as (production, client):
        snapshot = ProgramSnapshot.pull(client, progress=False)
        edit = actions.edit(snapshot)
        buckets = edit.pending_buckets
        future = buckets.index[(buckets["status"] == "PENDING") & (buckets["date"] > "2026-01-20")][
            : args.buckets
        ]
        edit.pending_buckets.loc[future, "status"] = "ACTIVATED"
        rewards = edit.rewards
        edit.rewards.loc[rewards.index[rewards["status"] == "ACTIVE"][: args.rewards], "status"] = (
            "DRAFT"
        )
        plan = edit.plan()
        rehearsal = plan.rehearse(progress=False)
        results = plan.apply(client, progress=False, budget_share=1.0, allow_destroy=True)
        production.settle()
        print(
            f"program: {len(snapshot.members)} members; plan: {len(plan.changes)} changes;"
            f" rehearsal: {len(rehearsal.diff)} changed values"
        )

        announced = actions.verify_touched_cost(rehearsal, client).needed
        planned = planned_reads(snapshot, plan.parts).calls
        print(f"  counted before the rehearsal: {planned} reads (announced after it: {announced})")
        sent = client.quota.calls_used
        started = time.perf_counter()
        touched = actions.verify_touched(rehearsal, client, results=results, budget_share=1.0)
        touched_s, touched_calls = time.perf_counter() - started, client.quota.calls_used - sent
        print(f"  touched: {touched_calls} calls (announced {announced}), {touched_s:.1f} s")
        print(f"           {touched!r}")

        sent = client.quota.calls_used
        started = time.perf_counter()
        after = ProgramSnapshot.pull(client, progress=False, budget_share=1.0)
        full = rehearsal.verify(after, results=results)
        full_s, full_calls = time.perf_counter() - started, client.quota.calls_used - sent
        print(f"     full: {full_calls} calls, {full_s:.1f} s; {full!r}")

    assert touched_calls <= announced, (touched_calls, announced)
    assert planned <= announced, (planned, announced)
    pd.testing.assert_frame_equal(touched.checks, full.checks)
    print(
        f"same checks; touched / full: calls {touched_calls / full_calls:.3f},"
        f" time {touched_s / full_s:.2f}"
    )


if __name__ == "__main__":
    main()
