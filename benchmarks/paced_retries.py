"""A paced work's retries at the edge of its share, at scale.

    .venv/bin/python benchmarks/paced_retries.py [--members 20000] [--faults 0.02] [--seeds 1-13]

One embedded sandbox serves a generated program of ``--members`` members on a fixed clock under
the ``professional`` plan (5,000 calls an hour). For each fault seed, a client fetches its
token, then eight threads of one paced work (``Quota.allowance(0.5, paced=True)``) read on
while ``--faults`` of the requests are answered 429 (of no budget) or 503, half each, and are
retried. The fixed clock never brings the reset: once the window counts nothing more for
``QUIET`` s the work waits for it, and the client is closed.

Printed, per seed: the calls the window counted for the work against its share (half of the
4,999 left after the token). Goal: never beyond the share.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lyt_toolkit.client import LoyaltyClient  # noqa: E402
from lyt_toolkit.errors import StoppedError  # noqa: E402
from lyt_toolkit.sandbox import Sandbox  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = "2026-01-15T12:00:00Z"
QUIET = 2.0
"""Seconds the work sends nothing before it is taken to wait for the reset."""
THREADS = 8


def _used(sb: Sandbox) -> int:
    used: int = sb.plan()["used"]
    return used


def one_window(sb: Sandbox, seed: int, faults: float) -> tuple[int, int | None]:
    """The calls the window counted for the paced work under fault ``seed``, and its share."""
    sb.set_plan("professional")
    settings: dict[str, Any] = {
        "base_url": sb.base_url, "env_file": None, **sb.credentials.as_client_kwargs()
    }  # fmt: skip
    client = LoyaltyClient(**settings)
    client.fetch_token()
    before = _used(sb)
    sb.set_faults(rate_limit=faults / 2, unavailable=faults / 2, retry_after=0, seed=seed)
    shares: list[int | None] = []

    def reader() -> None:
        while True:
            try:
                client.programs.list(limit=1)
            except StoppedError:  # closed while it waits for the reset
                return
            except Exception:  # a call whose retries were spent: the next goes on
                continue

    def work() -> None:
        with client.quota.allowance(0.5, paced=True) as allowance:
            shares.append(allowance.calls)
            threads = [threading.Thread(target=reader) for _ in range(THREADS)]
            for each in threads:
                each.start()
            for each in threads:
                each.join()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    last, since = -1, time.monotonic()
    while time.monotonic() - since < QUIET:
        used = _used(sb)
        if used != last:
            last, since = used, time.monotonic()
        time.sleep(0.2)
    sb.clear_faults()
    client.close()
    thread.join(20)
    return last - before, shares[0] if shares else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=20_000)
    parser.add_argument("--faults", type=float, default=0.02)
    parser.add_argument("--seeds", default="1-13", help="fault seeds, FIRST-LAST")
    args = parser.parse_args()
    first, _, last = args.seeds.partition("-")
    program = generate_program(members=args.members, seed=11)
    with Sandbox.start(program, now=NOW, seed=7) as sb:
        beyond = 0
        for seed in range(int(first), int(last or first) + 1):
            sent, share = one_window(sb, seed, args.faults)
            over = sent - (share or 0)
            beyond += max(0, over)
            print(f"seed {seed}: the window counted {sent:,} calls of the work's share of"
                  f" {share or 0:,} ({over:+,})", flush=True)  # fmt: skip
        print(f"calls beyond the share in all: {beyond:,}")


if __name__ == "__main__":
    main()
