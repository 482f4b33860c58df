"""Keyset pagination of the sandbox: is page 900+ as cheap as page 1?

Seeds 100,000 rewards (``generate_program``), starts the sandbox on them and, in
one run, measures over real HTTP on loopback:

- the median latency of page 1 at limit 100;
- the median latency of a page past 900 at limit 100 (the walk gets there once,
  then the same cursor is fetched again and again: cursors stay valid until
  they expire, so the deep page is timed exactly like page 1);
- their ratio (goal: at most 1.5);
- pages per second of a full walk of every reward.

Run: ``.venv/bin/python benchmarks/sandbox_pagination.py``
(options: ``--rewards N --deep-page N --repeat N --db PATH|tmp``)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

REWARDS = "/v2/loyalties/rewards"
NOW = "2026-01-15T12:00:00Z"


def v2_client(sb: Sandbox) -> httpx.Client:
    return httpx.Client(base_url=sb.base_url, headers=sb.v2_headers(), timeout=30)


def median_ms(client: httpx.Client, params: dict[str, object], repeat: int) -> float:
    """Median wall time of ``repeat`` identical requests, after two warm-ups."""
    timings = []
    for i in range(repeat + 2):
        started = time.perf_counter()
        response = client.get(REWARDS, params=params)
        elapsed = time.perf_counter() - started
        if response.status_code != 200:
            raise SystemExit(f"unexpected {response.status_code}: {response.text[:200]}")
        if i >= 2:
            timings.append(elapsed)
    return statistics.median(timings) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=100_000)
    parser.add_argument("--deep-page", type=int, default=950, help="page number to time")
    parser.add_argument("--repeat", type=int, default=50, help="timed requests per page")
    parser.add_argument(
        "--db", help='SQLite file to use, or "tmp" for one in a temporary folder (default: memory)'
    )
    args = parser.parse_args(argv)
    limit = 100
    if args.rewards < args.deep_page * limit:
        parser.error(f"--rewards must be at least {args.deep_page * limit} for that page")

    started = time.perf_counter()
    program = generate_program(
        rewards=args.rewards, benefits=0, card_definitions=4, tier_structures=0, members=0
    )
    generated = time.perf_counter() - started
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or None
        if db == "tmp":
            db = str(Path(tmp) / "sandbox.db")
        with Sandbox.start(data=program, now=NOW, seed=1, db=db) as sb, v2_client(sb) as client:
            loaded = time.perf_counter() - started
            print(f"seeded {args.rewards:,} rewards: generated in {generated:.1f} s,")
            print(f"  loaded and serving in {loaded:.1f} s ({db or 'in-memory database'})")

            first = median_ms(client, {"limit": limit}, args.repeat)

            started = time.perf_counter()
            cursor, pages, deep_cursor = None, 0, None
            while True:
                params: dict[str, object] = {"limit": limit}
                if cursor:
                    params["cursor"] = cursor
                body = client.get(REWARDS, params=params).json()
                pages += 1
                if pages == args.deep_page - 1:
                    deep_cursor = body["cursor"]["next"]  # the cursor that yields the deep page
                if body["cursor"] is None:
                    break
                cursor = body["cursor"]["next"]
            walk_seconds = time.perf_counter() - started

            deep = median_ms(client, {"limit": limit, "cursor": deep_cursor}, args.repeat)

    ratio = deep / first
    print(f"page 1            median {first:7.2f} ms   (limit {limit}, {args.repeat} runs)")
    print(f"page {args.deep_page:<4}         median {deep:7.2f} ms   (same cursor re-fetched)")
    print(
        f"ratio deep/first  {ratio:7.2f}      (goal <= 1.5: {'met' if ratio <= 1.5 else 'MISSED'})"
    )
    print(
        f"full walk         {pages} pages in {walk_seconds:.1f} s"
        f" = {pages / walk_seconds:.0f} pages/s"
    )
    return 0 if ratio <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
