"""Handlers of ``lyt sandbox serve`` and ``lyt sandbox generate``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..sandbox.clock import parse_instant
from ..sandbox.config import SandboxConfig
from ..sandbox.state import load_program_source


def serve(args: argparse.Namespace) -> int:
    """``lyt sandbox serve``: check the options, then serve until interrupted."""
    from ..sandbox.server import serve as run

    try:
        config = _checked_config(args)
    except ValueError as exc:
        print(f"lyt sandbox serve: {exc}", file=sys.stderr)
        return 2
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: binding {args.host}; the sandbox is then reachable beyond this machine")
    run(config, args.host, args.port)
    return 0


def _checked_config(args: argparse.Namespace) -> SandboxConfig:
    """The sandbox settings, each option checked so a mistake names the option."""
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port: must be from 0 to 65535, got {args.port}")
    if args.now is not None:
        try:
            parse_instant(args.now)
        except ValueError:
            raise ValueError(f"--now: {args.now!r} is not an ISO 8601 instant") from None
    if args.data is not None:
        try:
            program = load_program_source(args.data)
        except OSError as exc:
            raise ValueError(f"--data: cannot read {args.data}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"--data: {args.data} is not valid JSON ({exc})") from None
        if not isinstance(program, dict):
            raise ValueError(f"--data: {args.data} must hold a JSON object")
    if args.db is not None and not Path(args.db).resolve().parent.is_dir():
        raise ValueError(f"--db: the folder of {args.db} does not exist")
    return SandboxConfig(data=args.data, db=args.db, now=args.now, seed=args.seed)


def generate(args: argparse.Namespace) -> int:
    """``lyt sandbox generate``: write a synthetic program file of the requested size."""
    from ..synthetic import MINIMUM_COUNTS, write_program

    counts = {name: getattr(args, name) for name in MINIMUM_COUNTS}
    for name, value in counts.items():
        if value < MINIMUM_COUNTS[name]:
            option = "--" + name.replace("_", "-")
            return _refuse(f"{option}: must be at least {MINIMUM_COUNTS[name]}, got {value}")
    try:
        write_program(args.out, seed=args.seed, **counts)
    except OSError as exc:
        return _refuse(f"--out: cannot write {args.out}: {exc.strerror or exc}")
    print(f"wrote {args.out}")
    return 0


def _refuse(reason: str) -> int:
    print(f"lyt sandbox generate: {reason}", file=sys.stderr)
    return 2
