"""The sandbox's CPU per request, as a test or a rehearsal spends it, beside a floor.

Each side runs in a child process of its own (``--child``), serving on loopback from a
thread of that process while a ``LoyaltyClient`` in its main thread sends, for each kind of
request, ``--requests`` of them in turn, ``--rounds`` times (the sides alternate in order):

- ``token``: a token request (``fetch_token(fresh=True)``, ``POST /oauth/token``);
- ``rewards``, ``members``, ``benefits``: a list page of 10 (``limit=10``);
- ``reward``, ``member``: a GET of one record (a reward; a member with its cards);
- ``write``: a small write (a new DRAFT points benefit, ``POST /v2/loyalties/benefits``).

The sides:

- ``sandbox``: ``Sandbox.start`` of the demo program (``now``, ``seed=7``, as the tests
  start theirs; plan ``1000000/hour``, so every answer carries the budget's headers);
- ``baseline`` (with ``--baseline DIR``): the same, served from the package tree ``DIR``
  (``git archive main lyt_toolkit | tar -x -C DIR``);
- ``floor``: a bare FastAPI app answering the same JSON (the sandbox's answers, recorded
  first) on uvicorn's own h11 protocol: what any FastAPI service on this stack costs, the
  floor a cut can approach but not pass.

A child's server CPU is the process's CPU (``time.process_time``, every thread) less its
client's threads' (the main thread and the ``lyt-send`` ones sending for it); both are
printed per request, median over the rounds of every child (``--children`` per side), with
the children's peak memory (``ru_maxrss``). The client's column of ``baseline`` is the
baseline tree's client (the sides differ in their client as much as in their server); the
``httpx`` column is the client's floor: bare ``httpx`` sending each kind's request as the
client does (its URL, headers and body, recorded once; a new request each time), reading
its JSON with
``pydantic_core.from_json``, no model, against the sandbox of the same child.

To profile the sandbox, run a child under py-spy: ``py-spy record --gil --threads -r 200
-f raw -o out.txt -- python benchmarks/sandbox_requests.py --child sandbox`` (a floor child
also needs ``--answers FILE``, the answers a parent run writes with ``--keep-answers
FILE``).

``--calls`` also counts the Python and C calls the sandbox's threads, and the client's,
make per request (``counted_calls``), figures other load on the machine does not move.

Run: ``.venv/bin/python benchmarks/sandbox_requests.py [--baseline DIR] [--calls]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lyt_toolkit.sandbox.config import ClientKeys

ROOT = Path(__file__).resolve().parents[1]

NOW = "2026-01-15T12:00:00Z"
PLAN = "1000000/hour"
PROGRAM = "lprg_c0ffee0001"
CARD_DEFINITION = "lcdef_c0ffee0001"
"""An ACTIVE card definition of the demo program (a new benefit's)."""
KINDS = ("token", "rewards", "members", "benefits", "reward", "member", "write")
ROUTES = {
    "token": ("POST", "/oauth/token"),
    "rewards": ("GET", "/v2/loyalties/rewards"),
    "members": ("GET", "/v2/loyalties/programs/{program_id}/members"),
    "benefits": ("GET", "/v2/loyalties/benefits"),
    "reward": ("GET", "/v2/loyalties/rewards/{reward_id}"),
    "member": ("GET", "/v2/loyalties/programs/{program_id}/members/{member_id}"),
    "write": ("POST", "/v2/loyalties/benefits"),
}
"""The route each kind calls, as the floor declares it."""


def _sends(client: Any) -> dict[str, Callable[[int], object]]:
    """Each kind's request: ``sends[kind](i)`` sends the ``i``-th of that kind."""
    rewards = [r.id for r in client.rewards.list(limit=100).data]
    members = [m.id for m in client.members.list(PROGRAM, limit=100).data]
    names = itertools.count()

    def write(_: int) -> object:
        body = {
            "name": f"Benchmark benefit {next(names)}",
            "type": "POINTS",
            "points": {"value": 5, "card_definition_id": CARD_DEFINITION},
        }
        return client.benefits.create(body)

    return {
        "token": lambda _: client.fetch_token(fresh=True),
        "rewards": lambda _: client.rewards.list(limit=10),
        "members": lambda _: client.members.list(PROGRAM, limit=10),
        "benefits": lambda _: client.benefits.list(limit=10),
        "reward": lambda i: client.rewards.get(rewards[i % len(rewards)]),
        "member": lambda i: client.members.get(PROGRAM, members[i % len(members)]),
        "write": write,
    }


@contextmanager
def _sandbox() -> Iterator[tuple[str, ClientKeys]]:
    from lyt_toolkit.sandbox import Sandbox

    with Sandbox.start(now=NOW, seed=7, plan=PLAN) as sb:
        yield sb.base_url, sb.credentials.as_client_kwargs()


def _floor_app(answers: dict[str, str]) -> Any:
    """A bare FastAPI app answering each kind's route with the sandbox's recorded JSON."""
    from fastapi import FastAPI, Response

    app = FastAPI()
    for kind, (method, path) in ROUTES.items():
        body = answers[kind].encode()

        async def answer(body: bytes = body) -> Response:
            return Response(body, media_type="application/json")

        app.add_api_route(path, answer, methods=[method], name=kind)
    return app


@contextmanager
def _floor(answers: dict[str, str]) -> Iterator[tuple[str, ClientKeys]]:
    """The floor app on uvicorn's h11 protocol, served from a thread of this process."""
    import uvicorn

    from lyt_toolkit.sandbox.server import free_port

    port = free_port()
    config = uvicorn.Config(
        _floor_app(answers), port=port, http="h11", log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    keys: ClientKeys = {
        "app_id": "a",
        "app_token": "t",
        "management_id": "m",
        "management_token": "n",
    }
    try:
        yield f"http://127.0.0.1:{port}", keys
    finally:
        server.should_exit = True
        thread.join()


def child(side: str, requests: int, rounds: int, answers_file: Path | None) -> dict[str, Any]:
    """Serve ``side``, send the requests, return the figures (ms per request by kind and
    round) and, for the sandbox, one answer of each kind."""
    import httpx

    from lyt_toolkit.client import LoyaltyClient

    kept: dict[str, str] = {}
    answers = json.loads(answers_file.read_text()) if side == "floor" and answers_file else {}
    serving = _floor(answers) if side == "floor" else _sandbox()
    with serving as (base_url, keys):
        http = httpx.Client(base_url=base_url, timeout=60)
        with LoyaltyClient(base_url=base_url, env_file=None, http_client=http, **keys) as client:
            sends = _sends(client)
            figures: dict[str, list[tuple[float, float, float]]] = {k: [] for k in KINDS}
            for kind in KINDS:  # warm-up: imports, first-use work, caches
                for i in range(50):
                    sends[kind](i)
            bare = _bare_sends(http, sends) if side == "sandbox" else {}
            floor: dict[str, list[float]] = {k: [] for k in bare}
            for round_ in range(rounds):
                for kind in KINDS:
                    figures[kind].append(_timed(sends[kind], round_ * requests, requests))
                for kind, send in bare.items():  # the client's floor, in the same rounds
                    floor[kind].append(_timed(send, round_ * requests, requests)[1])
            if side != "floor":
                kept = _recorded(http, sends)
        http.close()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"figures": figures, "httpx": floor, "peak_mib": peak_kib / 1024, "answers": kept}


def _timed(send: Callable[[int], object], first: int, requests: int) -> tuple[float, float, float]:
    """Server and client CPU ms per request, and the wall seconds, of ``requests`` sends."""
    cpu, mine, wall = time.process_time(), _client_cpu(), time.perf_counter()
    for i in range(requests):
        send(first + i)
    cpu = time.process_time() - cpu
    spent = _client_cpu()
    client_cpu = sum(t - mine.get(ident, 0.0) for ident, t in spent.items())
    wall = time.perf_counter() - wall
    return (cpu - client_cpu) / requests * 1000, client_cpu / requests * 1000, wall


def _bare_sends(
    http: Any, sends: dict[str, Callable[[int], object]]
) -> dict[str, Callable[[int], object]]:
    """Each kind's request as the client sent it (method, URL, headers, body, recorded
    once), sent again by bare ``httpx`` and its JSON read with ``from_json``: the least a
    client on this stack spends per request, no model, no budget, no retries."""
    import httpx
    from pydantic_core import from_json

    recorded: dict[str, httpx.Request] = {}
    current = [""]

    def keep(request: httpx.Request) -> None:
        recorded[current[0]] = request

    http.event_hooks["request"].append(keep)
    for kind in KINDS:
        current[0] = kind
        sends[kind](0)
    http.event_hooks["request"].remove(keep)

    names = itertools.count()

    def bare(request: httpx.Request) -> Callable[[int], object]:
        method, url = request.method, request.url
        headers = [(k, v) for k, v in request.headers.raw if k.lower() != b"content-length"]
        body = request.read()
        new = (
            json.loads(body) if request.headers.get("content-type") == "application/json" else None
        )

        def send(_: int) -> object:
            content = body  # a write's body names a new benefit each time, as the client's
            if new is not None:
                content = json.dumps({**new, "name": f"Bare benefit {next(names)}"}).encode()
            response = http.send(httpx.Request(method, url, headers=headers, content=content))
            if not response.is_success:
                raise SystemExit(f"bare httpx: {method} {url.path}: {response.status_code}")
            return from_json(response.content)

        return send

    return {kind: bare(recorded[kind]) for kind in KINDS}


def counted_calls(requests: int) -> dict[str, dict[str, float]]:
    """The Python and C calls the sandbox's threads (``server``) and the client's
    (``client``: the main thread and the ``lyt-send`` ones) make per request of each kind,
    and bare httpx's (``httpx``, ``_bare_sends``), counted with ``sys.setprofile`` and
    ``threading.setprofile``: figures no other load on the machine moves, where CPU time
    does (the calls within a C function, pydantic's validation, are not seen)."""
    import httpx

    from lyt_toolkit.client import LoyaltyClient

    calls = {"server": 0, "client": 0}
    main = threading.main_thread()

    def count(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            thread = threading.current_thread()
            mine = thread is main or thread.name.startswith("lyt-send")
            calls["client" if mine else "server"] += 1

    threading.setprofile(count)  # the threads started from now on: the sandbox's, lyt-send
    per_request: dict[str, dict[str, float]] = {"server": {}, "client": {}}
    with _sandbox() as (base_url, keys):
        http = httpx.Client(base_url=base_url, timeout=60)
        with LoyaltyClient(base_url=base_url, env_file=None, http_client=http, **keys) as client:
            sends = _sends(client)
            for kind in KINDS:
                for i in range(30):  # warm-up
                    sends[kind](i)
            bare = _bare_sends(http, sends)
            sys.setprofile(count)  # and this thread, the client's
            for kind in KINDS:
                for who, send in (("client", sends[kind]), ("httpx", bare[kind])):
                    calls.update(server=0, client=0)
                    for i in range(requests):
                        send(1000 + i)
                    per_request.setdefault(who, {})[kind] = calls["client"] / requests
                    if who == "client":
                        per_request["server"][kind] = calls["server"] / requests
            sys.setprofile(None)
        http.close()
    return per_request


def _client_cpu() -> dict[int, float]:
    """CPU seconds of each of the client's threads so far, by thread: the main thread, which
    calls, and ``lyt-send`` ones, which send for it (``client._senders``)."""
    return {
        thread.ident: time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
        for thread in threading.enumerate()
        if thread.ident is not None
        and (thread is threading.main_thread() or thread.name.startswith("lyt-send"))
    }


def _recorded(http: Any, sends: dict[str, Callable[[int], object]]) -> dict[str, str]:
    """One answer body of each kind, sent once more with a hook keeping it."""
    kept: dict[str, str] = {}
    current = [""]

    def keep(response: Any) -> None:
        response.read()
        kept[current[0]] = response.text

    http.event_hooks["response"].append(keep)
    for kind in KINDS:
        current[0] = kind
        sends[kind](10**9)
    http.event_hooks["response"].remove(keep)
    return kept


def _run_child(side: str, source: Path, requests: int, rounds: int, answers: Path) -> Any:
    command = [sys.executable, "-P", str(Path(__file__).resolve()), "--child", side]
    command += ["--requests", str(requests), "--rounds", str(rounds), "--answers", str(answers)]
    env = {**os.environ, "PYTHONPATH": str(source), "PYTHONDONTWRITEBYTECODE": ""}
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{side} failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="per kind and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per child")
    parser.add_argument("--children", type=int, default=2, help="children per side")
    parser.add_argument("--baseline", type=Path, help="package tree to compare with")
    parser.add_argument("--keep-answers", type=Path, help="write the recorded answers here")
    parser.add_argument(
        "--calls", action="store_true", help="also count the sandbox's calls per request"
    )
    parser.add_argument("--child", choices=["sandbox", "floor", "calls"], help=argparse.SUPPRESS)
    parser.add_argument("--answers", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.path.insert(0, os.environ.get("PYTHONPATH") or str(ROOT))
        if args.child == "calls":
            print(json.dumps(counted_calls(args.requests)))
        else:
            print(json.dumps(child(args.child, args.requests, args.rounds, args.answers)))
        return 0

    sides = [("sandbox", ROOT)]
    if args.baseline:
        sides.append(("baseline", args.baseline.resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        answers = args.keep_answers or Path(tmp) / "answers.json"
        first = _run_child("sandbox", ROOT, 20, 1, answers)  # records the floor's answers
        answers.write_text(json.dumps(first["answers"]))
        sides.append(("floor", ROOT))
        results: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in sides}
        for n in range(args.children):
            for label, source in sides if n % 2 == 0 else sides[::-1]:
                side = "floor" if label == "floor" else "sandbox"
                run = _run_child(side, source, args.requests, args.rounds, answers)
                results[label].append(run)
    total = len(KINDS) * args.requests * args.rounds * args.children
    print(
        f"{args.requests:,} requests per kind and round, {args.rounds} rounds in each of"
        f" {args.children} children per side ({total:,} requests a side);"
        " CPU ms per request, median over the rounds"
    )
    clients = [label for label, _ in sides if label != "floor"]
    print(
        f"{'kind':10}"
        + "".join(f"{label:>12} server" for label, _ in sides)
        + "".join(f"{label:>12} client" for label in clients)
        + f"{'httpx':>12} client"
    )
    medians: dict[str, dict[str, float]] = {label: {} for label, _ in sides}
    client_medians: dict[str, dict[str, float]] = {label: {} for label in clients}
    for kind in (*KINDS, "all"):
        row = f"{kind:10}"
        for label, _ in sides:
            rounds = [f for run in results[label] for f in _kind_rounds(run, kind)]
            medians[label][kind] = statistics.median(f[0] for f in rounds)
            row += f"{medians[label][kind]:19.3f}"
        for label in clients:
            rounds = [f for run in results[label] for f in _kind_rounds(run, kind)]
            client_medians[label][kind] = statistics.median(f[1] for f in rounds)
            row += f"{client_medians[label][kind]:19.3f}"
        bare = statistics.median(ms for run in results["sandbox"] for ms in _bare_rounds(run, kind))
        print(f"{row}{bare:19.3f}")
    for label, _ in sides:
        peak = statistics.median(run["peak_mib"] for run in results[label])
        print(f"peak memory of a {label} child: {peak:,.1f} MiB")
    if args.baseline:
        cut = 1 - medians["sandbox"]["all"] / medians["baseline"]["all"]
        print(f"sandbox: server CPU per request {-cut:+.1%} against the baseline")
        cut = 1 - client_medians["sandbox"]["all"] / client_medians["baseline"]["all"]
        print(f"client: CPU per request {-cut:+.1%} against the baseline")
    if args.calls:
        print("calls per request (Python and C; the sandbox's, the client's, bare httpx's):")
        for label, source in sides[:-1]:
            counts = _run_child("calls", source, args.requests, 1, answers)
            for who in ("server", "client", "httpx"):
                mean = statistics.fmean(counts[who].values())
                each = ", ".join(f"{kind} {n:,.0f}" for kind, n in counts[who].items())
                print(f"  {label} {who}: {mean:,.0f} on average ({each})")
    above = medians["sandbox"]["all"] - medians["floor"]["all"]
    print(f"sandbox above the floor: {above:.3f} ms per request (all kinds)")
    above = client_medians["sandbox"]["all"] - statistics.median(
        ms for run in results["sandbox"] for ms in _bare_rounds(run, "all")
    )
    print(f"client above bare httpx: {above:.3f} ms per request (all kinds)")
    return 0


def _bare_rounds(run: dict[str, Any], kind: str) -> list[float]:
    """A sandbox child's rounds of bare httpx sending ``kind`` (for ``all``: each round's
    mean over the kinds), client CPU ms per request."""
    floor = run["httpx"]
    if kind != "all":
        return list(floor[kind])
    return [statistics.fmean(ms) for ms in zip(*(floor[k] for k in KINDS), strict=True)]


def _kind_rounds(run: dict[str, Any], kind: str) -> list[tuple[float, float, float]]:
    """A child's rounds of ``kind`` (for ``all``: each round's mean over the kinds)."""
    figures = run["figures"]
    if kind != "all":
        return [(f[0], f[1], f[2]) for f in figures[kind]]
    rounds = zip(*(figures[k] for k in KINDS), strict=True)
    means = [[statistics.fmean(f[i] for f in fs) for i in range(3)] for fs in rounds]
    return [(m[0], m[1], m[2]) for m in means]


if __name__ == "__main__":
    sys.exit(main())
