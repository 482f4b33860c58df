"""The sandbox on a large program: how soon it answers, and is page 450+ as cheap as page 1?

Writes a generated program file (``write_program``, what ``lyt sandbox generate
--rewards 50000 --benefits 100`` writes: about 26 MB), serves it with
``lyt sandbox serve --data FILE`` in a child process and, in one run, measures
over real HTTP on loopback:

- the load time: from starting the command (with lyt's modules compiled, as pip leaves
  them) until the sandbox answers ``/docs``, and the records loaded per second of it,
  side by side with a fresh Python process that only ``json.load``s the same file:
  ``--rounds`` of each, alternating, medians compared (goal: the load at most 3x the
  ``json.load``);
- the median latency of page 1 at limit 100;
- the median latency of a deep page at limit 100 (the walk gets there once,
  then the same cursor is fetched again and again: cursors stay valid until
  they expire, so the deep page is timed exactly like page 1);
- their ratio (goal: at most 1.5);
- pages per second of a full walk of every reward;
- the sandbox process's peak RSS (the load, then the walk).

Each goal is printed met or MISSED; the exit status is 0 either way (a
benchmark reports, it does not fail).

Run: ``.venv/bin/python benchmarks/sandbox_pagination.py``
(options: ``--rewards N --benefits N --deep-page N --repeat N --rounds N --db``;
``--rewards 100000 --deep-page 950`` walks twice as far)
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

import lyt_toolkit
from lyt_toolkit.sandbox import Sandbox, SandboxCredentials
from lyt_toolkit.synthetic import write_program

REWARDS = "/v2/loyalties/rewards"
NOW = "2026-01-15T12:00:00Z"
LOAD_GOAL_RATIO = 3.0
"""The load may take at most this many times as long as a bare ``json.load`` of the file."""


def median_ms(client: httpx.Client, params: dict[str, str | int], repeat: int) -> float:
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


def compile_lyt() -> None:
    """Compile lyt's modules, as an installed lyt has them (pip compiles them when it
    installs), even where PYTHONDONTWRITEBYTECODE keeps Python from writing them:
    compiling lyt's modules from source adds 0.05 to 0.1 s to every start."""
    compileall.compile_dir(Path(lyt_toolkit.__file__).parent, quiet=1)


def json_load_seconds(program: Path) -> float:
    """Seconds a fresh Python process takes to start, ``json.load`` the file and exit."""
    code = f"import json; json.load(open({str(program)!r}, encoding='utf-8'))"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def serve(program: Path, db: Path | None) -> tuple[subprocess.Popen[str], str, float]:
    """``lyt sandbox serve --data program`` in a child; its URL and the seconds from the
    start of the command until it answered ``/docs``."""
    command = [sys.executable, "-m", "lyt_toolkit.cli", "sandbox", "serve", "--port", "0"]
    command += ["--data", str(program), "--now", NOW, "--seed", "1"]
    command += ["--db", str(db)] if db else []
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    assert child.stdout is not None
    line = child.stdout.readline()
    if "ready at " not in line:
        child.kill()
        raise SystemExit(f"the sandbox did not start: {line!r}")
    base_url = line.split("ready at ")[1].split()[0]
    answer = httpx.get(f"{base_url}/docs", timeout=60)
    if answer.status_code != 200:
        child.kill()
        raise SystemExit(f"the sandbox answered {answer.status_code}: {answer.text[:200]}")
    return child, base_url, time.perf_counter() - started


def stop(child: subprocess.Popen[str]) -> resource.struct_rusage:
    """Stop a sandbox child; its resource usage."""
    child.terminate()
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0
    return usage


def timed_loads(
    program: Path, db: Path | None, rounds: int
) -> tuple[list[float], list[float], subprocess.Popen[str], str]:
    """``rounds`` of a fresh ``json.load`` and a fresh sandbox load, alternating (which
    goes first alternates too); the last sandbox is left serving for the walk."""
    compile_lyt()
    bare: list[float] = []
    loads: list[float] = []
    child, base_url = None, ""
    for i in range(rounds):
        if child is not None:
            stop(child)
        if db is not None:
            db.unlink(missing_ok=True)
            Path(f"{db}-wal").unlink(missing_ok=True)
            Path(f"{db}-shm").unlink(missing_ok=True)
        if i % 2:
            child, base_url, loaded = serve(program, db)
            bare.append(json_load_seconds(program))
        else:
            bare.append(json_load_seconds(program))
            child, base_url, loaded = serve(program, db)
        loads.append(loaded)
    assert child is not None
    return bare, loads, child, base_url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=50_000)
    parser.add_argument("--benefits", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5, help="loads timed, each way")
    parser.add_argument("--deep-page", type=int, default=450, help="page number to time")
    parser.add_argument("--repeat", type=int, default=50, help="timed requests per page")
    parser.add_argument("--db", action="store_true", help="load into a SQLite file (WAL)")
    args = parser.parse_args(argv)
    limit = 100
    if args.rewards < args.deep_page * limit:
        parser.error(f"--rewards must be at least {args.deep_page * limit} for that page")

    with tempfile.TemporaryDirectory() as tmp:
        path = write_program(
            Path(tmp) / "program.json", rewards=args.rewards, benefits=args.benefits
        )
        records = sum(len(v) for v in json.loads(path.read_text()).values() if isinstance(v, list))
        size_mb = path.stat().st_size / 1e6
        db = Path(tmp) / "sandbox.db" if args.db else None
        bare, loads, child, base_url = timed_loads(path, db, args.rounds)
        try:
            sb = Sandbox(base_url, SandboxCredentials.from_env())
            with httpx.Client(base_url=base_url, headers=sb.v2_headers(), timeout=30) as client:
                first = median_ms(client, {"limit": limit}, args.repeat)
                started = time.perf_counter()
                cursor, pages, deep_cursor = None, 0, None
                while True:
                    params: dict[str, str | int] = {"limit": limit}
                    if cursor:
                        params["cursor"] = cursor
                    body = client.get(REWARDS, params=params).json()
                    pages += 1
                    if pages == args.deep_page - 1:
                        deep_cursor = body["cursor"]["next"]  # the cursor of the deep page
                    if body["cursor"] is None:
                        break
                    cursor = body["cursor"]["next"]
                walk_seconds = time.perf_counter() - started
                if deep_cursor is None:
                    raise SystemExit(f"the walk ended before page {args.deep_page}")
                deep = median_ms(client, {"limit": limit, "cursor": deep_cursor}, args.repeat)
        finally:
            usage = stop(child)

    store = "a SQLite file" if args.db else "an in-memory database"
    bare_s, loaded = statistics.median(bare), statistics.median(loads)
    load_ratio = loaded / bare_s
    print(f"program: {args.rewards:,} rewards, {records:,} records, {size_mb:.1f} MB ({store})")
    print(
        f"json.load         median {bare_s:5.2f} s   a fresh python -c 'json.load(the file)'"
        f" ({args.rounds} runs: {', '.join(f'{t:.2f}' for t in bare)})"
    )
    print(
        f"load time         median {loaded:5.2f} s   until /docs answers"
        f" ({args.rounds} runs: {', '.join(f'{t:.2f}' for t in loads)})"
        f" = {records / loaded:,.0f} records/s"
    )
    print(
        f"load / json.load  {load_ratio:7.2f}x     (goal <= {LOAD_GOAL_RATIO:g}x:"
        f" {'met' if load_ratio <= LOAD_GOAL_RATIO else 'MISSED'})"
    )
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
    print(f"sandbox peak RSS  {usage.ru_maxrss / 1024:7.0f} MiB  (load, then the walk)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
