"""Bulk benefit creation: concurrency 8 against sequential, then kill a run and resume it.

    .venv/bin/python benchmarks/bulk.py [--count 1000] [--latency-ms 10]

The sandbox runs in its own process (``lyt sandbox serve`` on the demo
program), so the client and the service do not share an interpreter. Part 1
times ``create_benefits(...).execute`` at concurrency 1 and 8 with fresh
names (first on bare loopback, then with an injected per-request delay that
stands in for a network round trip). Part 2 starts a batch in a subprocess,
SIGKILLs it once about 40% of the items are logged as succeeded, resumes it
with the same action log, and counts the benefits carrying the batch's names
(goal: exactly ``count``, none twice, none lost).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lyt_toolkit import actions  # noqa: E402
from lyt_toolkit.client import LoyaltyClient  # noqa: E402
from lyt_toolkit.sandbox import SandboxCredentials  # noqa: E402

# The sandbox child process is started with these values in LYT_* variables.
CREDENTIALS = SandboxCredentials.from_env().as_client_kwargs()
CARD_DEFINITION = "lcdef_c0ffee0001"  # ACTIVE in the demo program


def rows(prefix: str, count: int) -> list[dict]:
    return [
        {
            "name": f"{prefix} {i:05d}",
            "type": "POINTS",
            "status": "ACTIVE",
            "points": {"value": 1 + i % 500, "card_definition_id": CARD_DEFINITION},
        }
        for i in range(count)
    ]


def client(base_url: str) -> LoyaltyClient:
    return LoyaltyClient(base_url=base_url, env_file=None, **CREDENTIALS)


def admin(base_url: str, method: str, path: str, body: dict | None = None) -> None:
    headers = {"X-App-Id": CREDENTIALS["app_id"], "X-App-Token": CREDENTIALS["app_token"]}
    httpx.request(
        method, f"{base_url}/_sandbox{path}", json=body, headers=headers
    ).raise_for_status()


def start_sandbox() -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, **{f"LYT_{k.upper()}": str(v) for k, v in CREDENTIALS.items()}}
    command = [sys.executable, "-m", "lyt_toolkit.cli", "sandbox", "serve", "--port", str(port)]
    command += ["--now", "2026-01-15T12:00:00Z", "--seed", "7"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "ready" not in line:
        proc.kill()
        raise RuntimeError(f"sandbox did not start: {line!r}")
    return proc, f"http://127.0.0.1:{port}"


def names_with_prefix(c: LoyaltyClient, prefix: str) -> Counter:
    found = c.benefits.iter(filters={"name": {"$starts_with": prefix}}, limit=100)
    return Counter(b.name for b in found)


def timed(c: LoyaltyClient, prefix: str, count: int, concurrency: int) -> float:
    plan = actions.create_benefits(rows(prefix, count))
    started = time.perf_counter()
    results = plan.execute(c, concurrency=concurrency, progress=False)
    elapsed = time.perf_counter() - started
    bad = int((results.outcome != "succeeded").sum())
    if bad:
        raise SystemExit(f"{bad} creations did not succeed: {results.outcome.value_counts()}")
    return elapsed


def compare(base_url: str, count: int, latency_ms: float, label: str) -> None:
    admin(base_url, "POST", "/reset")
    if latency_ms:
        admin(
            base_url, "PUT", "/faults", {"delay_seconds": latency_ms / 1000, "delay_fraction": 1.0}
        )
    with client(base_url) as c:
        c.benefits.list(limit=1)  # token and connection warm-up, outside the timings
        sequential = timed(c, f"Bench {label} seq", count, 1)
        parallel = timed(c, f"Bench {label} par", count, 8)
    admin(base_url, "DELETE", "/faults")
    print(
        f"{label:<22} sequential {sequential:6.2f} s ({count / sequential:6.0f}/s)   "
        f"concurrency 8 {parallel:6.2f} s ({count / parallel:6.0f}/s)   "
        f"ratio {sequential / parallel:4.2f}x"
    )


def succeeded_lines(log: Path) -> int:
    if not log.exists():
        return 0
    count = 0
    for raw in log.read_bytes().splitlines():
        with contextlib.suppress(ValueError):
            count += json.loads(raw).get("outcome") == "succeeded"
    return count


def kill_and_resume(base_url: str, count: int) -> None:
    admin(base_url, "POST", "/reset")
    prefix = "Bench resume"
    log = Path(tempfile.mkdtemp(prefix="lyt-bulk-")) / "resume.jsonl"
    child = subprocess.Popen(
        [sys.executable, __file__, "--child", base_url, str(log), prefix, str(count)],
        cwd=ROOT,
    )
    target = int(count * 0.4)
    deadline = time.monotonic() + 120
    while succeeded_lines(log) < target and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    child.send_signal(signal.SIGKILL)
    child.wait()
    logged = succeeded_lines(log)
    with client(base_url) as c:
        before = names_with_prefix(c, prefix)
        print(
            f"killed the run (SIGKILL) with {logged} successes logged and "
            f"{sum(before.values())} benefits on the server"
        )
        started = time.perf_counter()
        results = actions.create_benefits(rows(prefix, count)).execute(
            c, concurrency=8, log=log, progress=False
        )
        elapsed = time.perf_counter() - started
        outcomes = results.outcome.value_counts()
        recovered = int(results.recovered.sum())
        after = names_with_prefix(c, prefix)
    expected = {r["name"] for r in rows(prefix, count)}
    twice = sum(1 for n in after.values() if n > 1)
    lost = len(expected - set(after))
    print(
        f"resumed in {elapsed:.2f} s: skipped {int(outcomes.get('skipped_already_done', 0))}, "
        f"created {int(outcomes.get('succeeded', 0)) - recovered}, "
        f"recovered in-flight {recovered}, failed {int(outcomes.get('failed', 0))}"
    )
    print(
        f"benefits with the batch's names: {sum(after.values())} "
        f"(distinct {len(after)}, twice {twice}, lost {lost}; goal exactly {count})"
    )


def child_main(base_url: str, log: str, prefix: str, count: int) -> None:
    with client(base_url) as c:
        actions.create_benefits(rows(prefix, count)).execute(
            c, concurrency=8, log=log, progress=False
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--latency-ms", type=float, default=10.0)
    parser.add_argument("--child", nargs=4, metavar=("BASE_URL", "LOG", "PREFIX", "COUNT"))
    args = parser.parse_args()
    if args.child:
        base_url, log, prefix, count = args.child
        child_main(base_url, log, prefix, int(count))
        return
    proc, base_url = start_sandbox()
    try:
        print(f"{args.count} benefit creations through actions.create_benefits, sandbox {base_url}")
        compare(base_url, args.count, 0, "loopback")
        if args.latency_ms:
            compare(base_url, args.count, args.latency_ms, f"+{args.latency_ms:g} ms per request")
        kill_and_resume(base_url, args.count)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
