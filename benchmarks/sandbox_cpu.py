"""The sandbox's CPU per request: what a list page, a detail read, a member read and a
write cost the server.

Writes a generated program file (``write_program``), serves it with
``lyt sandbox serve --data FILE --now ... --seed 1`` in a child process and, from one
keep-alive ``httpx.Client``, sends ``--requests`` requests of each kind, ``--rounds``
times: list pages (``GET /v2/loyalties/rewards?limit=N``), detail reads (``GET
/v2/loyalties/rewards/{id}``, cycling over the first page's IDs), member reads (``GET
/v2/loyalties/programs/{id}/members/{id}``, a member with its cards, cycling over the
first program's first 100 members), benefit reads (``GET /v2/loyalties/benefits/{id}``,
cycling over the first 100 benefits), writes (``POST /v2/loyalties/benefits``, each a
new benefit of its own name), project lists (``GET /management/v1/projects``) and webhook
lists (``GET /management/v1/projects/{id}/webhooks``; the program file is given the demo
program's projects and webhooks).
For each kind it prints the median over the rounds of the requests per second and of
the server's CPU per request (user + system time of the child, read from
``/proc/PID/stat`` before and after), and the client's CPU per request.

Then ``--starts`` sandboxes started in a process of their own (``Sandbox.start`` of the demo
program, as the tests and a notebook start theirs), one after another, each answering one
list request (without credentials: a 401): the CPU per start, the client's share
included, median over the rounds; a first sandbox, not timed, serves the OpenAPI document.

``--baseline DIR`` serves a second sandbox from the package tree in ``DIR`` (e.g. one
exported with ``git archive main lyt_toolkit | tar -x -C DIR``) beside this tree's, the
two measured in alternating order in each round and printed side by side; every answer
the two gave (status, headers, body) is compared too: the run fails if any differs.

``--profile FILE`` records this tree's sandbox with py-spy (``--py-spy PATH``, default
``py-spy`` on ``PATH``) while it answers, and writes its raw (collapsed) stacks to
``FILE``, then prints the functions holding the most samples.

Run: ``.venv/bin/python benchmarks/sandbox_cpu.py [--baseline DIR] [--profile FILE]``
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lyt_toolkit.sandbox import Sandbox, SandboxCredentials  # noqa: E402
from lyt_toolkit.sandbox.config import DEMO_PROGRAM  # noqa: E402
from lyt_toolkit.synthetic import write_program  # noqa: E402

REWARDS = "/v2/loyalties/rewards"
BENEFITS = "/v2/loyalties/benefits"
PROGRAMS = "/v2/loyalties/programs"
PROJECTS = "/management/v1/projects"
WEBHOOKS = f"{PROJECTS}/proj_NwMain01/webhooks"
"""The demo program's project holding two webhooks."""
NOW = "2026-01-15T12:00:00Z"
TICKS = os.sysconf("SC_CLK_TCK")

Answer = tuple[int, tuple[tuple[str, str], ...], bytes]
Call = tuple[str, str, dict[str, Any] | None]
"""A request: its method, path and JSON body (``None``: none)."""
REQUEST_ID = re.compile(rb'"request_id":"req_[0-9a-f]+"')
"""An error's request ID: random, so left out when answers are compared."""
INSTANCE = re.compile(r"instance [0-9a-f]+")
"""The ``Lyt-Sandbox-Holds`` header's instance: new with each sandbox, so left out too."""


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14, 15)


@dataclass
class Served:
    """One sandbox child, serving the package tree ``source``."""

    label: str
    source: Path
    child: subprocess.Popen[str]
    base_url: str
    client: httpx.Client
    management: httpx.Client
    """A client with the management key pair, for ``/management`` calls."""
    answers: list[Answer] = field(default_factory=list)
    figures: dict[str, list[tuple[float, float, float]]] = field(
        default_factory=lambda: collections.defaultdict(list)
    )


def serve(label: str, source: Path, program: Path, plan: str, wrap: list[str]) -> Served:
    """``lyt sandbox serve`` of ``program`` on ``plan`` from ``source`` (``wrap``: a command
    to run it under, such as py-spy's), with a keep-alive client holding a bearer token."""
    # -P: not the working directory first on the path (run from a checkout, a baseline's
    # child would import the checkout's package, not ``source``'s)
    command = [*wrap, sys.executable, "-P", "-m", "lyt_toolkit.cli", "sandbox", "serve"]
    command += ["--port", "0", "--data", str(program), "--now", NOW, "--seed", "1"]
    command += ["--plan", plan]
    env = {**os.environ, "PYTHONPATH": str(source)}
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    line = child.stdout.readline()
    while line and "ready at " not in line:  # a wrapper's lines first
        line = child.stdout.readline()
    if "ready at " not in line:
        child.kill()
        raise SystemExit(f"the sandbox did not start: {line!r}")
    base_url = line.split("ready at ")[1].split()[0]
    credentials = SandboxCredentials.from_env()
    headers = Sandbox(base_url, credentials).v2_headers()
    client = httpx.Client(base_url=base_url, headers=headers, timeout=60)
    keys = {
        "X-Management-Id": credentials.management_id,
        "X-Management-Token": credentials.management_token,
    }
    management = httpx.Client(base_url=base_url, headers=keys, timeout=60)
    return Served(label, source, child, base_url, client, management)


def server_pid(served: Served) -> int:
    """The Python process answering: the child, or the child of a py-spy wrapper."""
    children = Path(f"/proc/{served.child.pid}/task/{served.child.pid}/children")
    found = children.read_text().split() if children.exists() else []
    return int(found[0]) if found else served.child.pid


def sent(served: Served, call: Call) -> httpx.Response:
    """The answer to ``call`` from ``served`` (with the management key pair for a
    ``/management`` path)."""
    method, path, body = call
    client = served.management if path.startswith("/management/") else served.client
    return client.request(method, path, json=body)


def timed(served: Served, kind: str, calls: list[Call], keep: bool) -> tuple[float, float, float]:
    """Requests/s, server and client CPU ms per request of sending ``calls`` in turn."""
    pid = server_pid(served)
    cpu_before, client_before = cpu_seconds(pid), time.process_time()
    started = time.perf_counter()
    for call in calls:
        response = sent(served, call)
        if response.status_code != 200:
            raise SystemExit(f"{served.label}: {response.status_code} {response.text[:200]}")
        if keep:
            served.answers.append(answer(response))
    wall = time.perf_counter() - started
    server_cpu = cpu_seconds(pid) - cpu_before
    client_cpu = time.process_time() - client_before
    n = len(calls)
    figures = (n / wall, server_cpu / n * 1000, client_cpu / n * 1000)
    served.figures[kind].append(figures)
    return figures


def program_data(client: httpx.Client) -> tuple[list[str], list[str], str, list[str]]:
    """The first 100 rewards' IDs, the first program's first 100 members' paths, an
    ACTIVE card definition's ID and the first 100 benefits' IDs (asked of each sandbox:
    each answer counts in its budget)."""
    ids = [item["id"] for item in client.get(REWARDS, params={"limit": 100}).json()["data"]]
    benefits = client.get(BENEFITS, params={"limit": 100}).json()["data"]
    program = client.get(PROGRAMS, params={"limit": 1}).json()["data"][0]["id"]
    members = client.get(f"{PROGRAMS}/{program}/members", params={"limit": 100}).json()
    definitions = client.get("/v2/loyalties/card-definitions", params={"limit": 100}).json()
    active = next(d["id"] for d in definitions["data"] if d["status"] == "ACTIVE")
    paths = [f"{PROGRAMS}/{program}/members/{m['id']}" for m in members["data"]]
    return ids, paths, active, [b["id"] for b in benefits]


def get(path: str) -> Call:
    return "GET", path, None


def benefit_body(name: str, card_definition_id: str) -> dict[str, Any]:
    """A new DRAFT points benefit's body."""
    return {
        "name": name,
        "type": "POINTS",
        "points": {"value": 5, "card_definition_id": card_definition_id},
    }


def new_benefits(card_definition_id: str, first: int, count: int) -> list[Call]:
    """``count`` benefit creations, named from number ``first`` on."""
    return [
        ("POST", BENEFITS, benefit_body(f"Benchmark benefit {n}", card_definition_id))
        for n in range(first, first + count)
    ]


def checked_calls(ids: list[str], member: str, card_definition_id: str) -> list[Call]:
    """Requests whose answers are compared but not timed: errors and edge cases (``member``:
    a member's path)."""
    program = member.rsplit("/members/", 1)[0]
    taken = benefit_body("Benchmark benefit 0", card_definition_id)
    unnamed = benefit_body("", card_definition_id)
    nowhere = benefit_body("Benchmark nowhere", "lcdef_0000000000")
    return [
        get(f"{REWARDS}?limit=1&order=-created_at"),
        get(f"{REWARDS}?limit=0"),
        get(f"{REWARDS}?limit=abc"),
        get(f"{REWARDS}?cursor=nope"),
        get(f"{REWARDS}/rew_0000000000000000000000"),
        get(f"{REWARDS}/not-an-id"),
        get(f"{REWARDS}/{ids[0]}/"),
        get(f"{BENEFITS}?limit=3"),
        get(f"{BENEFITS}/lben_0000000000"),
        get(program),
        get(f"{PROGRAMS}/lprg_0000000000"),
        get("/v2/loyalties/nowhere"),
        get(f"{program}/members/lmbr_0000000000"),
        get(f"{program}/members/not-a-member"),
        get(f"{PROGRAMS}/lprg_0000000000/members/{member.rsplit('/', 1)[1]}"),
        ("POST", BENEFITS, taken),
        ("POST", BENEFITS, unnamed),
        ("POST", BENEFITS, nowhere),
        ("POST", BENEFITS, {"name": "Benchmark untyped"}),
        ("POST", f"{REWARDS}/{ids[0]}/draft", None),
        ("POST", f"{REWARDS}/{ids[0]}/draft", None),
        get(f"{PROJECTS}/proj_NwStage01/webhooks"),
        get(f"{PROJECTS}/proj_NwStarter01/webhooks"),  # its plan has no webhooks: 402
        get(f"{PROJECTS}/proj_Nowhere/webhooks"),
        ("DELETE", f"{PROJECTS}/proj_NwStage01/webhooks/wh_NwStageAll01", None),
        ("DELETE", f"{PROJECTS}/proj_NwStage01/webhooks/wh_NwStageAll01", None),
        get(f"{PROJECTS}/proj_NwStage01/webhooks"),
    ]


def record_checks(served: Served, calls: list[Call]) -> None:
    """Answers of ``calls`` (errors included) and of calls without credentials."""
    for call in calls:
        served.answers.append(answer(sent(served, call)))
    served.answers.append(answer(httpx.get(f"{served.base_url}{REWARDS}")))
    served.answers.append(answer(httpx.get(f"{served.base_url}{PROJECTS}")))


def with_demo_projects(program: Path) -> Path:
    """``program`` given the demo program's projects and webhooks (a generated one holds
    one project and no webhook)."""
    data = json.loads(program.read_text())
    demo = json.loads(DEMO_PROGRAM.read_text())
    data["projects"] = [*data["projects"], *demo["projects"]]
    data["webhooks"] = demo["webhooks"]
    program.write_text(json.dumps(data))
    return program


def answer(response: httpx.Response) -> Answer:
    """What a response answered: status, headers and body (its request ID and the sandbox's
    instance left out)."""
    body = REQUEST_ID.sub(b'"request_id":"-"', response.content)
    headers = tuple((k, INSTANCE.sub("instance -", v)) for k, v in response.headers.multi_items())
    return response.status_code, headers, body


def stop(served: Served) -> None:
    """Stop the sandbox (the Python process: a wrapper writes its output as it ends)."""
    served.client.close()
    served.management.close()
    os.kill(server_pid(served), signal.SIGTERM)
    served.child.wait(timeout=60)


STARTS = """
import hashlib, sys, time
import httpx
from lyt_toolkit.sandbox import Sandbox

def start(*paths: str) -> list[bytes]:
    with Sandbox.start(now=sys.argv[2], seed=7) as sb, httpx.Client(base_url=sb.base_url) as c:
        return [c.get(path).content for path in paths]

document = start("/openapi.json")[0]
began = time.process_time()
for _ in range(int(sys.argv[1])):
    start(sys.argv[3])
print((time.process_time() - began) / int(sys.argv[1]), hashlib.sha256(document).hexdigest())
"""
"""A child's script: a sandbox serving its OpenAPI document, then ``argv[1]`` sandboxes
started one after another, each answering ``argv[3]``; prints the CPU seconds per start and
the document's digest."""


def starts(source: Path, count: int) -> tuple[float, str]:
    """CPU seconds per ``Sandbox.start`` (with its first answer) in a process importing
    ``source``, and the digest of the OpenAPI document it served."""
    command = [sys.executable, "-P", "-c", STARTS, str(count), NOW, REWARDS]
    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the sandboxes of {source} did not start: {done.stderr[-2000:]}")
    cpu, document = done.stdout.split()
    return float(cpu), document


def top_functions(raw: Path, count: int = 25) -> list[tuple[str, float, float]]:
    """From py-spy's raw output: the functions most often on the stack (inclusive share)
    and at its top (self share), by inclusive share."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, samples = line.rpartition(" ")
        if not stack:
            continue
        n = int(samples)
        frames = stack.split(";")
        total += n
        for frame in set(frames):
            inclusive[frame] += n
        own[frames[-1]] += n
    return [(f, n / total, own[f] / total) for f, n in inclusive.most_common(count)]


def median_row(figures: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    return (
        statistics.median(f[0] for f in figures),
        statistics.median(f[1] for f in figures),
        statistics.median(f[2] for f in figures),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=5000)
    parser.add_argument("--limit", type=int, default=10, help="page size of the list calls")
    parser.add_argument("--requests", type=int, default=500, help="timed requests per kind")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--plan", default="1000000/hour", help="call budget (its headers are on every answer)"
    )
    parser.add_argument("--starts", type=int, default=20, help="sandboxes started per round")
    parser.add_argument("--baseline", type=Path, help="package tree to compare with")
    parser.add_argument("--profile", type=Path, help="py-spy raw output of this tree's server")
    parser.add_argument("--py-spy", default="py-spy", help="the py-spy command")
    args = parser.parse_args(argv)

    wrap: list[str] = []
    if args.profile:
        wrap = [args.py_spy, "record", "--format", "raw", "-r", "100", "--nonblocking"]
        wrap += ["-o", str(args.profile.resolve()), "--"]
    with tempfile.TemporaryDirectory() as tmp:
        program = write_program(Path(tmp) / "program.json", rewards=args.rewards, benefits=100)
        program = with_demo_projects(program)
        servers = [serve("this tree", ROOT, program, args.plan, wrap)]
        if args.baseline:
            servers.insert(0, serve("baseline", args.baseline.resolve(), program, args.plan, []))
        try:
            data = [program_data(s.client) for s in servers]
            ids, member_paths, card_definition, benefit_ids = data[0]
            n = args.requests
            kinds: dict[str, Callable[[int], list[Call]]] = {
                "list": lambda _: [get(f"{REWARDS}?limit={args.limit}")] * n,
                "detail": lambda _: [get(f"{REWARDS}/{ids[i % len(ids)]}") for i in range(n)],
                "member": lambda _: [get(member_paths[i % len(member_paths)]) for i in range(n)],
                "benefit": lambda _: [
                    get(f"{BENEFITS}/{benefit_ids[i % len(benefit_ids)]}") for i in range(n)
                ],
                "write": lambda round_: new_benefits(card_definition, 100 + round_ * n, n),
                "projects": lambda _: [get(PROJECTS)] * n,
                "webhooks": lambda _: [get(WEBHOOKS)] * n,
            }
            for served in servers:
                for kind, calls in kinds.items():
                    warm_up = new_benefits(card_definition, 0, 50) if kind == "write" else calls(0)
                    timed(served, "warm-up", warm_up[:50], keep=True)
                record_checks(served, checked_calls(ids, member_paths[0], card_definition))
            for round_ in range(args.rounds):
                order = servers if round_ % 2 == 0 else servers[::-1]
                for kind, calls in kinds.items():
                    for served in order:
                        timed(served, kind, calls(round_), keep=round_ == 0)
        finally:
            for served in servers:
                stop(served)
    started: dict[str, list[tuple[float, str]]] = {s.label: [] for s in servers}
    for round_ in range(args.rounds if args.starts else 0):
        for served in servers if round_ % 2 == 0 else servers[::-1]:
            started[served.label].append(starts(served.source, args.starts))

    print(
        f"{args.rewards:,} rewards; {args.requests} requests per kind and round, "
        f"{args.rounds} rounds, medians; list = limit {args.limit}"
    )
    print(f"{'':10} {'sandbox':10} {'requests/s':>10} {'server CPU ms':>14} {'client CPU ms':>14}")
    for kind in kinds:
        for served in servers:
            rate, server_ms, client_ms = median_row(served.figures[kind])
            rounds = [f[1] for f in served.figures[kind]]
            print(
                f"{kind:10} {served.label:10} {rate:10.0f} {server_ms:14.3f} {client_ms:14.3f}"
                f"   (server ms: least {min(rounds):.3f}; by round"
                f" {', '.join(f'{r:.2f}' for r in rounds)})"
            )
    for served in servers if args.starts else []:
        per_start = [cpu * 1000 for cpu, _ in started[served.label]]
        print(
            f"{'start':10} {served.label:10} {statistics.median(per_start):25.1f}"
            f"   (CPU ms per sandbox started, by round {', '.join(f'{c:.1f}' for c in per_start)})"
        )
    if args.baseline:
        base, this = servers
        if args.starts:
            cut = 1 - statistics.median(c for c, _ in started[this.label]) / statistics.median(
                c for c, _ in started[base.label]
            )
            print(f"start: CPU per sandbox started {-cut:+.0%} against the baseline (median)")
            documents = {d for s in servers for _, d in started[s.label]}
            if len(documents) != 1:
                print(f"OPENAPI DOCUMENTS DIFFER: {sorted(documents)}")
                return 1
        for kind in kinds:
            cut = 1 - median_row(this.figures[kind])[1] / median_row(base.figures[kind])[1]
            print(f"{kind}: server CPU per request {-cut:+.0%} against the baseline (median)")
        pairs = zip(base.answers, this.answers, strict=False)
        differing = [i for i, (a, b) in enumerate(pairs) if a != b]
        if len(base.answers) != len(this.answers) or differing:
            first = differing[0] if differing else min(len(base.answers), len(this.answers))
            print(f"ANSWERS DIFFER ({len(differing)} of {len(base.answers)}), first #{first}:")
            for served in servers:
                print(f"  {served.label}: {served.answers[first : first + 1]!r:.600}")
            return 1
        print(f"answers identical: {len(this.answers)} (status, headers, body)")
    if args.profile:
        print(f"\npy-spy samples of this tree's server ({args.profile}): inclusive, self")
        for frame, share, own in top_functions(args.profile):
            print(f"{share:6.1%} {own:6.1%}  {frame[:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
