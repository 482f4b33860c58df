"""How often the 95 % interval a stopped pull quotes holds the true bucket lists, by members read.

    .venv/bin/python benchmarks/stop_projection.py [--reads 5 10 20 30 50 100] [--draws 1000]

A pull stopped partway through its member reads projects its bucket lists from the members
whose reads were answered (``fill.projection.projected_lists``, the interval
``PullBudgetError.interval`` adds the pull's other calls to), when ``QUOTED_FROM`` or more
were. Those members are a simple random sample of the members listed (each part is read in
the order drawn, ``next_part``), so this draws them as such: ``--draws`` samples of each
size of ``--reads`` from

- ten made-up programs of 20,000 members: 1 %, 5 %, 20 %, 50 % or 90 % of them holding
  pending points on one card (``one``), or on one to three (``multi``);
- the generated program of ``lyt sandbox generate --members 20000 --programs 3 --rewards
  500 --benefits 100 --seed 0`` (``generated``: 4,000 cards holding pending points),

and reports the share of draws whose interval held the true count (goal: about 0.95). The
figures ``QUOTED_FROM`` gives come from this (2026-12-07, the defaults): 30 read held it in
0.939 to 0.997 of the made-up programs' draws and 0.962 of the generated one's, as 50 or
100 read did (0.900 to 0.999); 20 in 0.920 at worst, 10 in 0.780. A benchmark reports; the
exit status is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from collections.abc import Sequence

from lyt_toolkit.fill.projection import QUOTED_FROM, PendingRate, projected_lists
from lyt_toolkit.synthetic import generate_program

MEMBERS = 20_000


def made_up(kind: str, share: float, rng: random.Random) -> list[int]:
    """Cards holding pending points, per member, of a made-up program of ``MEMBERS``."""
    return [
        (1 if kind == "one" else rng.choice((1, 2, 3))) if rng.random() < share else 0
        for _ in range(MEMBERS)
    ]


def generated() -> list[int]:
    """Cards holding pending points, per member, of the 20,000-member generated program."""
    program = generate_program(rewards=500, benefits=100, members=MEMBERS, programs=3, seed=0)
    held = Counter(c["member_id"] for c in program["cards"] if c["balance"]["pending_points"] != 0)
    return [held.get(m["id"], 0) for m in program["members"]]


def held(holding: list[int], reads: int, draws: int) -> float:
    """The share of ``draws`` samples of ``reads`` members whose interval held the truth."""
    truth, hits = sum(holding), 0
    for seed in range(draws):
        read = random.Random(seed).sample(holding, reads)
        rate = PendingRate.of(reads, [i for i, n in enumerate(read) for _ in range(n)])
        projected = projected_lists(rate, len(holding))
        hits += projected.low <= truth <= projected.high
    return hits / draws


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, nargs="+", default=[5, 10, 20, 30, 50, 100])
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args(argv)
    programs = {
        f"{kind} {share:.0%}": made_up(kind, share, random.Random(1))
        for kind in ("one", "multi")
        for share in (0.01, 0.05, 0.2, 0.5, 0.9)
    }
    programs["generated"] = generated()
    print(f"QUOTED_FROM = {QUOTED_FROM}; share of {args.draws:,} draws whose interval held")
    print(f"{'program':<12}" + "".join(f"{n:>8}" for n in args.reads))
    for name, holding in programs.items():
        row = "".join(f"{held(holding, n, args.draws):>8.3f}" for n in args.reads)
        print(f"{name:<12}{row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
