"""Pulls and plans under exactly the call budget their estimates name.

    .venv/bin/python benchmarks/quota.py [--members 500] [--items 300]

One embedded sandbox serves a generated program with ``--members`` members (one
card each) on a fixed clock, so no window ends during the run. Part 1 estimates a
full snapshot pull (``ProgramSnapshot.estimate``, reading every member to count
the cards), puts a plan in force whose window holds exactly the pull's estimate,
and pulls. Part 2 builds a ``--items`` benefit plan, lets the client read the
budget with one call, puts a plan in force whose window holds exactly the plan's
cost after that call, and executes it.

Printed per part: calls estimated (the estimate's own calls and the work's),
calls made, 429s received (calls the client sent less calls the sandbox counted:
a refused call is not counted) and the seconds the client spent waiting for the
budget. Goals: the plan's calls made equal its estimate; the pull's never exceed
its estimate and stay within 10% of it; zero 429s. For comparison the pull's
default estimate (no member reads: an upper bound of one card per card
definition) is printed too.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import lyt_toolkit.client._flow as flow  # noqa: E402
from lyt_toolkit import ProgramSnapshot, actions  # noqa: E402
from lyt_toolkit._progress import Progress  # noqa: E402
from lyt_toolkit.client import LoyaltyClient  # noqa: E402
from lyt_toolkit.client.quota import WINDOW_WAIT  # noqa: E402
from lyt_toolkit.sandbox import Sandbox  # noqa: E402
from lyt_toolkit.synthetic import generate_program  # noqa: E402

NOW = "2026-01-15T12:00:00Z"
WAITED = [0.0]
"""Seconds the client's flow was told to wait for the budget (``quota.waits``)."""

_waits = flow.waits


def _counted_waits(
    seconds: float, progress: Progress = True, desc: str = WINDOW_WAIT
) -> Iterator[float]:
    for piece in _waits(seconds, progress, desc):
        WAITED[0] += piece
        yield piece


flow.waits = _counted_waits  # the benchmark's only hook: it adds up the budget waits


def client_for(sb: Sandbox) -> LoyaltyClient:
    return LoyaltyClient(base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs())


def pull_part(sb: Sandbox) -> dict[str, Any]:
    sb.set_plan("1000000/hour")
    with client_for(sb) as client:
        bound = ProgramSnapshot.estimate(client)
        estimate = ProgramSnapshot.estimate(client, read_members=True)
        sb.set_plan(f"{estimate.calls}/hour")  # a fresh window holding the estimate exactly
        waited, started = WAITED[0], time.perf_counter()
        snapshot = ProgramSnapshot.pull(client, progress=False, budget_share=1.0)
        seconds = time.perf_counter() - started
    assert snapshot.calls is not None
    made = snapshot.calls.used
    return {
        "members": len(snapshot.members),
        "cards": len(snapshot.cards),
        "bound": bound.calls,
        "bound_spent": bound.spent,
        "estimate_spent": estimate.spent,
        "estimated": estimate.calls,
        "made": made,
        "refused": made - sb.plan()["used"],
        "waited": WAITED[0] - waited,
        "seconds": seconds,
    }


def plan_part(sb: Sandbox, items: int) -> dict[str, Any]:
    sb.set_plan("1000000/hour")
    card = "lcdef_" + sb_active_definition(sb)
    rows = [
        {
            "name": f"Quota {i:05d}",
            "type": "POINTS",
            "points": {"value": 5, "card_definition_id": card},
        }
        for i in range(items)
    ]
    plan = actions.create_benefits(rows)
    with client_for(sb) as client:
        client.programs.list(limit=1)  # the token, before the budget is set
        needed = plan.cost(client).needed
        sb.set_plan(f"{needed + 1}/hour")
        client.programs.list(limit=1)  # the one call that reads the budget
        cost = plan.cost(client, budget_share=1.0)  # the whole window: exactly its cost
        before, waited, started = client.quota.calls_used, WAITED[0], time.perf_counter()
        results = plan.execute(client, progress=False, budget_share=1.0)
        seconds = time.perf_counter() - started
        made = client.quota.calls_used - before
    assert cost.fits and cost.remaining == cost.needed
    return {
        "estimated": cost.needed,
        "made": made,
        "refused": made - (sb.plan()["used"] - 1),
        "succeeded": int((results["outcome"] == "succeeded").sum()),
        "waited": WAITED[0] - waited,
        "seconds": seconds,
    }


def sb_active_definition(sb: Sandbox) -> str:
    with client_for(sb) as client:
        for definition in client.card_definitions.iter(limit=100):
            if str(definition.status) == "ACTIVE":
                return definition.id.removeprefix("lcdef_")
    raise SystemExit("the generated program has no ACTIVE card definition")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--items", type=int, default=300)
    args = parser.parse_args(argv)
    program = generate_program(members=args.members, rewards=1000, benefits=1000)
    with Sandbox.start(program, now=NOW, seed=7) as sb:
        pull = pull_part(sb)
        plan = plan_part(sb, args.items)
    print(f"snapshot pull: {pull['members']} members, {pull['cards']} cards")
    print(
        f"  calls estimated: {pull['estimate_spent'] + pull['estimated']} "
        f"(the estimate's own {pull['estimate_spent']} + the pull's {pull['estimated']}); "
        f"without member reads: {pull['bound_spent']} + at most {pull['bound']}"
    )
    print(
        f"  calls made: {pull['estimate_spent'] + pull['made']} (the pull's {pull['made']}); "
        f"429s: {pull['refused']}; waiting: {pull['waited']:.1f} s; pull {pull['seconds']:.1f} s"
    )
    print(f"{args.items}-item plan:")
    print(
        f"  calls estimated: {plan['estimated']} (the estimate sends none; one read set the budget)"
    )
    print(
        f"  calls made: {plan['made']}; 429s: {plan['refused']}; waiting: {plan['waited']:.1f} s; "
        f"succeeded {plan['succeeded']}/{args.items}; execute {plan['seconds']:.1f} s"
    )
    over = pull["made"] / pull["estimated"] - 1
    goals = {
        "plan's calls made == its estimate": plan["made"] == plan["estimated"],
        "pull's calls made <= its estimate": pull["made"] <= pull["estimated"],
        f"pull's calls made within 10% of its estimate ({over:+.1%})": abs(over) <= 0.10,
        "zero 429s": pull["refused"] == 0 and plan["refused"] == 0,
    }
    for goal, met in goals.items():
        print(f"goal {'met' if met else 'MISSED'}: {goal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
