"""Handlers of ``lyt sandbox serve`` and ``lyt sandbox generate``."""

from __future__ import annotations

import argparse

from .config import SandboxConfig


def serve(args: argparse.Namespace) -> int:
    from .server import serve as run

    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: binding {args.host}; the sandbox is then reachable beyond this machine")
    run(
        SandboxConfig(data=args.data, db=args.db, now=args.now, seed=args.seed),
        args.host,
        args.port,
    )
    return 0


def generate(args: argparse.Namespace) -> int:
    from .generate import write_program

    write_program(
        args.out,
        rewards=args.rewards,
        benefits=args.benefits,
        card_definitions=args.card_definitions,
        tier_structures=args.tier_structures,
        members=args.members,
        seed=args.seed,
    )
    print(f"wrote {args.out}")
    return 0
