"""Real-scale programs (10^4 to 10^7 members): what generating, loading and pulling cost.

Each section is a function of the parsed options; name the sections to run:

    .venv/bin/python benchmarks/scale.py load [--members 200000] [--rounds 3]

Sections:

- ``load``: generate a production-like program (``generate_program``: ``--members``
  members over ``--programs`` programs, 500 rewards, 100 benefits, 5 card definitions,
  3 tier structures) and time it (with the cycle collector paused, as ``lyt sandbox
  generate`` runs it), print its shape (cards holding pending points, the top
  1 %'s share of points, inactive members), write it, then time ``lyt sandbox serve
  --data FILE`` from start until it answers ``/docs`` against a fresh Python process that
  only ``json.load``s the file (``--rounds`` of each, alternating, medians; the method of
  ``sandbox_pagination.py``, whose functions it uses), and report the sandbox's peak RSS.

- ``designs``: the sample designs of ``DESIGNS`` on the ``pull`` section's program, 100 seeds
  each, in memory: the median +- of points outstanding, intervals holding the truth, calls.

- ``pull``: the program of the issue that started this (``--pull-members`` members, one card
  each, 500 rewards, 100 benefits, 5 card definitions, 3 tier structures) served by ``lyt
  sandbox serve --plan professional`` (5,000 calls an hour), a fresh sandbox for each route,
  each route run in a process of its own (its peak RSS is its own):

  - ``estimate``: ``ProgramSnapshot.estimate(client)``: its calls and its list pages;
  - ``default``: ``ProgramSnapshot.pull(client)``: the calls it sends before it refuses
    (goal: no member read, at most the estimate's list pages), and the window left;
  - ``sampled``: ``pull(client, sample=SAMPLE)`` (1,075 members, the default adaptive
    design, about 1,470 calls on this program): calls (goal at most 1,500), time, and the
    estimate of points outstanding against the truth summed from the program file;
  - ``cards``: the same for points outstanding alone, pulling only what that question needs:
    ``pull(client, kinds=CARDS_ONLY, sample=CARDS_SAMPLE)`` (1,296 members, no other list
    and no bucket list, 1,500 calls; goal: the 95 % interval within +-10 % and holding the
    truth, for at most 1,500 calls);
  - ``full``: ``pull(client)`` on an unlimited plan: calls against the interface minimum
    (list pages + one read per member + one bucket list per card holding pending points +
    card definitions read by ID + one token; goal at most 1.01x), time and peak RSS;
  - ``peer``: the route a competent analyst writes by hand with the client: list the
    programs and members, read the members eight at a time in threads, list the buckets of
    the cards holding pending points: its calls and time, against ``full``.

  ``full`` and ``peer`` run ``--rounds`` times each, alternating (a fresh sandbox each run),
  and their medians are compared, with the spread of the times: on a shared two-core machine
  one run of each, one after the other, met different loads (the same pull took 11 to 21 s
  from one run to the next), so a single pair's ratio said more about the load than about the
  routes. Beside the time, each run's CPU seconds are counted, the route's process's (all
  its threads) and the sandbox's during the route (Linux; from ``/proc``): those do not
  depend on what else the machine runs.

- ``paced``: the ``pull`` section's program on a sandbox whose clock runs, pulled unpaced (an
  unlimited plan), then with ``checkpoint=`` under a per-minute budget (``--paced-plan``,
  default 20000/minute, at ``--paced-share`` 0.5): calls per window (goal: never above the
  share), total calls against the unpaced pull, time, the checkpoint's size on disk, peak RSS,
  and whether the frames are equal.

- ``resume``: ``lyt export --checkpoint`` of that program killed with SIGKILL at a random
  answer (``--seed``), then run again to its end: the calls repeated over both runs against
  the unpaced pull (goal: 0 beyond the reads in flight at the kill).
- ``history``: a ``SnapshotHistory`` of ``--history-days`` daily snapshots of one program of
  ``--history-members`` members (500 rewards, 100 benefits, 5 card definitions, 3 tier
  structures; built in memory by ``history_days.daily_snapshots``, no sandbox: balances,
  statuses and members change from day to day). It times the appends and prints the size on
  disk (and one day's files written with pyarrow's default snappy, for comparison), then
  runs each route of ``history_routes.ROUTES`` ``--rounds`` times, each in a process of its
  own (median time without the imports, the largest peak RSS with them): ``list()``; with
  ``query`` points outstanding per day and program (``cards``), ACTIVE members per day and
  points per day by the status of their member (cards joined to members), each beside the
  same answer from pandas (``pd.concat`` of ``pd.read_parquet`` of every partition, only
  the columns needed) and from DuckDB straight on the folders' glob, with the ratios;
  ``diff`` of the last two days (beside pandas merging the two days' cards, a narrower
  answer) and ``load`` of the last day. The answers of each question are checked to agree.
- ``refresh``: the ``pull`` section's program (``--pull-members`` members) grown by 1 % new
  members (the newest 1 % of a program generated 1 % larger, with their cards, customers
  and buckets, served by a second sandbox on the same clock): a full pull of the old
  program (unlimited plan) is refreshed against the grown one (``professional`` plan) with
  ``refresh(client, members="new")``, the definitions and the new members, after
  ``refresh_cost`` showed its cost; against a full pull of the grown program (unlimited):
  calls, time and their ratio (goal: at most 10 % of the full pull's calls).
- ``parallel``: one program of ``--members`` members (200,000 by default) served by ``lyt
  sandbox serve --plan unlimited`` with ``--latency`` seconds (0.05) added to every call, its
  member list walked twice, each walk in a process of its own: the sequential cursor walk
  (page after page, 100 a page) and ``pull.windows.awalk_windows`` (``created_at`` windows,
  ``--concurrency`` requests at a time): calls, time, the ratios (goals: at most 0.25x the
  time, at most 1.05x the calls) and each walk's peak RSS; the two must list the same members
  in the same order.

A benchmark reports; the exit status is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402
from sandbox_pagination import stop, timed_loads  # noqa: E402

from lyt_toolkit.frames.sample import (  # noqa: E402
    Sample,
    draw_sample,
    estimate_total,
    member_points,
)
from lyt_toolkit.pull.window_cost import windowed_calls  # noqa: E402
from lyt_toolkit.snapshot.cost import pages  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = "2026-01-15T12:00:00Z"
CARDS_ONLY = ["programs", "members", "cards"]
"""The kinds a pull needs for points outstanding alone: no other list, no bucket list."""
CARDS_SAMPLE = 1296
"""The members 1,500 calls read with ``CARDS_ONLY``: the token, the programs list and the
members list (200 pages, walked in created_at windows: 202 calls) take 204."""
SAMPLE = 1075
"""The sampled route's members: as many as 1,500 calls hold with the lists and the bucket
lists of the sampled cards holding pending points (about 1 in 4 of the sample)."""
PULL_SIZES = {"rewards": 500, "benefits": 100, "card_definitions": 5, "tier_structures": 3}
"""The program of the pull section, beside its members."""


def shape(program: dict[str, Any]) -> str:
    """The skew a sampler meets: pending holders, the top 1 %'s points, inactive members."""
    cards, members = program["cards"], program["members"]
    if not cards:
        return "no members"
    points = sorted((c["balance"]["points"] for c in cards), reverse=True)
    top = sum(points[: max(1, len(points) // 100)]) / max(sum(points), 1)
    holders = sum(1 for c in cards if c["balance"]["pending_points"]) / len(cards)
    inactive = sum(1 for m in members if m["status"] == "INACTIVE") / len(members)
    return (
        f"{holders:.1%} of cards hold pending points, the top 1 % hold {top:.1%} of points,"
        f" {inactive:.1%} of members inactive"
    )


def load(args: argparse.Namespace) -> None:
    """Generate a program of ``--members`` members and load it as ``lyt sandbox serve``."""
    sizes = {
        "members": args.members,
        "programs": args.programs,
        "rewards": 500,
        "benefits": 100,
        "card_definitions": 5,
        "tier_structures": 3,
    }
    gc.disable()  # as `lyt sandbox generate` runs it: the collector would rescan every row
    try:
        started = time.perf_counter()
        program = generate_program(**sizes, seed=args.seed)
        generated = time.perf_counter() - started
    finally:
        gc.enable()
    records = sum(len(v) for v in program.values() if isinstance(v, list))
    print(f"load: {args.members:,} members over {args.programs} program(s), {records:,} records")
    print(f"  shape             {shape(program)}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "program.json"
        started = time.perf_counter()
        path.write_text(json.dumps(program, separators=(",", ":")) + "\n", encoding="utf-8")
        written = time.perf_counter() - started
        del program
        gc.collect()
        size_mb = path.stat().st_size / 1e6
        bare, loads, child, _ = timed_loads(path, None, args.rounds)
        usage = stop(child)
    bare_s, loaded = statistics.median(bare), statistics.median(loads)
    print(f"  generate          {generated:7.2f} s   (generate_program, collector paused)")
    print(
        f"  write             {written:7.2f} s   (json.dumps, as write_program, {size_mb:.0f} MB)"
    )
    print(
        f"  json.load         {bare_s:7.2f} s   median, a fresh python -c 'json.load(the file)'"
        f" ({', '.join(f'{t:.2f}' for t in bare)})"
    )
    print(
        f"  load              {loaded:7.2f} s   median, lyt sandbox serve --data until /docs"
        f" answers ({', '.join(f'{t:.2f}' for t in loads)}) = {records / loaded:,.0f} records/s"
    )
    print(f"  load / json.load  {loaded / bare_s:7.2f}x")
    print(f"  peak RSS          {usage.ru_maxrss / 1024:7.0f} MiB (the last sandbox, loaded)")


def _serve(program: Path, plan: str) -> tuple[subprocess.Popen[str], str]:
    """``lyt sandbox serve --data program --plan plan`` in a child, once it answers."""
    command = [sys.executable, "-m", "lyt_toolkit.cli", "sandbox", "serve", "--port", "0"]
    command += ["--data", str(program), "--now", NOW, "--seed", "1", "--plan", plan]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    line = child.stdout.readline()
    if "ready at " not in line:
        child.kill()
        raise SystemExit(f"the sandbox did not start: {line!r}")
    return child, line.split("ready at ")[1].split()[0]


def _in_own_process(module: str, call: str, what: str) -> dict[str, Any]:
    """Run ``MODULE.CALL`` (a module of this folder) in a fresh process of its own; the JSON
    line it printed last (a failure stops the benchmark, naming ``what`` failed)."""
    code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import {module}; "
    code += f"{module}.{call}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{what} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _route(name: str, base_url: str, truth: str) -> dict[str, Any]:
    """Run one route in a fresh process of its own; what it printed (JSON) and its RSS."""
    call = f"run_route({name!r}, {base_url!r}, {truth!r})"
    return _in_own_process("scale", call, f"route {name}")


def run_route(name: str, base_url: str, truth: str) -> None:
    """In a route's own process: run it against the sandbox at ``base_url`` and print its
    figures as one JSON line (``truth``: the true totals, as JSON)."""
    from lyt_toolkit import LoyaltyClient, ProgramSnapshot
    from lyt_toolkit.economics import estimates
    from lyt_toolkit.errors import PullBudgetError
    from lyt_toolkit.sandbox import SandboxCredentials

    keys = SandboxCredentials.from_env()
    client = LoyaltyClient(base_url=base_url, env_file=None, **keys.as_client_kwargs())
    out: dict[str, Any] = {"route": name}
    started, cpu_started = time.perf_counter(), time.process_time()
    if name == "estimate":
        estimate = ProgramSnapshot.estimate(client)
        out["spent"] = estimate.spent
        out["list_pages"] = sum(
            n
            for part, n in estimate.parts.items()
            if part not in ("cards", "pending_buckets", "card_definitions_by_id")
        )
        out["text"] = str(estimate)
    elif name == "default":
        try:
            ProgramSnapshot.pull(client, progress=False)
            out["refused"] = False
        except PullBudgetError as error:
            out["refused"], out["stage"], out["text"] = True, error.stage, str(error)
    elif name in ("sampled", "full"):
        sample = SAMPLE if name == "sampled" else None
        snapshot = ProgramSnapshot.pull(client, progress=False, sample=sample)
        out["members"], out["cards"] = len(snapshot.members), len(snapshot.cards)
        out["holding"] = int((snapshot.cards["balance_pending_points"] != 0).sum())
        out["by_id"] = int((~snapshot.card_definitions["listed"]).sum())
        out["list_pages"] = _list_pages(snapshot)
        if sample:
            figures = estimates(snapshot)
            whole = figures[figures["card_definition_id"].isna() & figures["month"].isna()]
            row = whole[whole["figure"] == "outstanding_points"].iloc[0]
            out["outstanding"] = [float(row[c]) for c in ("estimate", "ci_low", "ci_high")]
        else:
            out["outstanding"] = [float(snapshot.cards["balance_points"].sum())] * 3
    elif name == "cards":
        snapshot = ProgramSnapshot.pull(
            client, progress=False, kinds=CARDS_ONLY, sample=CARDS_SAMPLE
        )
        assert snapshot.sample is not None
        total = estimate_total(snapshot.sample, member_points(snapshot.cards))
        out["outstanding"] = [total.value, total.low, total.high]
    elif name == "peer":
        out.update(_peer(client))
    elif name.startswith("refresh_"):
        out.update(_refresh_route(name, client, json.loads(truth)))
    out["seconds"] = time.perf_counter() - started
    out["cpu_seconds"] = time.process_time() - cpu_started
    out["calls"] = client.quota.calls_used
    out["window_left"] = client.quota.remaining
    out["rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["truth"] = json.loads(truth)
    print(json.dumps(out))


def _list_pages(snapshot: Any) -> int:
    """The pages of every list a full pull walks (one call each, one for an empty list)."""
    from lyt_toolkit.snapshot.cost import pages

    count = sum(
        pages(len(getattr(snapshot, kind)), 100)
        for kind in ("rewards", "benefits", "tier_structures", "programs")
    )
    count += pages(int(snapshot.card_definitions["listed"].sum()), 100)
    per_program = snapshot.members.groupby("program_id").size()
    return count + sum(pages(int(n), 100) for n in per_program)


def _peer(client: Any) -> dict[str, Any]:
    """The analyst's loop: programs, members, member reads in threads, buckets of the cards
    holding pending points; rows read."""
    from concurrent.futures import ThreadPoolExecutor

    members = [
        m for p in client.programs.iter(limit=100) for m in client.members.iter(p.id, limit=100)
    ]
    with ThreadPoolExecutor(8) as pool:
        read = list(pool.map(lambda m: client.members.get(m.program_id, m.id), members))
        holding = [
            (m, c.card)
            for m in read
            for c in m.cards
            if c.card is not None and c.card.balance.pending_points
        ]
        buckets = list(
            pool.map(
                lambda mc: client.pending_buckets.list(
                    mc[0].program_id, mc[0].id, mc[1].id, limit=100
                ),
                holding,
            )
        )
    return {"members": len(members), "buckets": sum(len(b.data) for b in buckets)}


def _cpu_seconds(pid: int) -> float | None:
    """The CPU seconds process ``pid`` has used so far (user and system; None off Linux)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return None
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _served_route(path: Path, route: str, plan: str, truth: str) -> dict[str, Any]:
    """``route`` against a fresh sandbox of ``plan`` serving ``path``; its figures, with the
    sandbox's CPU seconds during the route (``sandbox_cpu_seconds``, None off Linux)."""
    child, base_url = _serve(path, plan)
    try:
        before = _cpu_seconds(child.pid)
        found = _route(route, base_url, truth)
        after = _cpu_seconds(child.pid)
    finally:
        stop(child)
    found["sandbox_cpu_seconds"] = None if before is None or after is None else after - before
    return found


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One route's runs as one: the first run's figures, its times the runs' medians
    (``seconds_runs``: every run's time)."""
    found = dict(runs[0])
    found["seconds_runs"] = [run["seconds"] for run in runs]
    for key in ("seconds", "cpu_seconds", "sandbox_cpu_seconds"):
        values = [run[key] for run in runs if run[key] is not None]
        found[key] = statistics.median(values) if values else None
    return found


def pull(args: argparse.Namespace) -> None:
    """Each pull route on the ``--pull-members`` program, a fresh sandbox each; ``full`` and
    ``peer`` ``--rounds`` times each, alternating."""
    sizes = {"members": args.pull_members, **PULL_SIZES}
    program = generate_program(**sizes, seed=args.seed)
    truth = json.dumps(
        {
            "outstanding": sum(c["balance"]["points"] for c in program["cards"]),
            "pending": sum(c["balance"]["pending_points"] for c in program["cards"]),
        }
    )
    print(f"pull: {args.pull_members:,} members, one card each; {shape(program)}")
    routes = {
        "estimate": "professional",
        "default": "professional",
        "sampled": "professional",
        "cards": "professional",
    }
    found: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "program.json"
        path.write_text(json.dumps(program, separators=(",", ":")), encoding="utf-8")
        del program
        for route, plan in routes.items():
            found[route] = _served_route(path, route, plan, truth)
        runs: dict[str, list[dict[str, Any]]] = {"full": [], "peer": []}
        for round_ in range(max(1, args.rounds)):
            for route in ("full", "peer") if round_ % 2 == 0 else ("peer", "full"):
                runs[route].append(_served_route(path, route, "unlimited", truth))
        found.update((route, _medians(done)) for route, done in runs.items())
    _report(found)


def _cpu(route: dict[str, Any]) -> str:
    """A route's median CPU seconds: its process's and the sandbox's during it."""
    sandbox = route["sandbox_cpu_seconds"]
    served = "" if sandbox is None else f" + sandbox {sandbox:.1f} s"
    return f"CPU: client {route['cpu_seconds']:.1f} s{served}"


def _spread(route: dict[str, Any]) -> str:
    """A route's median time and the spread of its runs' times."""
    times = route["seconds_runs"]
    return (
        f"{route['seconds']:.1f} s (median of {len(times)}: {min(times):.1f} to {max(times):.1f})"
    )


def _ratio(full: float | None, peer: float | None) -> str:
    return "n/a" if full is None or not peer else f"{full / peer:.2f}x"


def _report(found: dict[str, dict[str, Any]]) -> None:
    est, default, sampled, full, peer = (
        found[r] for r in ("estimate", "default", "sampled", "full", "peer")
    )
    truth = sampled["truth"]["outstanding"]
    print(
        f"  estimate          {est['spent']:7,} calls sent; it counts a pull's lists at "
        f"{est['list_pages']:,} (list pages and the token)"
    )
    print(f"    {est['text']}")
    met = default["refused"] and default["calls"] <= est["list_pages"]
    print(
        f"  default pull      refused before its {default.get('stage')}: {default['calls']:,} calls"
        f" sent (estimate's list pages {est['list_pages']:,}; goal no member read, at most"
        f" those: {'met' if met else 'NOT met'}); window left {default['window_left']:,} of 5,000"
    )
    # The +-10 % goal is for points outstanding: judged on the pull that reads what that
    # question needs (the cards); the pull of every frame shows what the same calls give
    # when the sample must also carry the lists and the bucket lists.
    for label, route, judged in (
        (f"sampled pull      (n={SAMPLE:,}, every frame)", sampled, False),
        (f"sampled pull      (n={CARDS_SAMPLE:,}, kinds={CARDS_ONLY})", found["cards"], True),
    ):
        _sampled_lines(label, route, truth, judged)
    minimum = 1 + full["list_pages"] + full["members"] + full["holding"] + full["by_id"]
    ratio = full["calls"] / minimum
    print(
        f"  full pull         {full['calls']:7,} calls, interface minimum {minimum:,} "
        f"(1 token + {full['list_pages']:,} list pages + {full['members']:,} member reads + "
        f"{full['holding']:,} bucket lists + {full['by_id']} by ID): {ratio:.4f}x (goal <= 1.01:"
        f" {'met' if ratio <= 1.01 else 'NOT met'}); {_spread(full)}, {_cpu(full)}, "
        f"{full['rss_mib']:.0f} MiB peak RSS"
    )
    print(
        f"  peer (by hand)    {peer['calls']:7,} calls, {_spread(peer)}, {_cpu(peer)}, "
        f"{peer['rss_mib']:.0f} MiB peak RSS (frames not built)"
    )
    print(
        f"  full / peer       {full['calls'] / peer['calls']:.3f}x calls, "
        f"{full['seconds'] / peer['seconds']:.2f}x time (medians), "
        f"{_ratio(full['cpu_seconds'], peer['cpu_seconds'])} client CPU, "
        f"{_ratio(full['sandbox_cpu_seconds'], peer['sandbox_cpu_seconds'])} sandbox CPU; "
        "sampled / full "
        f"{sampled['calls'] / full['calls']:.3f}x calls, "
        f"{sampled['seconds'] / full['seconds']:.2f}x time"
    )


def _sampled_lines(label: str, route: dict[str, Any], truth: float, judged: bool) -> None:
    """A sampled route's calls and estimate of points outstanding; ``judged``: against the
    +-10 % goal (else said to be the cards-only route's)."""
    value, low, high = route["outstanding"]
    error = (value - truth) / truth
    half = (high - low) / 2 / value
    covered = low <= truth <= high
    print(
        f"  {label}\n    {route['calls']:,} calls (goal <= 1,500: "
        f"{'met' if route['calls'] <= 1500 else 'NOT met'}), {route['seconds']:.1f} s, "
        f"{route['rss_mib']:.0f} MiB peak RSS"
    )
    print(
        f"    points outstanding {value:,.0f} (95 % CI {low:,.0f} to {high:,.0f}); truth "
        f"{truth:,}; error {error:+.1%}, interval +-{half:.1%} ("
        + (
            f"goal +-10 %: {'met' if half <= 0.10 and covered else 'NOT met'}"
            if judged
            else "the +-10 % goal is judged on the cards-only pull below"
        )
        + f"; holds the truth: {covered})"
    )


DESIGNS: list[tuple[str, int, dict[str, Any], bool]] = [
    ("simple random", 1_000, {"by": (), "allocation": "proportional"}, True),
    (
        "one round, proportional, 4 join bands",
        1_000,
        {"allocation": "proportional", "bands": 4},
        True,
    ),
    ("adaptive (the default)", 1_000, {}, True),
    ("adaptive (the default)", SAMPLE, {}, True),
    ("adaptive, cards only", CARDS_SAMPLE, {}, False),
]
"""The sample designs the ``designs`` section compares: label, members, ``Sample`` keywords,
and whether the pull reads every list and the bucket lists (else ``CARDS_ONLY``)."""


def designs(args: argparse.Namespace) -> None:
    """Each design in ``DESIGNS`` drawn 100 times (seeds 0-99) from the ``pull`` section's
    program, in memory: the median +- of points outstanding, how many intervals hold the
    truth, and the median calls a sampled pull of it would send."""
    program = generate_program(members=args.pull_members, seed=args.seed, **PULL_SIZES)
    now = pd.Timestamp(NOW)
    members = pd.DataFrame(program["members"])
    members["created_at"] = [
        now - pd.Timedelta(seconds=int(text.removeprefix("now-").removesuffix("s")))
        for text in members["created_at"]
    ]
    points = pd.Series({c["member_id"]: float(c["balance"]["points"]) for c in program["cards"]})
    holds = pd.Series(
        {c["member_id"]: c["balance"]["pending_points"] != 0 for c in program["cards"]}
    )
    # The token, the programs list, every page of 100 of the others, and the members list as
    # the pull walks it (in created_at windows: a few calls beyond its pages).
    listed = ("rewards", "benefits", "card_definitions", "tier_structures")
    wire = [
        {"id": m["id"], "created_at": at.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
        for m, at in zip(program["members"], members["created_at"], strict=True)
    ]
    members_lists = 2 + windowed_calls(wire)
    every_list = members_lists + sum(pages(len(program[k]), 100) for k in listed)
    truth = points.sum()
    print(
        f"designs: {args.pull_members:,} members, points outstanding {truth:,.0f}; 100 seeds each"
    )
    for label, n, keywords, whole in DESIGNS:
        widths, held, calls = [], 0, []
        for seed in range(100):
            design = draw_sample(
                members,
                Sample(n, seed=seed, **keywords),
                lambda pilot: points[pilot.units["member_id"].to_numpy()],
            )
            ids = design.units["member_id"].to_numpy()
            total = estimate_total(design, points[ids])
            widths.append(total.relative_half_width)
            held += total.low <= truth <= total.high
            if whole:
                calls.append(every_list + len(ids) + int(holds[ids].sum()))
            else:
                calls.append(members_lists + len(ids))
        print(
            f"  {label:40} n={n:,}: +-{statistics.median(widths):.1%}, {held} of 100 hold the "
            f"truth, {statistics.median(calls):,.0f} calls"
        )


def parallel(args: argparse.Namespace) -> None:
    """The ``--members`` program's member list walked sequentially and in parallel windows,
    with ``--latency`` seconds per call, side by side."""
    started = time.perf_counter()
    gc.disable()
    try:
        program = generate_program(members=args.members, seed=args.seed, **PULL_SIZES)
    finally:
        gc.enable()
    generated = time.perf_counter() - started
    print(
        f"parallel: {args.members:,} members, {args.latency * 1000:.0f} ms per call, "
        f"concurrency {args.concurrency} (generated in {generated:.1f} s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "program.json"
        path.write_text(json.dumps(program, separators=(",", ":")), encoding="utf-8")
        del program
        gc.collect()
        child, base_url = _serve(path, "unlimited")
        try:
            _admin(base_url, "PUT", "/faults", {"delay_seconds": args.latency})
            walks = {
                name: _walk_process(name, base_url, args.concurrency)
                for name in ("sequential", "windows")
            }
        finally:
            stop(child)
    seq, par = walks["sequential"], walks["windows"]
    for name, walk in walks.items():
        print(
            f"  {name:10} {walk['members']:9,} members, {walk['calls']:6,} calls, "
            f"{walk['seconds']:7.1f} s, {walk['rss_mib']:5.0f} MiB peak RSS"
        )
    time_ratio, call_ratio = par["seconds"] / seq["seconds"], par["calls"] / seq["calls"]
    same = par["ids"] == seq["ids"] and par["members"] == seq["members"]
    print(
        f"  windows / sequential: {time_ratio:.3f}x time (goal <= 0.25: "
        f"{'met' if time_ratio <= 0.25 else 'NOT met'}), {call_ratio:.4f}x calls (goal <= 1.05:"
        f" {'met' if call_ratio <= 1.05 else 'NOT met'}); same members in the same order: {same}"
    )


def _admin(base_url: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """One call of a served sandbox's admin API (``/_sandbox``), with the key pair (the served
    sandbox's keys from the environment); its answer."""
    import httpx

    from lyt_toolkit.sandbox import SandboxCredentials

    keys = SandboxCredentials.from_env()
    headers = {"X-App-Id": keys.app_id, "X-App-Token": keys.app_token}
    answer = httpx.request(method, f"{base_url}/_sandbox{path}", json=body, headers=headers)
    answer.raise_for_status()
    return answer.json()


def run_paced(base_url: str, plan: str, share: float) -> None:
    """In its own process: the program pulled unpaced (an unlimited plan), then paced with a
    checkpoint under ``plan`` at ``share``, both on the same running sandbox; one JSON line."""
    import tempfile as tmp

    from lyt_toolkit import LoyaltyClient, ProgramSnapshot
    from lyt_toolkit.sandbox import SandboxCredentials

    keys = SandboxCredentials.from_env().as_client_kwargs()
    out: dict[str, Any] = {"plan": plan, "share": share}
    _admin(base_url, "PUT", "/plan", {"plan": "unlimited"})
    with LoyaltyClient(base_url=base_url, env_file=None, **keys) as client:
        started = time.perf_counter()
        whole = ProgramSnapshot.pull(client, progress=False, budget_share=1.0)
        out["unpaced_seconds"] = time.perf_counter() - started
        out["unpaced_calls"] = client.quota.calls_used
    _admin(base_url, "PUT", "/plan", {"plan": plan})
    with (
        tmp.TemporaryDirectory() as folder,
        LoyaltyClient(base_url=base_url, env_file=None, **keys) as client,
    ):
        started = time.perf_counter()
        paced = ProgramSnapshot.pull(
            client, progress=False, budget_share=share, checkpoint=Path(folder) / "c"
        )
        out["paced_seconds"] = time.perf_counter() - started
        out["paced_calls"] = client.quota.calls_used
        assert paced.calls is not None
        out["windows"] = list(paced.calls.windows)
        out["limit"] = client.quota.limit
        out["disk_mib"] = sum(f.stat().st_size for f in Path(folder).rglob("*")) / 2**20
    out["server_last_window"] = _admin(base_url, "GET", "/plan")["used"]
    out["equal"] = all(whole.frames()[name].equals(frame) for name, frame in paced.frames().items())
    out["rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def paced(args: argparse.Namespace) -> None:
    """A paced, checkpointed pull of the ``--pull-members`` program under a per-minute budget
    (``--paced-plan``, ``--paced-share``) against the unpaced pull of the same program, on
    one sandbox whose clock runs (so its windows end)."""
    sizes = {"members": args.pull_members, **PULL_SIZES}
    program = generate_program(**sizes, seed=args.seed)
    del program["now"]  # a running clock: the windows end
    print(f"paced: {args.pull_members:,} members under {args.paced_plan} at {args.paced_share}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "program.json"
        path.write_text(json.dumps(program, separators=(",", ":")), encoding="utf-8")
        del program
        command = [sys.executable, "-m", "lyt_toolkit.cli", "sandbox", "serve", "--port", "0"]
        command += ["--data", str(path), "--seed", "1", "--plan", "unlimited"]
        child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        base_url = child.stdout.readline().split("ready at ")[1].split()[0]
        try:
            code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import scale; "
            code += f"scale.run_paced({base_url!r}, {args.paced_plan!r}, {args.paced_share!r})"
            done = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=False
            )
        finally:
            stop(child)
    if done.returncode != 0:
        raise SystemExit(f"paced failed:\n{done.stderr[-3000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    allowed = int(found["share"] * found["limit"])
    windows = found["windows"]
    print(
        f"  unpaced pull (unlimited plan): {found['unpaced_calls']:,} calls, "
        f"{found['unpaced_seconds']:.1f} s"
    )
    print(
        f"  paced pull: {found['paced_calls']:,} calls over {len(windows)} windows "
        f"({', '.join(f'{w:,}' for w in windows)}), {found['paced_seconds']:.1f} s; "
        f"checkpoint {found['disk_mib']:.1f} MiB on disk; peak RSS {found['rss_mib']:.0f} MiB"
    )
    print(
        f"  calls per window at most {max(windows):,} of the share's {allowed:,} "
        f"({'met' if max(windows) <= allowed else 'NOT met'}); the service counted "
        f"{found['server_last_window']:,} in the last window, the pull {windows[-1]:,}"
    )
    ratio = found["paced_calls"] / found["unpaced_calls"]
    print(f"  paced / unpaced calls: {ratio:.4f}x; frames equal: {found['equal']}")


def _stored(folder: Path) -> int:
    """Answers a checkpoint folder holds (journal lines, and 5,000 a part)."""
    journal = folder / "journal.jsonl"
    lines = len(journal.read_bytes().splitlines()) if journal.exists() else 0
    return lines + 5000 * len(list((folder / "parts").glob("part-*.parquet")))


def resume(args: argparse.Namespace) -> None:
    """``lyt export --checkpoint`` of the ``--pull-members`` program killed with SIGKILL at a
    random answer (seeded by ``--seed``), then run again to its end: the calls repeated."""
    import random
    import signal

    sizes = {"members": args.pull_members, **PULL_SIZES}
    program = generate_program(**sizes, seed=args.seed)
    print(f"resume: {args.pull_members:,} members, lyt export --checkpoint killed with SIGKILL")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "program.json"
        path.write_text(json.dumps(program, separators=(",", ":")), encoding="utf-8")
        del program
        child, base_url = _serve(path, "unlimited")
        try:
            full = _route("full", base_url, json.dumps({}))["calls"]
            before = _admin(base_url, "GET", "/plan")["used"]
            from lyt_toolkit.sandbox import SandboxCredentials

            keys = SandboxCredentials.from_env().as_client_kwargs()
            env = {**os.environ, "LYT_PROGRESS": "off", "LYT_BASE_URL": base_url}
            env.update({f"LYT_{k.upper()}": str(v) for k, v in keys.items()})
            folder = Path(tmp) / "checkpoint"
            command = [sys.executable, "-m", "lyt_toolkit.cli", "export", "--budget-share", "1"]
            command += ["--checkpoint", str(folder)]
            at = random.Random(args.seed).randrange(100, full - 100)
            first = subprocess.Popen([*command, "--out", str(Path(tmp) / "a")], env=env)
            while _stored(folder) < at and first.poll() is None:
                time.sleep(0.005)
            first.send_signal(signal.SIGKILL)
            first.wait()
            stored = _stored(folder)
            started = time.perf_counter()
            second = subprocess.run(
                [*command, "--out", str(Path(tmp) / "b")],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            seconds = time.perf_counter() - started
            used = _admin(base_url, "GET", "/plan")["used"] - before
        finally:
            stop(child)
    if second.returncode != 0:
        raise SystemExit(f"the resumed export failed:\n{second.stderr[-3000:]}")
    repeated = used - full - 1  # the resumed run's own token is not a read
    print(f"  killed after {stored:,} answers stored (aimed at {at:,}); resumed in {seconds:.1f} s")
    print(
        f"  calls over both runs {used:,}, the unpaced pull {full:,}: repeated {repeated} "
        f"(goal: 0 beyond the reads in flight at the kill, at most 8)"
    )


def history(args: argparse.Namespace) -> None:
    """A history of ``--history-days`` daily snapshots of ``--history-members`` members: its
    appends, its size on disk, and each route of ``history_routes`` in a process of its own."""
    from history_days import daily_snapshots
    from history_routes import ROUTES

    from lyt_toolkit.snapshot import SnapshotHistory

    members, days = args.history_members, args.history_days
    print(f"history: {days} daily snapshots of a program of {members:,} members")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "history"
        store = SnapshotHistory(folder)
        appends: list[float] = []
        started = time.perf_counter()
        last = None
        for snapshot in daily_snapshots(members, days, seed=args.seed):
            began = time.perf_counter()
            store.append(snapshot)
            appends.append(time.perf_counter() - began)
            last = snapshot
        built = time.perf_counter() - started - sum(appends)
        assert last is not None
        rows = sum(len(f) for f in last.frames().values())
        print(
            f"  built             {built:7.1f} s   (generating and changing the frames in memory;"
            f" the last day {rows:,} rows)"
        )
        print(
            f"  append            {statistics.median(appends):7.2f} s   median a day "
            f"(max {max(appends):.2f}), {sum(appends):.1f} s in all"
        )
        _sizes(folder, last)
        found = {name: _history_route(name, folder, args.rounds) for name in ROUTES}
    _history_report(found)


def _sizes(folder: Path, last: Any) -> None:
    """The history's size on disk, per kind, and one day's written as snappy."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    per_kind: dict[str, int] = {}
    for p in files:
        per_kind[p.stem] = per_kind.get(p.stem, 0) + p.stat().st_size
    days = len(list(folder.glob("pulled_at=*")))
    largest = sorted(per_kind.items(), key=lambda kv: -kv[1])[:3]
    print(
        f"  on disk           {total / 1e6:7.1f} MB  ({total / days / 1e6:.1f} MB a day; "
        + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in largest)
        + ")"
    )
    with tempfile.TemporaryDirectory() as tmp:
        day = 0
        for name, frame in last.frames().items():
            path = Path(tmp) / f"{name}.parquet"
            plain = frame.copy(deep=False)
            plain.attrs = {}
            plain.to_parquet(path, engine="pyarrow", index=False, compression="snappy")
            day += path.stat().st_size
    kept = sum(p.stat().st_size for p in folder.glob("pulled_at=*/*.parquet")) / days
    print(
        f"  one day, snappy   {day / 1e6:7.1f} MB  (pyarrow's default codec; zstd as stored: "
        f"{kept / 1e6:.1f} MB, {kept / day:.2f}x)"
    )


def _history_route(name: str, folder: Path, rounds: int) -> dict[str, Any]:
    """One route of ``history_routes``, ``rounds`` times, each in a fresh process of its own:
    the median time, the largest peak RSS."""
    call = f"run_route({name!r}, {str(folder)!r})"
    runs = [_in_own_process("history_routes", call, f"route {name}") for _ in range(rounds)]
    return {
        **runs[-1],
        "seconds": statistics.median(r["seconds"] for r in runs),
        "rss_mib": max(r["rss_mib"] for r in runs),
    }


def _history_report(found: dict[str, dict[str, Any]]) -> None:
    """Each route's time and peak RSS; each question's toolkit route against its peers."""
    bare = found["bare"]["rss_mib"]
    print(f"  imports alone     {bare:7.0f} MiB peak RSS (pandas, lyt_toolkit, DuckDB)")
    labels = {
        "list": "list()",
        "points": "query: points outstanding per day and program (cards)",
        "active": "query: ACTIVE members per day (members)",
        "join": "query: points per day by member status (cards x members)",
        "diff": "diff of the last two days (every kind)",
        "peer diff cards": "  peer: pandas merge of the two days' cards (balances only)",
        "load": "load of the last day",
    }
    for name, route in found.items():
        if name == "bare" or (name.startswith("peer ") and name != "peer diff cards"):
            continue
        print(
            f"  {labels[name]:58} {route['seconds']:6.2f} s {route['rss_mib']:6.0f} MiB"
            f"  ({route['rows']:,} rows)"
        )
        for peer in ("pandas", "duckdb"):
            other = found.get(f"peer {peer} {name}")
            if other is None:
                continue
            same = "same answer" if other["digest"] == route["digest"] else "ANSWERS DIFFER"
            print(
                f"    peer: {peer:52} {other['seconds']:6.2f} s {other['rss_mib']:6.0f} MiB"
                f"  ({same}; toolkit / peer {route['seconds'] / other['seconds']:.2f}x time, "
                f"{route['rss_mib'] / other['rss_mib']:.2f}x RSS)"
            )


def _seconds_ago(relative: str) -> float:
    """``now-40s`` (a program file's relative time) as seconds before its clock."""
    return float(relative.removeprefix("now-").removesuffix("s"))


def grown_program(members: int, seed: int) -> tuple[dict[str, Any], dict[str, Any], int]:
    """A program of ``members`` members and the same grown by 1 %: the newest 1 % of one
    generated that much larger (with their cards, customers and buckets) are the new ones."""
    new = max(1, members // 100)
    grown = generate_program(**{**PULL_SIZES, "members": members + new}, seed=seed)
    newest = sorted(grown["members"], key=lambda m: _seconds_ago(m["created_at"]))[:new]
    ids = {m["id"] for m in newest}
    customers = {m["customer_id"] for m in newest}
    old = dict(grown)
    old["members"] = [m for m in grown["members"] if m["id"] not in ids]
    old["cards"] = [c for c in grown["cards"] if c["member_id"] not in ids]
    old["pending_buckets"] = [b for b in grown["pending_buckets"] if b["member_id"] not in ids]
    old["customers"] = [c for c in grown["customers"] if c["id"] not in customers]
    return old, grown, new


def _refresh_route(name: str, client: Any, given: dict[str, Any]) -> dict[str, Any]:
    """``refresh_old``: pull the old program and write it to ``given["folder"]``;
    ``refresh_new``: its cost, then the refresh of it by what is new; ``refresh_full``: a
    full pull of the grown program."""
    from lyt_toolkit import ProgramSnapshot
    from lyt_toolkit.snapshot import read_snapshot

    folder = Path(given["folder"])
    if name == "refresh_old":
        ProgramSnapshot.pull(client, progress=False).to_parquet(folder)
        return {}
    if name == "refresh_full":
        snapshot = ProgramSnapshot.pull(client, progress=False)
        return {"members": len(snapshot.members)}
    old = read_snapshot(folder)
    cost = old.refresh_cost(client)
    probe = client.quota.calls_used
    started = time.perf_counter()
    refreshed = old.refresh(client, members="new", progress=False)
    new_members = len(refreshed.members) - len(old.members)
    return {
        "probe": probe,
        "refresh_calls": client.quota.calls_used - probe,
        "refresh_seconds": time.perf_counter() - started,
        "cost": str(cost),
        "expected": cost.choices["new"].calls,
        "at_most": cost.choices["new"].at_most,
        "new_members": new_members,
        "members": len(refreshed.members),
    }


def refresh(args: argparse.Namespace) -> None:
    """The old program pulled, then refreshed against the grown one, beside a full pull."""
    old, grown, new = grown_program(args.pull_members, args.seed)
    print(
        f"refresh: {args.pull_members:,} members, {new:,} new ({new / args.pull_members:.0%}),"
        " one card each"
    )
    found: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        given = json.dumps({"folder": str(Path(tmp) / "old")})
        for route, program, plan in (
            ("refresh_old", old, "unlimited"),
            ("refresh_new", grown, "professional"),
            ("refresh_full", grown, "unlimited"),
        ):
            path = Path(tmp) / f"{route}.json"
            path.write_text(json.dumps(program, separators=(",", ":")), encoding="utf-8")
            child, base_url = _serve(path, plan)
            try:
                found[route] = _route(route, base_url, given)
            finally:
                stop(child)
    done, full = found["refresh_new"], found["refresh_full"]
    ratio = done["refresh_calls"] / full["calls"]
    print(f"    {done['cost'].replace(chr(10), chr(10) + '    ')}")
    print(
        f"  refresh (new)     {done['refresh_calls']:7,} calls (shown before: about "
        f"{done['expected']:,}, at most {done['at_most']:,}; the probe that counted them "
        f"{done['probe']:,}), "
        f"{done['refresh_seconds']:.1f} s; {done['new_members']:,} new members found, "
        f"{done['members']:,} in all"
    )
    print(
        f"  full pull         {full['calls']:7,} calls, {full['seconds']:.1f} s "
        f"({full['members']:,} members)"
    )
    total = (done["refresh_calls"] + done["probe"]) / full["calls"]
    print(
        f"  refresh / full    {ratio:.2%} of the calls (goal <= 10 %: "
        f"{'met' if ratio <= 0.10 else 'NOT met'}); with the probe {total:.2%}; "
        f"{done['refresh_seconds'] / full['seconds']:.2f}x time"
    )


def _walk_process(name: str, base_url: str, concurrency: int) -> dict[str, Any]:
    """Run one walk of the member list in a fresh process; what it printed (JSON)."""
    call = f"run_walk({name!r}, {base_url!r}, {concurrency})"
    return _in_own_process("scale", call, f"walk {name}")


def run_walk(name: str, base_url: str, concurrency: int) -> None:
    """In a walk's own process: list the first program's members (``sequential``: the
    cursor walk; ``windows``: ``awalk_windows``) and print calls, seconds, RSS as JSON."""
    import asyncio
    import hashlib

    from lyt_toolkit import AsyncLoyaltyClient
    from lyt_toolkit.pull.windows import awalk_windows
    from lyt_toolkit.sandbox import SandboxCredentials

    async def walk() -> dict[str, Any]:
        keys = SandboxCredentials.from_env()
        async with AsyncLoyaltyClient(
            base_url=base_url, env_file=None, **keys.as_client_kwargs()
        ) as client:
            program_id = (await client.programs.list(limit=1)).data[0].id  # and the token
            before, started = client.quota.calls_used, time.perf_counter()
            if name == "sequential":
                members = [
                    m
                    async for page in client.members.pages(program_id, limit=100)
                    for m in page.data
                ]
            else:

                def pages(**query: Any) -> Any:
                    return client.members.pages(program_id, **query)

                members = await awalk_windows(pages, concurrency=concurrency)
            seconds = time.perf_counter() - started
            ids = hashlib.sha256("\n".join(m.id for m in members).encode()).hexdigest()
            return {
                "members": len(members),
                "calls": client.quota.calls_used - before,
                "seconds": seconds,
                "ids": ids,
            }

    out = asyncio.run(walk())
    out["rss_mib"] = _peak_rss_mib()
    print(json.dumps(out))


def _peak_rss_mib() -> float:
    """This process's peak RSS: ``VmHWM`` where Linux gives it (``ru_maxrss`` keeps the peak
    of the parent a process was forked from, here the one that generated the program)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {
    "load": load,
    "pull": pull,
    "designs": designs,
    "paced": paced,
    "resume": resume,
    "history": history,
    "refresh": refresh,
    "parallel": parallel,
}
"""Every section by name; other sections go here too."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "sections",
        nargs="+",
        choices=list(SECTIONS),
        metavar="SECTION",
        help=f"sections to run, in the order named: {', '.join(SECTIONS)}",
    )
    parser.add_argument("--members", type=int, default=200_000, help="members (load)")
    parser.add_argument(
        "--pull-members",
        type=int,
        default=20_000,
        help="members of the program pulled (pull, refresh)",
    )
    parser.add_argument("--programs", type=int, default=1, help="programs (load)")
    parser.add_argument(
        "--history-members", type=int, default=200_000, help="members of the program (history)"
    )
    parser.add_argument(
        "--history-days", type=int, default=30, help="daily snapshots stored (history)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="loads timed, each way (load); runs of each route (history); runs of full and"
        " peer, alternating (pull)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--paced-plan", default="20000/minute", help="the budget of the paced pull (paced)"
    )
    parser.add_argument(
        "--paced-share", type=float, default=0.5, help="the paced pull's share (paced)"
    )
    parser.add_argument(
        "--latency", type=float, default=0.05, help="seconds added to each call (parallel)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=8, help="requests in flight at most (parallel)"
    )
    args = parser.parse_args(argv)
    for name in dict.fromkeys(args.sections):  # in the order named, each once
        SECTIONS[name](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
