"""Rehearse an activation plan on a full snapshot of a generated program: the read after the
run as the rehearsal does it, against pulling the rehearsal's sandbox whole, side by side.

    .venv/bin/python benchmarks/rehearsal.py [--members 5000] [--buckets 200] [--seed 11]

A program of ``members`` members is generated (``lyt_toolkit.synthetic``) and served by a
sandbox; one snapshot of every kind is pulled from it. The plan activates ``buckets``
pending buckets dated in the future. It is rehearsed twice, one route after the other:

- ``rehearsal``: ``plan.rehearse(snapshot)`` as shipped, which reads every list again but
  only the member trees the run wrote to, copying the others from the snapshot;
- ``full``: the same rehearsal with the read after the run reading every member again, the
  route a rehearsal took before (and an analyst takes who pulls the sandbox whole to see
  what changed).

The script prints, for each, the calls the read after the run sent and the seconds the
whole rehearsal took, their ratios, and checks the two ``after`` snapshots and diffs are
equal frame for frame (the fast read is only worth having if it is the same answer).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd

from lyt_toolkit import ProgramSnapshot, actions
from lyt_toolkit.actions import rehearsal
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.frames.registry import FRAME_NAMES
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

NOW = "2026-01-15T12:00:00Z"


@contextmanager
def reading_every_member() -> Iterator[None]:
    """The rehearsal's read after the run told that any member may have changed (as a write
    it cannot place would): every member's tree is read again."""
    shipped = rehearsal.repull

    def whole(snapshot: ProgramSnapshot, client: Any, changed: Any, **options: Any) -> Any:
        return shipped(snapshot, client, None, **options)

    rehearsal.repull = whole  # type: ignore[assignment]
    try:
        yield
    finally:
        rehearsal.repull = shipped


@contextmanager
def served(members: int, seed: int) -> Iterator[tuple[Sandbox, LoyaltyClient]]:
    """A sandbox with no call budget serving a generated program of ``members`` members on
    the fixed clock ``NOW``, and a client of it."""
    program = generate_program(members=members, seed=seed)
    program.pop("now", None)
    with (
        Sandbox.start(program, now=NOW, plan="unlimited") as sandbox,
        LoyaltyClient(
            base_url=sandbox.base_url, env_file=None, **sandbox.credentials.as_client_kwargs()
        ) as client,
    ):
        yield sandbox, client


def snapshot_of(members: int, seed: int) -> ProgramSnapshot:
    with served(members, seed) as (_, client):
        return ProgramSnapshot.pull(client, progress=False)


def _used(snapshot: ProgramSnapshot) -> int:
    """The calls ``snapshot``'s pull sent (a pulled snapshot counts them)."""
    assert snapshot.calls is not None
    return snapshot.calls.used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=5000)
    parser.add_argument("--buckets", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    started = time.perf_counter()
    snapshot = snapshot_of(args.members, args.seed)
    print(
        f"snapshot: {len(snapshot.members)} members, {len(snapshot.pending_buckets)} pending"
        f" buckets, {_used(snapshot)} calls ({time.perf_counter() - started:.0f} s)"
    )
    buckets = snapshot.pending_buckets
    future = buckets[(buckets["status"] == "PENDING") & (buckets["date"] > "2026-01-20")]
    plan = actions.activate_pending_buckets(
        future.head(args.buckets).rename(columns={"id": "bucket_id"})
    )

    runs: dict[str, tuple[float, rehearsal.Rehearsal]] = {}
    for route in ("rehearsal", "full"):
        started = time.perf_counter()
        if route == "full":
            with reading_every_member():
                rehearsed = plan.rehearse(snapshot, progress=False)
        else:
            rehearsed = plan.rehearse(snapshot, progress=False)
        runs[route] = (time.perf_counter() - started, rehearsed)
        print(
            f"{route:>9}: {runs[route][0]:6.1f} s; the run {rehearsed.calls} calls, the read"
            f" after it {_used(rehearsed.after)} calls; {len(rehearsed.diff)} changes"
        )

    (fast_s, fast), (full_s, full) = runs["rehearsal"], runs["full"]
    for kind in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(fast.after, kind), getattr(full.after, kind))
    pd.testing.assert_frame_equal(fast.diff.changes, full.diff.changes)
    print("the two reads after the run: equal frame for frame, diffs equal")
    print(
        f"rehearsal / full: time {fast_s / full_s:.2f},"
        f" calls after the run {_used(fast.after) / _used(full.after):.3f}"
    )


if __name__ == "__main__":
    main()
