"""What pandas' copying of ``DataFrame.attrs`` costs the toolkit's real work.

    .venv/bin/python benchmarks/attrs_copy.py [--members 3000] [--buckets 200]
        [--rounds 3] [--baseline DIR]

pandas deep-copies a frame's non-empty ``attrs`` in ``NDFrame.__finalize__`` on every
column read, slice, copy and most operations; every frame ``Schema.build`` makes holds
``attrs["odd_values"]``. A child process (``python -P``, the package tree on
``PYTHONPATH``) does the work with ``__finalize__`` counted and the deep copies it makes
timed (``pandas.core.generic.deepcopy``, used there alone):

- ``demo``: ``lyt demo`` (pull of the demo program from the embedded sandbox, audit,
  reports) into a temporary folder;
- ``pull``: ``ProgramSnapshot.pull`` of a generated program of ``--members`` members from
  a sandbox (``lyt_toolkit.synthetic``, the clock fixed);
- ``audit``: ``audit.run`` of that snapshot;
- ``economics``: ``economics.summarise`` of it;
- ``rehearsal``: ``plan.rehearse`` of a plan activating ``--buckets`` future pending
  buckets.

CPU is the main thread's (``time.thread_time``; the sandbox answers in a thread of its
own), the median of ``--rounds`` rounds. The script prints, per step, the CPU, the
``__finalize__`` calls, the attrs deep copies' time and their share of the CPU.
``--baseline DIR`` runs the same steps in a second child from the package tree in ``DIR``
(e.g. ``git archive main lyt_toolkit | tar -x -C DIR``), the two alternating round by
round, and prints both side by side with the ratio of CPU (this tree / baseline).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEPS = ("demo", "pull", "audit", "economics", "rehearsal")
NOW = "2026-01-15T12:00:00Z"

CHILD = r"""
import contextlib, io, json, sys, tempfile, time, warnings
import pandas.core.generic as generic

counts = {"finalize": 0, "copies": 0, "copy_s": 0.0}
_deepcopy, _finalize = generic.deepcopy, generic.NDFrame.__finalize__

def timed_deepcopy(value, memo=None):
    started = time.thread_time()
    try:
        return _deepcopy(value, memo)
    finally:
        counts["copies"] += 1
        counts["copy_s"] += time.thread_time() - started

def counted_finalize(self, other, method=None, **kwargs):
    counts["finalize"] += 1
    return _finalize(self, other, method, **kwargs)

generic.deepcopy = timed_deepcopy
generic.NDFrame.__finalize__ = counted_finalize

from lyt_toolkit import LoyaltyClient, ProgramSnapshot, actions, audit
from lyt_toolkit.cli import main as lyt
from lyt_toolkit.economics import summarise
from lyt_toolkit.errors import OddValueWarning
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

members, buckets, odd, now = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
figures = {}

def step(name, work):
    for key in counts:
        counts[key] = 0
    started = time.thread_time()
    result = work()
    figures[name] = {"cpu_s": time.thread_time() - started, **counts}
    return result

with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
    code = step("demo", lambda: lyt(["demo", "--out", out]))
    assert code == 0, code
program = generate_program(members=members, seed=11)
program.pop("now", None)
for reward in program["rewards"][:odd]:  # an instant beyond the years pandas holds
    reward["end_date"] = "9999-12-31"
warnings.simplefilter("ignore", OddValueWarning)
with (
    Sandbox.start(program, now=now, plan="unlimited") as sandbox,
    LoyaltyClient(
        base_url=sandbox.base_url, env_file=None, **sandbox.credentials.as_client_kwargs()
    ) as client,
):
    snapshot = step("pull", lambda: ProgramSnapshot.pull(client, progress=False))
step("audit", lambda: audit.run(snapshot))
step("economics", lambda: summarise(snapshot))
pending = snapshot.pending_buckets
future = pending[(pending["status"] == "PENDING") & (pending["date"] > "2026-01-20")]
plan = actions.activate_pending_buckets(
    future.head(buckets).rename(columns={"id": "bucket_id"})
)
step("rehearsal", lambda: plan.rehearse(snapshot, progress=False))
print(json.dumps(figures))
"""


def run_child(tree: Path, members: int, buckets: int, odd: int) -> dict[str, dict[str, float]]:
    """One round of every step in a child importing the package from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-P", "-c", CHILD, str(members), str(buckets), str(odd), NOW]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{tree}: the child failed:\n{done.stderr[-3000:]}")
    figures: dict[str, dict[str, float]] = json.loads(done.stdout.splitlines()[-1])
    return figures


def medians(rounds: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Per step and figure, the median over the rounds."""
    return {s: {k: statistics.median(r[s][k] for r in rounds) for k in rounds[0][s]} for s in STEPS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=3000)
    parser.add_argument("--buckets", type=int, default=200)
    parser.add_argument(
        "--odd", type=int, default=0, help="rewards ending in the year 9999: odd values"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="package tree to compare with")
    args = parser.parse_args(argv)

    trees = {"this tree": ROOT}
    if args.baseline:
        trees = {"baseline": args.baseline.resolve(), **trees}
    rounds: dict[str, list[dict[str, dict[str, float]]]] = {label: [] for label in trees}
    for round_ in range(args.rounds):
        order = list(trees.items()) if round_ % 2 == 0 else list(trees.items())[::-1]
        for label, tree in order:
            rounds[label].append(run_child(tree, args.members, args.buckets, args.odd))
    results = {label: medians(r) for label, r in rounds.items()}

    print(
        f"{args.members:,} members, {args.odd} odd rewards, {args.buckets} buckets rehearsed;"
        f" medians of"
        f" {args.rounds} rounds; CPU = the main thread's"
    )
    print(
        f"{'step':10} {'tree':10} {'CPU s':>8} {'__finalize__':>13} {'attrs copies':>13}"
        f" {'copy s':>8} {'share':>7}"
    )
    for step in STEPS:
        for label, figures in results.items():
            f = figures[step]
            print(
                f"{step:10} {label:10} {f['cpu_s']:8.3f} {f['finalize']:13,.0f}"
                f" {f['copies']:13,.0f} {f['copy_s']:8.3f} {f['copy_s'] / f['cpu_s']:7.1%}"
            )
        if args.baseline:
            ratio = results["this tree"][step]["cpu_s"] / results["baseline"][step]["cpu_s"]
            print(f"{step:10} {'ratio':10} {ratio:8.2f}  (CPU, this tree / baseline)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
