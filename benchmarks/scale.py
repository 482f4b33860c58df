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
    ``pull(client, kinds=CARDS_ONLY, sample=CARDS_SAMPLE)`` (1,298 members, no other list
    and no bucket list, 1,500 calls; goal: the 95 % interval within +-10 % and holding the
    truth, for at most 1,500 calls);
  - ``full``: ``pull(client)`` on an unlimited plan: calls against the interface minimum
    (list pages + one read per member + one bucket list per card holding pending points +
    card definitions read by ID + one token; goal at most 1.01x), time and peak RSS;
  - ``peer``: the route a competent analyst writes by hand with the client: list the
    programs and members, read the members eight at a time in threads, list the buckets of
    the cards holding pending points: its calls and time, against ``full``.

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
from lyt_toolkit.snapshot.cost import pages  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = "2026-01-15T12:00:00Z"
CARDS_ONLY = ["programs", "members", "cards"]
"""The kinds a pull needs for points outstanding alone: no other list, no bucket list."""
CARDS_SAMPLE = 1298
"""The members 1,500 calls read with ``CARDS_ONLY``: the token, the programs list and the
200 pages of members take 202."""
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


def _route(name: str, base_url: str, truth: str) -> dict[str, Any]:
    """Run one route in a fresh process of its own; what it printed (JSON) and its RSS."""
    code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import scale; "
    code += f"scale.run_route({name!r}, {base_url!r}, {truth!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"route {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


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
    started = time.perf_counter()
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
    out["seconds"] = time.perf_counter() - started
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


def pull(args: argparse.Namespace) -> None:
    """Each pull route on the ``--pull-members`` program, a fresh sandbox each."""
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
        "full": "unlimited",
        "peer": "unlimited",
    }
    found: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "program.json"
        path.write_text(json.dumps(program, separators=(",", ":")), encoding="utf-8")
        del program
        for route, plan in routes.items():
            child, base_url = _serve(path, plan)
            try:
                found[route] = _route(route, base_url, truth)
            finally:
                stop(child)
    _report(found)


def _report(found: dict[str, dict[str, Any]]) -> None:
    est, default, sampled, full, peer = (
        found[r] for r in ("estimate", "default", "sampled", "full", "peer")
    )
    truth = sampled["truth"]["outstanding"]
    print(
        f"  estimate          {est['spent']:7,} calls, {est['list_pages']:,} of them "
        "list pages and the token"
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
        f" {'met' if ratio <= 1.01 else 'NOT met'}); {full['seconds']:.1f} s, "
        f"{full['rss_mib']:.0f} MiB peak RSS"
    )
    print(
        f"  peer (by hand)    {peer['calls']:7,} calls, {peer['seconds']:.1f} s, "
        f"{peer['rss_mib']:.0f} MiB peak RSS (frames not built)"
    )
    print(
        f"  full / peer       {full['calls'] / peer['calls']:.3f}x calls, "
        f"{full['seconds'] / peer['seconds']:.2f}x time; sampled / full "
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
    # The token, the programs list, then every page of 100 of the others and of the members.
    listed = ("rewards", "benefits", "card_definitions", "tier_structures", "members")
    every_list = 2 + sum(pages(len(program[k]), 100) for k in listed)
    members_lists = 2 + pages(len(members), 100)
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


def _admin(base_url: str, method: str, path: str, body: dict[str, Any]) -> None:
    """One call of a served sandbox's admin API (``/_sandbox``), with the key pair."""
    import httpx

    from lyt_toolkit.sandbox import SandboxCredentials

    keys = SandboxCredentials.from_env()
    headers = {"X-App-Id": keys.app_id, "X-App-Token": keys.app_token}
    httpx.request(
        method, f"{base_url}/_sandbox{path}", json=body, headers=headers
    ).raise_for_status()


def _walk_process(name: str, base_url: str, concurrency: int) -> dict[str, Any]:
    """Run one walk of the member list in a fresh process; what it printed (JSON)."""
    code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import scale; "
    code += f"scale.run_walk({name!r}, {base_url!r}, {concurrency})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"walk {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


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
        "--pull-members", type=int, default=20_000, help="members of the program pulled (pull)"
    )
    parser.add_argument("--programs", type=int, default=1, help="programs (load)")
    parser.add_argument("--rounds", type=int, default=3, help="loads timed, each way (load)")
    parser.add_argument("--seed", type=int, default=0)
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
