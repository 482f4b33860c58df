"""A saved plan applied paced at scale, resumed in each new window: its re-reads beside its
writes, window by window.

    PYTHONPATH=. .venv/bin/python benchmarks/paced_saved_apply.py [--members 20000]
        [--writes 5000] [--against OLD_TREE]

A program of ``members`` members is generated (``lyt_toolkit.synthetic``), served by a sandbox
on a fixed clock and pulled whole (no budget yet). The plan activates ``writes`` pending
buckets dated in the future, one a card, and is saved. Under the professional plan (5,000
calls an hour, the default share 0.5 of each window) it is applied paced
(``SavedPlan.apply(paced=True)``) until the window's share is spent and it waits, then
stopped, its client closed (what Ctrl-C at the end of a day does); the sandbox's clock is
moved to the next hour and the same apply runs again, until it ends. Each run's bucket
list pages (its re-read calls: a card of over 100 pending buckets takes two) and activations
(its writes) are counted from its requests.

``--against OLD_TREE`` runs the same measure first with the toolkit of ``OLD_TREE`` (a checkout
of it before: ``git archive main lyt_toolkit | tar -x -C OLD_TREE``) and prints both side by
side. The kept re-read of a run stopped in its re-read is taken up for an hour of this
machine's clock (``KEPT_FOR``): here the windows pass in minutes, so an older toolkit's
resume takes up what its last run read, where hours apart it read it again. Goal: re-reads
at most one per write, in every window.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

if "--tree" in sys.argv:  # the toolkit measured: imported before ``scale`` puts this tree first
    sys.path.insert(0, sys.argv[sys.argv.index("--tree") + 1])
    import lyt_toolkit  # noqa: F401

from scale import PULL_SIZES

if TYPE_CHECKING:
    from lyt_toolkit import LoyaltyClient
    from lyt_toolkit.sandbox import Sandbox

NOW = "2026-01-15T12:00:00Z"
QUIET = 3.0
"""Seconds the window counts no call before the apply is taken to wait for the next one."""


def _measure(members: int, writes: int) -> list[tuple[int, int]]:
    """(re-reads, writes) of each run of the apply, one a window."""
    from lyt_toolkit import LoyaltyClient, ProgramSnapshot, actions
    from lyt_toolkit.sandbox import Sandbox
    from lyt_toolkit.synthetic import generate_program

    program = generate_program(members=members, seed=1, **PULL_SIZES)
    with Sandbox.start(program, now=NOW, seed=7) as sb, tempfile.TemporaryDirectory() as folder:
        settings: dict[str, Any] = {
            "base_url": sb.base_url, "env_file": None, **sb.credentials.as_client_kwargs()
        }  # fmt: skip
        sb.set_plan("unlimited")
        with LoyaltyClient(**settings) as client:
            base = ProgramSnapshot.pull(client, progress=False)
        buckets = base.pending_buckets
        chosen = buckets[buckets["date"] > base.pulled_at].drop_duplicates("card_id").head(writes)
        edit = actions.edit(base)
        edit.pending_buckets.loc[edit.pending_buckets["id"].isin(chosen["id"]), "status"] = (
            "ACTIVATED"
        )
        path, log = Path(folder) / "plan.json", Path(folder) / "plan.log.jsonl"
        edit.plan().save(path)
        sb.set_plan("professional")
        runs: list[tuple[int, int]] = []
        hour = 12
        while True:
            sent: list[httpx.Request] = []
            with (
                httpx.Client(event_hooks={"request": [sent.append]}, timeout=60) as http,
                LoyaltyClient(**settings, http_client=http) as client,
            ):
                results = _until_quiet(sb, client, path, log)
            reads = sum(r.method == "GET" and r.url.path.endswith("/pending-points") for r in sent)
            wrote = sum(r.method == "POST" and r.url.path.endswith("/activate") for r in sent)
            runs.append((reads, wrote))
            print(f"  window {len(runs)}: {reads:,} re-reads, {wrote:,} writes", file=sys.stderr)
            if results is not None and not results["outcome"].eq("cancelled").any():
                return runs
            if len(runs) > 3 * writes // 1000 + 8:
                return runs  # it does not get on: stop counting
            hour += 1
            sb.set_clock(f"2026-01-{15 + hour // 24:02d}T{hour % 24:02d}:00:00Z")


def _until_quiet(sb: Sandbox, client: LoyaltyClient, path: Path, log: Path) -> Any:
    """The paced apply's results, its client closed once the window counts no call for
    ``QUIET`` s (a wait ends so in either tree, a re-read's too); None when so stopped."""
    from lyt_toolkit.actions import ChangePlan
    from lyt_toolkit.errors import LytError

    out: list[Any] = []
    plan = ChangePlan.load(path)

    def run() -> None:
        try:
            out.append(plan.apply(client, log=log, progress=False, paced=True))
        except LytError:
            out.append(None)  # stopped waiting: the client closed

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    used, since = -1, time.monotonic()
    while worker.is_alive():
        now = sb.plan()["used"]
        if now != used:
            used, since = now, time.monotonic()
        elif time.monotonic() - since >= QUIET:
            client.close()
        worker.join(0.5)
    return out[0] if out else None


def _line(runs: list[tuple[int, int]]) -> str:
    reads, wrote = sum(r for r, _ in runs), sum(w for _, w in runs)
    most = max(runs, key=lambda run: run[0] - run[1])
    return (
        f"{len(runs)} windows, {reads:,} re-read calls for {wrote:,} writes (the most over"
        f" its writes in a window: {most[0]:,} re-read calls, {most[1]:,} writes)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=20_000)
    parser.add_argument("--writes", type=int, default=5_000)
    parser.add_argument("--against", type=Path)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)  # read at the import
    args = parser.parse_args()
    old = None
    if args.against is not None:
        words = ["--members", str(args.members), "--writes", str(args.writes), "--json"]
        done = subprocess.run(
            [sys.executable, __file__, *words, "--tree", str(args.against)],
            capture_output=True,
            text=True,
            check=True,
        )
        old = json.loads(done.stdout.splitlines()[-1])
    import lyt_toolkit

    print(f"measuring {Path(lyt_toolkit.__file__).parent}", file=sys.stderr)
    runs = _measure(args.members, args.writes)
    if args.json:
        print(json.dumps(runs))
        return
    print(f"{args.members:,} members, a plan of up to {args.writes:,} activations, professional")
    if old is not None:
        print(f"before ({args.against}): {_line([tuple(run) for run in old])}")
    print(f"this tree: {_line(runs)}")


if __name__ == "__main__":
    main()
