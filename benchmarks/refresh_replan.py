"""A refresh after a stale refusal, timed: ``cost(refresh=True)``, then ``apply(refresh=True)``
on the same rows kept beside the log (``kept_reads``), the re-plans they make counted.

    .venv/bin/python benchmarks/refresh_replan.py [--members 6000] [--writes 800] [--stale 10]

A program of ``members`` members is generated and served by a sandbox standing for production
and pulled whole; the plan activates ``writes`` pending buckets dated in the future, one a
card, and is saved; ``stale`` of them are activated by someone else, so its apply is refused
(stale) and keeps the rows it read. Then, in this process, by a client that has sent nothing
yet (as ``lyt apply --refresh`` connects), ``check_apply(refresh=True)`` (what ``lyt apply
--refresh`` checks first: its cost) and ``apply(refresh=True, ignore_unsupported=True)`` run
on those rows, each timed (wall clock, ``time.perf_counter``), with the calls the sandbox
counted and the re-plans (``replan.replanned``) each made.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from scale import PULL_SIZES
from stale_apply import saved_activations

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.actions import ChangePlan, StalePlanError, replan
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

NOW = "2026-01-15T12:00:00Z"
T = TypeVar("T")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=6000)
    parser.add_argument("--writes", type=int, default=800)
    parser.add_argument("--stale", type=int, default=10)
    args = parser.parse_args()
    program = generate_program(members=args.members, seed=1, **PULL_SIZES)
    replans = _counting_replans()
    with (
        Sandbox.start(program, now=NOW, seed=7) as sb,
        LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client,
        tempfile.TemporaryDirectory() as folder,
    ):
        sb.set_plan("unlimited")
        base = ProgramSnapshot.pull(client, progress=False)
        path, log = Path(folder) / "plan.json", Path(folder) / "plan.log.jsonl"
        chosen = saved_activations(base, args.writes, path)
        stale_rows: Iterable[Any] = chosen.head(args.stale).itertuples()
        for row in stale_rows:
            client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, row.id)
        sb.settle()
        saved = ChangePlan.load(path)
        try:
            saved.apply(client, log=log, progress=False)
            raise SystemExit("the plan was not refused stale")
        except StalePlanError:
            pass
        print(f"plan: {len(chosen)} activations, {args.stale} made stale, refused; rows kept")
        saved = ChangePlan.load(path)  # as lyt apply --refresh loads it
        with LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as connected:  # as lyt apply --refresh connects: nothing sent yet
            cost = _timed(
                "check_apply(refresh=True)",
                sb,
                replans,
                lambda: saved.check_apply(
                    connected, log=log, refresh=True, ignore_unsupported=True
                ),
            )
            print(f"   needed {cost.needed}")
            results = _timed(
                "apply(refresh=True)",
                sb,
                replans,
                lambda: saved.apply(
                    connected, log=log, refresh=True, ignore_unsupported=True, progress=False
                ),
            )
        print(f"   {results['outcome'].value_counts().to_dict()}")


def _counting_replans() -> list[int]:
    """A counter of the calls of ``replan.replanned`` from here on (every caller's)."""
    count = [0]
    original = replan.replanned

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return original(*args, **kwargs)

    for module in _importers():
        module.replanned = counted
    return count


def _importers() -> list[Any]:
    """The modules calling ``replanned`` by the name they imported."""
    from lyt_toolkit.actions import change_plan, kept_dropped

    return [replan, change_plan, kept_dropped]


def _timed(what: str, sb: Sandbox, replans: list[int], run: Callable[[], T]) -> T:
    """``run()``, printing its wall time, the calls the sandbox counted and its re-plans."""
    used, count = sb.plan()["used"], replans[0]
    start = time.perf_counter()
    done = run()
    took = time.perf_counter() - start
    print(f"{what}: {took:.2f} s, {sb.plan()['used'] - used} calls, {replans[0] - count} re-plans")
    return done


if __name__ == "__main__":
    main()
