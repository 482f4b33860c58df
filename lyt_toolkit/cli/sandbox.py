"""Handlers of ``lyt sandbox serve`` and ``lyt sandbox generate``."""

from __future__ import annotations

import argparse
import importlib
import ipaddress
import json
import math
import sys
from pathlib import Path

from ..sandbox.clock import parse_instant
from ..sandbox.config import DEFAULT_CREDENTIALS, ENV_VARIABLES, SandboxConfig, SandboxCredentials
from ..sandbox.from_snapshot import sandbox_credentials
from ..sandbox.quota import configured_plan
from ..sandbox.state import load_program_source
from ._common import EXIT_OK, fail

SERVE = "lyt sandbox serve"
GENERATE = "lyt sandbox generate"


def serve(args: argparse.Namespace) -> int:
    """``lyt sandbox serve``: check the options, then serve until interrupted."""
    from ..sandbox.clock_seen import UnreadableClock
    from ..sandbox.loader import ProgramFileError, collector_paused, program_from
    from ..sandbox.quota_ledger import UnreadableBudget
    from ..sandbox.state import IncompleteDatabase, SandboxState

    # Off from reading the program file until run() has loaded it (see run), and as the
    # caller had it on every way out: main() may be called in-process.
    with collector_paused():
        try:
            config = _checked_config(args)
            timeouts = _checked_timeouts(args)
            _check_exposure(args.host, config.credentials, args.unsafe_public_demo_credentials)
        except ValueError as exc:
            return fail(SERVE, str(exc))
        given = args.from_snapshot
        source = f"--from-snapshot {given}" if given else f"--data {args.data or 'demo'}"
        try:
            # The program loads before the web app is imported: the app's modules import
            # while SQLite builds the load's indexes.
            with program_from(source):
                state = SandboxState.create(config, alongside=_import_server)
                from ..sandbox.server import serve as run

                run(config, args.host, args.port, state=state, **timeouts)
        except ProgramFileError as exc:
            return fail(SERVE, str(exc))
        except (IncompleteDatabase, UnreadableBudget, UnreadableClock) as exc:
            return fail(SERVE, str(exc))
    return EXIT_OK


def _import_server() -> None:
    """Import the sandbox's web app and server (FastAPI, uvicorn, the routers)."""
    importlib.import_module("..sandbox.server", __package__)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine (names other than
    ``localhost`` are taken as reachable from elsewhere)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_exposure(host: str, credentials: SandboxCredentials, unsafe: bool) -> None:
    """Refuse a non-loopback bind with any public demo credential unless told it is wanted;
    warn on stderr whenever the sandbox is reachable beyond this machine."""
    if is_loopback(host):
        return
    demo = sorted(k for k, v in DEFAULT_CREDENTIALS.items() if getattr(credentials, k) == v)
    if demo and not unsafe:
        names = ", ".join(ENV_VARIABLES[k] for k in demo)
        raise ValueError(
            f"--host {host}: refusing to serve beyond this machine with the public demo"
            f" credentials; set {names} (or pass --unsafe-public-demo-credentials)"
        )
    print(
        f"warning: binding {host}; the sandbox, its reset and fault injection are then"
        " reachable beyond this machine" + (" with the PUBLIC DEMO CREDENTIALS" if demo else ""),
        file=sys.stderr,
    )


def _checked_config(args: argparse.Namespace) -> SandboxConfig:
    """The sandbox settings, each option checked so a mistake names the option."""
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port: must be from 0 to 65535, got {args.port}")
    if args.from_snapshot is not None and args.data is not None:
        raise ValueError("--from-snapshot: give --data or --from-snapshot, not both")
    if args.now is not None:
        try:
            parse_instant(args.now)
        except ValueError:
            raise ValueError(f"--now: {args.now!r} is not an ISO 8601 instant") from None
    program = None
    if args.data is not None:
        try:
            program = load_program_source(args.data)
        except OSError as exc:
            raise ValueError(f"--data: cannot read {args.data}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"--data: {args.data} is not valid JSON ({exc})") from None
        if not isinstance(program, dict):
            raise ValueError(f"--data: {args.data} must hold a JSON object")
    plan = args.plan
    try:
        configured_plan(plan)
    except ValueError as exc:
        raise ValueError(f"--{exc}") from None
    if args.db is not None and not Path(args.db).resolve().parent.is_dir():
        raise ValueError(f"--db: the folder of {args.db} does not exist")
    if args.from_snapshot is not None:
        return _snapshot_config(args)
    # The file as read here is what loads: it is not read (nor parsed) a second time.
    return SandboxConfig(data=program, db=args.db, now=args.now, seed=args.seed, plan=plan)


def _checked_timeouts(args: argparse.Namespace) -> dict[str, float]:
    """``--body-timeout`` and ``--head-timeout`` when given: positive, finite seconds."""
    timeouts = {}
    for name in ("body_timeout", "head_timeout"):
        value = getattr(args, name, None)
        if value is None:
            continue
        if not math.isfinite(value) or value <= 0:
            option = "--" + name.replace("_", "-")
            raise ValueError(f"{option}: must be a positive number of seconds, got {value:g}")
        timeouts[name] = value
    return timeouts


def _snapshot_config(args: argparse.Namespace) -> SandboxConfig:
    """``--from-snapshot DIR``: the snapshot's program, read here (the sandbox reads no
    snapshot), and the sandbox credentials."""
    from ..snapshot import snapshot_program  # pandas and the snapshot code: only for this

    try:
        program = snapshot_program(args.from_snapshot)
    except OSError as exc:
        raise ValueError(f"--from-snapshot: cannot read {args.from_snapshot}: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"--from-snapshot: {exc}") from None
    return SandboxConfig(
        data=program,
        db=args.db,
        now=args.now,
        seed=args.seed,
        plan=args.plan,
        credentials=sandbox_credentials(),
    )


def generate(args: argparse.Namespace) -> int:
    """``lyt sandbox generate``: write a synthetic program file of the requested size."""
    from ..synthetic import MINIMUM_COUNTS, generate_program
    from ..synthetic.program import save_program

    counts = {name: getattr(args, name) for name in MINIMUM_COUNTS}
    for name, value in counts.items():
        if value is not None and value < MINIMUM_COUNTS[name]:
            option = "--" + name.replace("_", "-")
            return fail(GENERATE, f"{option}: must be at least {MINIMUM_COUNTS[name]}, got {value}")
    if counts["pending_buckets"] and not counts["members"]:
        return fail(GENERATE, "--pending-buckets: needs --members above 0 to hold them")
    program = generate_program(seed=args.seed, **counts)
    try:
        save_program(args.out, program)
    except OSError as exc:
        return fail(GENERATE, f"--out: cannot write {args.out}: {exc.strerror or exc}")
    print(f"wrote {args.out}: {generated(program)}, seed {args.seed}")
    return EXIT_OK


GENERATED = (
    "programs",
    "members",
    "cards",
    "pending_buckets",
    "rewards",
    "benefits",
    "card_definitions",
    "tier_structures",
)
"""The lists of a generated program ``lyt sandbox generate`` counts, in the order it says
them."""


def generated(program: dict[str, object]) -> str:
    """What a generated ``program`` holds: ``1 program, 300 members, 300 cards, ...``."""
    counts = []
    for name in GENERATED:
        items = program.get(name)
        n = len(items) if isinstance(items, list) else 0
        words = name.replace("_", " ")
        counts.append(f"{n:,} {words.removesuffix('s') if n == 1 else words}")
    return ", ".join(counts)
