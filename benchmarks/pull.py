"""Pull rewards into pandas three ways, each in its own process, side by side.

Routes, each timed in a fresh Python process (so each has its own peak RSS)
against one sandbox served by ``lyt sandbox serve --data`` in a process of its own:

- ``client``: ``client.rewards.frame()``;
- ``analyst``: what a competent analyst writes by hand: one keep-alive
  ``httpx.Client``, ``.json()`` per page, ``pandas.json_normalize`` at the end;
- ``wire``: the same keep-alive fetch with no parsing beyond finding the cursor.

With ``--snapshot`` three more routes pull every kind a snapshot holds:
``snapshot`` (``ProgramSnapshot.pull``), ``analyst_all`` (the analyst's loop over
the same lists and member details) and ``wire_all`` (those requests, parsing only what
names the next one). Rounds alternate the routes; the script prints
medians and the ratios the goals are stated in: the client at most 0.6x the
analyst's time and 0.5x its peak RSS and at most 1.3x the wire's time; a pull's
memory growth (peak RSS during the pull minus RSS before it) at most 3x the
``memory_usage(deep=True)`` of the frames it returns, printed for the first pull
of a process and for a second pull after that warm-up (one-time import, schema and
validator costs excluded).

``--profile`` then pulls once more with the client (and the snapshot) under cProfile, in a
process of its own after a warm-up pull, and prints the functions with the most own time:
where a goal not met loses its time. cProfile sees the calling thread only, so the requests
sent from the read-ahead thread (and the JSON parsing there) show as waiting on a lock.

``--latency 0.05`` injects 50 ms per request (the sandbox's delay fault) and
prints the client's time against pages x 50 ms plus the parse time (the time
the same pull takes without latency; goal: at most 1.1x pages x 50 ms plus that).

Run: ``.venv/bin/python benchmarks/pull.py [--rewards 50000] [--rounds 3]
[--snapshot] [--latency 0.05] [--profile]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PAGE = 100
REWARDS_PATH = "/v2/loyalties/rewards"
READY = re.compile(r"ready at (http://\S+)")
NEXT = re.compile(rb'"next":\s*"([^"]+)"')


# -- the routes (run in a child process) ---------------------------------------------------


CREDENTIALS = "LYT_BENCHMARK_CREDENTIALS"
"""The sandbox's key pairs, handed to each route's process (which never imports the sandbox)."""


def _credentials() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(os.environ[CREDENTIALS])
    return found


def _keys() -> dict[str, str]:
    c = _credentials()
    return {"X-App-Id": c["app_id"], "X-App-Token": c["app_token"]}


@contextmanager
def _session(base_url: str) -> Iterator[Any]:
    """One keep-alive ``httpx.Client`` carrying a bearer token."""
    import httpx

    with httpx.Client(base_url=base_url, timeout=60) as http:
        http.headers.update(_bearer(http))
        yield http


def _bearer(http: Any) -> dict[str, str]:
    keys = _keys()
    token = http.post(
        "/oauth/token",
        headers=keys,
        data={"grant_type": "client_credentials", "scope": "loyalties"},
    ).json()["access_token"]
    return {**keys, "Authorization": f"Bearer {token}"}


def _analyst_records(http: Any, path: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": PAGE}
    while True:
        resp = http.get(path, params=params)
        resp.raise_for_status()
        body = resp.json()
        records.extend(body["data"])
        cursor = (body.get("cursor") or {}).get("next")
        if not cursor or not body["data"]:
            return records
        params = {"limit": PAGE, "cursor": cursor}


def analyst(base_url: str) -> list[Any]:
    import pandas as pd

    with _session(base_url) as http:
        return [pd.json_normalize(_analyst_records(http, REWARDS_PATH))]


def _wire_pages(http: Any, path: str) -> None:
    """Every page of ``path``, read to the end and left unparsed but for its cursor."""
    params: dict[str, Any] = {"limit": PAGE}
    while True:
        body = http.get(path, params=params).content
        found = NEXT.search(body, body.rfind(b'"cursor"'))
        if found is None:
            return
        params = {"limit": PAGE, "cursor": found.group(1).decode()}


def wire(base_url: str) -> list[Any]:
    with _session(base_url) as http:
        _wire_pages(http, REWARDS_PATH)
    return []


def wire_all(base_url: str) -> list[Any]:
    """The wire of a snapshot: the requests ``analyst_all`` sends, parsing only what names
    the next request (cursors, and the programs, members and cards of the member tree)."""
    with _session(base_url) as http:
        for kind in ("rewards", "benefits", "card-definitions", "tier-structures"):
            _wire_pages(http, f"/v2/loyalties/{kind}")
        for p in _analyst_records(http, "/v2/loyalties/programs"):
            for m in _analyst_records(http, f"/v2/loyalties/programs/{p['id']}/members"):
                where = f"/v2/loyalties/programs/{m['program_id']}/members/{m['id']}"
                for card in http.get(where).json().get("cards") or []:
                    cid = (card.get("card") or {}).get("id")
                    if cid:
                        _wire_pages(http, f"{where}/cards/{cid}/pending-points")
    return []


def client(base_url: str) -> list[Any]:
    from lyt_toolkit import LoyaltyClient

    with LoyaltyClient(base_url=base_url, env_file=None, **_credentials()) as c:
        return [c.rewards.frame(progress=False)]


def snapshot(base_url: str) -> list[Any]:
    from lyt_toolkit import ProgramSnapshot
    from lyt_toolkit.frames import FRAME_NAMES

    snap = ProgramSnapshot.pull(
        {"base_url": base_url, "env_file": None, **_credentials()}, progress=False
    )
    return [getattr(snap, name) for name in FRAME_NAMES]


def analyst_all(base_url: str) -> list[Any]:
    """The analyst's loop over every list a snapshot reads, and each member's details."""
    import pandas as pd

    frames = []
    with _session(base_url) as http:
        for kind in ("rewards", "benefits", "card-definitions", "tier-structures"):
            frames.append(pd.json_normalize(_analyst_records(http, f"/v2/loyalties/{kind}")))
        programs = _analyst_records(http, "/v2/loyalties/programs")
        members, details, buckets = [], [], []
        for p in programs:
            members += _analyst_records(http, f"/v2/loyalties/programs/{p['id']}/members")
        for m in members:
            where = f"/v2/loyalties/programs/{m['program_id']}/members/{m['id']}"
            detail = http.get(where).json()
            details.append(detail)
            for card in detail.get("cards") or []:
                cid = (card.get("card") or {}).get("id")
                if cid:
                    buckets += _analyst_records(http, f"{where}/cards/{cid}/pending-points")
        for records in (programs, members, details, buckets):
            frames.append(pd.json_normalize(records))
    return frames


ROUTES: dict[str, Callable[[str], list[Any]]] = {
    "client": client,
    "analyst": analyst,
    "wire": wire,
    "snapshot": snapshot,
    "analyst_all": analyst_all,
    "wire_all": wire_all,
}


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mib() -> float:
    with open("/proc/self/status") as f:
        found = re.search(r"VmHWM:\s+(\d+) kB", f.read())
    return int(found.group(1)) / 1024 if found else float("nan")


def _warm_growth(name: str, base_url: str) -> float:
    """Peak RSS growth of a second pull in the same process, after the first one paid the
    one-time costs (imports, schemas, validators): the peak is reset (Linux clear_refs 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return float("nan")
    before = _rss_mib()
    frames = ROUTES[name](base_url)
    growth = _peak_mib() - before
    del frames
    return growth


def run_route(name: str, base_url: str, warm_up: bool = True) -> None:
    """Child process: import what the route needs, time it, print one JSON line."""
    import httpx  # noqa: F401  (imports are not part of the pull)
    import pandas  # noqa: F401

    if name == "client":  # what ``from lyt_toolkit import LoyaltyClient`` loads
        import lyt_toolkit.client
    elif name == "snapshot":  # the record and the pull, which it imports when called
        import lyt_toolkit.fill
        import lyt_toolkit.snapshot  # noqa: F401
    before = _rss_mib()
    start = time.perf_counter()
    frames = ROUTES[name](base_url)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = sum(int(f.memory_usage(deep=True).sum()) for f in frames) / 2**20
    rows = len(frames[0]) if frames else 0
    del frames
    warm = _warm_growth(name, base_url) if warm_up else float("nan")
    print(
        json.dumps(
            {
                "seconds": seconds,
                "peak": peak,
                "growth": peak - before,
                "frames": size,
                "rows": rows,
                "warm_growth": warm,
            }
        )
    )


PROFILE_TOP = 12
"""Functions listed per profiled route."""


def profile_route(name: str, base_url: str) -> None:
    """Child process: a warm-up pull, then one pull under cProfile; prints one JSON line
    with its time and the functions with the most own time."""
    import cProfile
    import pstats

    ROUTES[name](base_url)  # imports, schemas and validators are not what is profiled
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    ROUTES[name](base_url)
    profiler.disable()
    seconds = time.perf_counter() - start
    stats: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    own = sorted(((row[2], _where(key)) for key, row in stats.items()), reverse=True)
    top = [[label, round(tottime, 3)] for tottime, label in own[:PROFILE_TOP]]
    print(json.dumps({"seconds": seconds, "top": top}))


def _where(key: tuple[str, int, str]) -> str:
    """``pull/reward_pages.py:38 reward_columns`` from a pstats key."""
    path, line, function = key
    if path == "~":
        return function
    for root in ("site-packages/", "lyt_toolkit/", "lib/python"):
        if root in path:
            path = path.split(root, 1)[1]
            break
    return f"{path}:{line} {function}"


# -- the parent: sandbox, rounds, ratios ------------------------------------------------


@contextmanager
def served(data: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``lyt sandbox serve --data`` in its own process, on a free port."""
    cmd = [
        sys.executable,
        "-m",
        "lyt_toolkit.cli",
        "sandbox",
        "serve",
        "--data",
        str(data),
        "--port",
        "0",
        "--now",
        "2026-01-15T12:00:00Z",
        "--seed",
        "1",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            found = READY.search(line)
            if found:
                yield found.group(1), proc
                return
        raise SystemExit(f"the sandbox did not start (exit {proc.wait()})")
    finally:
        proc.terminate()
        proc.wait(10)


def measure(route: str, base_url: str, warm_up: bool = True, profile: bool = False) -> Any:
    extra = ([] if warm_up else ["--no-warm-up"]) + (["--profile-route"] if profile else [])
    out = subprocess.run(
        [sys.executable, __file__, "--route", route, "--base-url", base_url, *extra],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def _faults(base_url: str, **settings: Any) -> None:
    import httpx

    httpx.put(f"{base_url}/_sandbox/faults", json=settings, headers=_keys()).raise_for_status()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--snapshot", action="store_true", help="also pull whole snapshots")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added per request")
    parser.add_argument("--route", choices=sorted(ROUTES), help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--no-warm-up", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile", action="store_true", help="print where the pulls spend")
    parser.add_argument("--profile-route", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.route:
        if args.profile_route:
            profile_route(args.route, args.base_url)
        else:
            run_route(args.route, args.base_url, not args.no_warm_up)
        return

    from lyt_toolkit.sandbox.config import SandboxCredentials

    os.environ[CREDENTIALS] = json.dumps(SandboxCredentials.from_env().as_client_kwargs())
    routes = ["client", "analyst", "wire"]
    routes += ["snapshot", "analyst_all", "wire_all"] if args.snapshot else []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "program.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "lyt_toolkit.cli",
                "sandbox",
                "generate",
                "--out",
                str(data),
                "--rewards",
                str(args.rewards),
                "--benefits",
                "1000",
                "--members",
                "100",
            ],
            check=True,
            capture_output=True,
        )
        with served(data) as (base_url, _):
            results: dict[str, list[dict[str, float]]] = {r: [] for r in routes}
            for i in range(args.rounds):
                order = routes if i % 2 == 0 else routes[::-1]
                for route in order:
                    results[route].append(measure(route, base_url))
            profiles = {}
            if args.profile:
                for route in ("client", "snapshot"):
                    if route in results:
                        profiles[route] = measure(route, base_url, profile=True)
            latency = None
            if args.latency:
                _faults(base_url, delay_seconds=args.latency)
                latency = [measure("client", base_url, False) for _ in range(args.rounds)]
                _faults(base_url)
    report(args, results, latency)
    for route, found in profiles.items():
        print(
            f"\nwhere one warm {route} pull spends its {found['seconds']:.2f} s under cProfile "
            "(own time per function, calling thread; the read-ahead thread's requests and "
            "parsing show as lock acquire):"
        )
        for label, seconds in found["top"]:
            print(f"  {seconds:7.3f} s  {label}")


def _median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def report(
    args: argparse.Namespace,
    results: dict[str, list[dict[str, float]]],
    latency: list[dict[str, float]] | None,
) -> None:
    print(
        f"{args.rewards:,} rewards, page size {PAGE}, {args.rounds} alternating rounds, "
        "each route in its own process; medians"
    )
    print(
        f"{'route':12} {'time s':>8} {'peak RSS MiB':>13} {'growth MiB':>11} {'frames MiB':>11}"
        "   runs (s)"
    )
    for route, runs in results.items():
        print(
            f"{route:12} {_median(runs, 'seconds'):8.3f} {_median(runs, 'peak'):13.1f} "
            f"{_median(runs, 'growth'):11.1f} {_median(runs, 'frames'):11.1f}   "
            + ", ".join(f"{r['seconds']:.2f}" for r in runs)
        )

    def ratio(a: str, b: str, key: str, goal: float) -> None:
        value = _median(results[a], key) / _median(results[b], key)
        verdict = "met" if value <= goal else "NOT met"
        print(f"{a}/{b} {key:8} {value:5.2f}  (goal <= {goal}: {verdict})")

    ratio("client", "analyst", "seconds", 0.6)
    ratio("client", "analyst", "peak", 0.5)
    ratio("client", "wire", "seconds", 1.3)
    if "snapshot" in results:
        ratio("snapshot", "analyst_all", "seconds", 0.6)
        ratio("snapshot", "analyst_all", "peak", 0.5)
        ratio("snapshot", "wire_all", "seconds", 1.3)
    for route in ("client", "snapshot"):
        if route in results:
            frames = _median(results[route], "frames")
            for key, when in (("growth", "first pull"), ("warm_growth", "after a warm-up pull")):
                growth = _median(results[route], key) / frames
                verdict = "met" if growth <= 3 else "NOT met"
                print(
                    f"{route} memory growth / frames, {when} in the same process "
                    f"{growth:5.2f}  (goal <= 3: {verdict})"
                )
    if latency:
        pages = -(-args.rewards // PAGE) + 1  # the last page says there is no next
        parse = _median(results["client"], "seconds")
        took = statistics.median(r["seconds"] for r in latency)
        bound = 1.1 * pages * args.latency + parse
        verdict = "met" if took <= bound else "NOT met"
        print(
            f"client with {args.latency * 1000:.0f} ms per request: {took:.2f} s; "
            f"1.1 x {pages} pages x {args.latency * 1000:.0f} ms + {parse:.2f} s parse = "
            f"{bound:.2f} s ({verdict})"
        )


if __name__ == "__main__":
    main()
