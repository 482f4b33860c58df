"""A sampled pull's projected stop over many seeds: false stops of pulls that fit, late and
overshooting refusals of pulls that do not.

    .venv/bin/python benchmarks/projection.py [--members 20000] [--seed 11] [--seeds 300]
        [--samples 1800 1900 2000 2100]

A pure simulation of the member reads of ``pull(client, sample=Sample(n, seed=s))`` over the
real per-member figures of ``lyt sandbox generate --members M --seed SEED`` (its members
list, each member's points and whether its card holds pending points), under the
``professional`` plan (5,000 calls an hour) at ``budget_share=0.5`` (2,500 calls), from a
fresh window. The pull's own code decides: ``SampleDraw`` draws the sample (an adaptive
sample's second round from the pilot's points), ``fill.projection.next_part`` cuts each
round into parts, and a real ``PullBudget`` over a real ``Allowance`` checks and projects
between them (``check``, ``project``), then checks the bucket lists, as ``fill.pull`` does.
The list pages are counted as ``benchmarks/scale.py designs`` counts them (token, programs,
members in created_at windows, every page of the other lists); no card definition is read
by ID (the generated cards reference listed ones).

Per sample size it reports, over seeds 0..SEEDS-1 of the sample:

- ``fits``: seeds whose whole pull fits in the share;
- ``false stops``: of those, seeds stopped by a projection (the pull would have fitted);
- ``stopped early``: of the others, seeds stopped by a projection, and the most calls sent
  before such a stop;
- ``late``: of the others, seeds that read every member and were refused only at the bucket
  lists (their reads wasted);
- ``overshoot``: seeds whose calls went past the share (0 by the allowance's design: a call
  beyond it is refused; counted to be sure the simulation agrees);
- ``offers``: the smaller sample each stop offered, taken at once from what the window has
  left (its own share of it): how many were stopped in turn or did not fit (goal: none).

A benchmark reports; the exit status is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from lyt_toolkit.client.allowance import Allowance  # noqa: E402
from lyt_toolkit.client.quota import Quota  # noqa: E402
from lyt_toolkit.errors import PullBudgetError  # noqa: E402
from lyt_toolkit.fill.budget import PullBudget  # noqa: E402
from lyt_toolkit.fill.projection import PendingRate, next_part  # noqa: E402
from lyt_toolkit.frames.sample import Sample, SampleDraw  # noqa: E402
from lyt_toolkit.pull.window_cost import windowed_calls  # noqa: E402
from lyt_toolkit.snapshot.cost import TREE, pages  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = "2026-01-15T12:00:00Z"
WINDOW = 5000
"""The ``professional`` plan's calls an hour."""
SHARE = 0.5
KINDS = ("rewards", "reward_costs", "benefits", "card_definitions", "tier_structures", *TREE)


@dataclass
class Program:
    """What a pull of the generated program meets: its members list (``members_frame``
    columns), each member's points and whether its card holds pending points, in the order
    the list gives them, and the calls of its lists."""

    members: pd.DataFrame
    points: pd.Series
    holds: pd.Series
    lists: int
    order: list[str] = field(default_factory=list)


def program_of(members: int, seed: int) -> Program:
    """The program ``lyt sandbox generate --members MEMBERS --seed SEED`` writes."""
    program = generate_program(members=members, seed=seed)
    now = pd.Timestamp(NOW)
    frame = pd.DataFrame(program["members"])
    frame["created_at"] = [
        now - pd.Timedelta(seconds=int(text.removeprefix("now-").removesuffix("s")))
        for text in frame["created_at"]
    ]
    points = pd.Series(
        {c["member_id"]: float(c["balance"]["points"]) for c in program["cards"]}, dtype=float
    )
    holds = pd.Series(
        {c["member_id"]: c["balance"]["pending_points"] != 0 for c in program["cards"]}
    )
    wire = [
        {"id": m["id"], "created_at": at.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
        for m, at in zip(program["members"], frame["created_at"], strict=True)
    ]
    listed = ("rewards", "benefits", "card_definitions", "tier_structures")
    lists = 2 + windowed_calls(wire) + sum(pages(len(program[k]), 100) for k in listed)
    return Program(frame, points, holds, lists, list(frame["id"]))


@dataclass
class Outcome:
    """One pull: its calls, whether it was stopped by a projection (``early``) or at the
    bucket lists (``late``), and the sample a stop offered."""

    calls: int
    fits: bool
    early: bool = False
    late: bool = False
    offered: int | None = None


def simulate(program: Program, sample: Sample, window_left: int = WINDOW) -> Outcome:
    """The pull of ``sample`` from a window with ``window_left`` calls left."""
    sent = [0]
    allowance = Allowance(SHARE, lambda: sent[0], window_left, WINDOW)
    budget = PullBudget(allowance, Quota(max_wait=0), KINDS, sample)
    members = program.members

    def drawn(design: Sample) -> int:
        draw = SampleDraw(members, design)
        return design.n if draw.adaptive else len(draw.first.units)

    budget.drawn = drawn
    share = allowance.calls or 0
    sent[0] += program.lists
    budget.lists_walked(by_id=0)
    draw = SampleDraw(members, sample)
    first = set(draw.first.units["member_id"])
    rounds = [[m for m in program.order if m in first]]
    read: list[str] = []
    holds = program.holds
    whole = _whole(program, draw)
    fits = program.lists + len(whole) + int(holds[whole].sum()) <= share
    try:
        for number in (0, 1):
            left = rounds[number]
            while left:
                part = next_part(left, len(read))
                if budget.reads:  # a later part: projected
                    rest = max(budget.reads - len(read), len(left))
                    holders = [m for m in read if holds[m]]
                    budget.project(PendingRate.of(len(read), holders), rest)
                else:
                    needed = max(sample.n, len(left)) if draw.adaptive else len(left)
                    budget.check("cards", needed, members=len(members), sampled=needed)
                sent[0] += len(part)
                read.extend(part)
                taken = set(part)
                left = [m for m in left if m not in taken]
            if number == 0:
                if not draw.adaptive:
                    break
                points = program.points[read]
                design = draw.complete(points)
                second = set(design.units["member_id"]) - first
                rounds.append([m for m in program.order if m in second])
        holders = [m for m in read if holds[m]]
        budget.rate = PendingRate.of(len(read), holders)
        budget.check("pending_buckets", len(holders), members=len(members), sampled=len(read))
        sent[0] += len(holders)
    except PullBudgetError as error:
        offered = next((w.argument[1] for w in error.ways if _offers(w.argument)), None)
        early = error.projected is not None
        return Outcome(sent[0], fits, early=early, late=not early, offered=offered)
    return Outcome(sent[0], fits)


def _offers(argument: tuple[str, Any] | None) -> TypeGuard[tuple[str, Any]]:
    return argument is not None and argument[0] == "sample"


def _whole(program: Program, draw: SampleDraw) -> list[str]:
    """The members the whole sample reads (an adaptive one's pilot points known)."""
    if not draw.adaptive:
        return list(draw.first.units["member_id"])
    pilot = list(draw.first.units["member_id"])
    return list(draw.complete(program.points[pilot]).units["member_id"])


def run(program: Program, n: int, seeds: int) -> dict[str, Any]:
    """``sample=n`` over ``seeds`` seeds, each stop's offer taken at once."""
    found: dict[str, Any] = {"fits": 0, "false": 0, "early": 0, "late": 0, "over": 0}
    stops: list[int] = []
    offers: list[int] = []
    offers_bad = 0
    for seed in range(seeds):
        outcome = simulate(program, Sample(n, seed=seed))
        found["over"] += outcome.calls > WINDOW * SHARE
        if outcome.fits:
            found["fits"] += 1
            found["false"] += outcome.early or outcome.late
            continue
        found["early"] += outcome.early
        found["late"] += outcome.late
        if outcome.early:
            stops.append(outcome.calls)
        if outcome.offered is not None:
            offers.append(outcome.offered)
            offered = Sample(outcome.offered, seed=seed)
            taken = simulate(program, offered, WINDOW - outcome.calls)
            offers_bad += taken.early or taken.late or not taken.fits
    found["stops"] = stops
    found["offers"] = offers
    found["offers_bad"] = offers_bad
    return found


def report(n: int, seeds: int, found: dict[str, Any]) -> None:
    fits, stops, offers = found["fits"], found["stops"], found["offers"]
    line = f"  sample={n}: fits {fits}/{seeds}, false stops {found['false']}/{fits}"
    if seeds - fits:
        line += (
            f"; of {seeds - fits} that do not fit: stopped early {found['early']}"
            f" (calls median {statistics.median(stops) if stops else 0:,.0f},"
            f" most {max(stops, default=0):,}), late {found['late']}"
        )
    line += f"; overshoot {found['over']}"
    if offers:
        line += (
            f"; offers median {statistics.median(offers):,.0f}"
            f" (least {min(offers):,}), stopped or not fitting {found['offers_bad']}"
        )
    print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--seeds", type=int, default=300)
    parser.add_argument("--samples", type=int, nargs="+", default=[1800, 1900, 2000, 2100])
    parser.add_argument(
        "--lists",
        type=int,
        default=212,
        help="the calls of the lists (default: the 212 a pull of the default program sent on"
        " the sandbox; 0: counted as benchmarks/scale.py designs counts them)",
    )
    args = parser.parse_args(argv)
    program = program_of(args.members, args.seed)
    if args.lists:
        program.lists = args.lists
    holders = int(program.holds.sum())
    print(
        f"projection: {args.members:,} members (seed {args.seed}), {holders:,} cards holding"
        f" pending points; lists {program.lists} calls; share {int(WINDOW * SHARE):,} of"
        f" {WINDOW:,}; {args.seeds} seeds of each sample"
    )
    for n in args.samples:
        report(n, args.seeds, run(program, n, args.seeds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
