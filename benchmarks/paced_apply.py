"""A bulk edit larger than a window's share, executed paced, at scale.

    .venv/bin/python benchmarks/paced_apply.py [--members 20000] [--items 3000] [--faults 0.02]

One embedded sandbox serves a generated program of ``--members`` members on a fixed clock
under the ``professional`` plan (5,000 calls an hour). A plan activating ``--items`` pending
buckets (more than the default share, half of the window) is executed with ``paced=True`` and
a log, its bar as text on stderr; ``--faults`` answers that share of the requests 429 (of no
budget) or 503, half each, so the calls retried count against the share too. The fixed clock
never brings the reset, so once the run has sent its share of the window and waits, it is
cancelled (what a Cancel button or Ctrl-C does).

Printed: the calls the sandbox counted in the window and what it has left for the project's
other traffic, the seconds the run waited for the reset, how long the Cancel took to end it,
the outcomes and the log's window line; then a second run in the same window (its first
run's share spent: it sends nothing more) and one in a new window (it sends the rest, nothing
twice). Goals: at most half the window per run in it, the rest of it left for others; the
Cancel ends the wait within a second; no write sent twice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scale import PULL_SIZES  # noqa: E402

from lyt_toolkit import actions  # noqa: E402
from lyt_toolkit.actions import ActionLog  # noqa: E402
from lyt_toolkit.actions.log import WINDOW  # noqa: E402
from lyt_toolkit.client import LoyaltyClient  # noqa: E402
from lyt_toolkit.sandbox import Sandbox  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = "2026-01-15T12:00:00Z"
QUIET = 2.0
"""Seconds the run sends nothing before it is taken to wait for the reset."""


def _used(sb: Sandbox) -> int:
    used: int = sb.plan()["used"]
    return used


def _run_until_quiet(sb: Sandbox, work: Any) -> tuple[Any, float, float]:
    """``work(cancel)`` run in a thread until the sandbox counts nothing more for ``QUIET`` s,
    then cancelled: its result, the seconds it ran and those the Cancel took."""
    cancel = threading.Event()
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(work(cancel)), daemon=True)
    start = time.monotonic()
    thread.start()
    last, since = -1, time.monotonic()
    while thread.is_alive():
        used = _used(sb)
        if used != last:
            last, since = used, time.monotonic()
        elif time.monotonic() - since >= QUIET:
            break
        time.sleep(0.2)
    ran = time.monotonic() - start
    at = time.monotonic()
    cancel.set()
    thread.join()
    return (out[0] if out else None), ran, time.monotonic() - at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=3_000)
    parser.add_argument("--faults", type=float, default=0.0)
    args = parser.parse_args()
    os.environ.setdefault("LYT_PROGRESS", "text")
    started = time.monotonic()
    program = generate_program(members=args.members, seed=1, **PULL_SIZES)
    buckets = [b for b in program["pending_buckets"] if b["status"] == "PENDING"][: args.items]
    rows = [
        {"program_id": b["program_id"], "member_id": b["member_id"], "card_id": b["card_id"],
         "bucket_id": b["id"]}
        for b in buckets
    ]  # fmt: skip
    plan = actions.activate_pending_buckets(rows)
    print(f"{args.members:,} members, a plan of {len(plan):,} activations", flush=True)
    with Sandbox.start(program, now=NOW, seed=7) as sb, tempfile.TemporaryDirectory() as tmp:
        print(f"sandbox up in {time.monotonic() - started:.1f} s", flush=True)
        sb.set_plan("professional")
        if args.faults:
            sb.set_faults(
                rate_limit=args.faults / 2, unavailable=args.faults / 2, retry_after=0, seed=11
            )
        log = Path(tmp) / "activate.jsonl"
        settings: dict[str, Any] = {
            "base_url": sb.base_url, "env_file": None, **sb.credentials.as_client_kwargs()
        }  # fmt: skip
        with LoyaltyClient(**settings) as client:

            def paced(cancel: threading.Event) -> Any:
                return plan.execute(client, log=log, paced=True, cancel=cancel)

            results, ran, stop = _run_until_quiet(sb, paced)
            window = sb.plan()
            waiting = client.quota.seconds_to_reset()
            print(
                f"\nfirst run: the window counted {window['used']:,} of {window['limit']:,} calls"
                f" (its share: {window['limit'] // 2:,}) in {ran - QUIET:.1f} s;"
                f" {window['remaining']:,} left for other traffic;"
                f" then it waited for the reset ({waiting or 0:,.0f} s away) until cancelled,"
                f" which ended it in {stop:.2f} s"
            )
            print("  outcomes:", dict(Counter(results["outcome"].astype(str))))
            lines = [json.loads(line) for line in log.read_text().splitlines()]
            windows = [line for line in lines if line.get("log") == WINDOW]
            print(
                f"  log: {len(lines):,} lines, {len(windows)} window lines, the last:", windows[-1]
            )

            counted = _used(sb)
            again, ran, stop = _run_until_quiet(sb, paced)
            print(
                f"again in the same window: {_used(sb) - counted:,} calls more (the window"
                f" counts {_used(sb):,}); cancelled in {stop:.2f} s;",
                dict(Counter(again["outcome"].astype(str))),
            )

            sb.clear_faults()
            sb.set_plan("1000000/hour")  # a new window that holds the rest
            client.programs.list(limit=1)
            before = _used(sb)
            last = plan.execute(client, log=log, paced=True, progress=False)
            print(
                f"in a new window: {_used(sb) - before:,} calls sent,",
                dict(Counter(last["outcome"].astype(str))),
            )
            succeeded = Counter(
                e["target"] for e in ActionLog(log).entries() if e["outcome"] == "succeeded"
            )
            print(f"writes logged succeeded twice: {sum(1 for n in succeeded.values() if n > 1)}")


if __name__ == "__main__":
    main()
