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

A benchmark reports; the exit status is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sandbox_pagination import stop, timed_loads  # noqa: E402

from lyt_toolkit.synthetic import generate_program  # noqa: E402


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


SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {"load": load}
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
    parser.add_argument("--programs", type=int, default=1, help="programs (load)")
    parser.add_argument("--rounds", type=int, default=3, help="loads timed, each way (load)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in dict.fromkeys(args.sections):  # in the order named, each once
        SECTIONS[name](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
