"""Load a large saved plan (``ChangePlan.load``: every check a plan file gets) beside the
strongest peer, plain ``json.load`` and the frames built by hand (no check at all).

    PYTHONPATH=. .venv/bin/python benchmarks/plan_load.py [--plan FILE] [--members 20000]
        [--activations 4000] [--creates 2000] [--rounds 3] [--against OLD_TREE]

Without an existing ``--plan`` file one is made (and kept at ``--plan`` when given): a
program of ``members`` members is generated (``lyt_toolkit.synthetic``), served by a sandbox
and pulled whole; the plan activates ``activations`` pending buckets dated in the future,
creates ``creates`` POINTS benefits and moves 100 rewards to draft (about two minutes at
20,000 members). Each route then runs in a process of its own: the seconds (wall and CPU)
of its first load, its best of ``rounds`` loads, and the process's peak memory beside what
importing took (the plan is made in a process of its own: a child keeps its parent's peak).
``--against OLD_TREE`` adds the toolkit of ``OLD_TREE`` (a checkout of it
before: ``git archive main lyt_toolkit | tar -x -C OLD_TREE``). Goal: the checked load
within a few times the peer's, every check kept.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOW = "2026-01-15T12:00:00Z"


def make_plan(path: Path, members: int, activations: int, creates: int) -> None:
    """A plan of ``activations`` bucket activations, ``creates`` benefit creates and 100
    reward moves, planned against a pulled generated program, saved at ``path``."""
    import pandas as pd

    from lyt_toolkit import LoyaltyClient, ProgramSnapshot, actions
    from lyt_toolkit.sandbox import Sandbox
    from lyt_toolkit.synthetic import generate_program

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from scale import PULL_SIZES

    program = generate_program(members=members, seed=1, **PULL_SIZES)
    with Sandbox.start(program, now=NOW, seed=7, plan="unlimited") as sb:
        settings: dict[str, Any] = {
            "base_url": sb.base_url,
            "env_file": None,
            **sb.credentials.as_client_kwargs(),
        }
        with LoyaltyClient(**settings) as client:
            base = ProgramSnapshot.pull(client, progress=False)
    buckets = base.pending_buckets
    chosen = buckets[buckets["date"] > base.pulled_at].head(activations)["id"]
    edit = actions.edit(base)
    edit.pending_buckets.loc[edit.pending_buckets["id"].isin(chosen), "status"] = "ACTIVATED"
    definitions = base.card_definitions
    cards = definitions.loc[definitions["status"] == "ACTIVE", "id"].tolist()
    new = pd.DataFrame(
        [
            {
                "name": f"Bench bonus {n:05d}",
                "type": "POINTS",
                "points_value": 10 + n % 90,
                "card_definition_id": cards[n % len(cards)],
            }
            for n in range(creates)
        ]
    )
    edit.benefits = pd.concat([edit.benefits, new], ignore_index=True)
    rewards = edit.rewards.loc[edit.rewards["status"] == "ACTIVE", "id"].head(100)
    edit.rewards.loc[edit.rewards["id"].isin(rewards), "status"] = "DRAFT"
    plan = edit.plan()
    plan.save(path)
    print(f"made {path}: {plan.summary()}", file=sys.stderr)


def by_hand(path: Path) -> Any:
    """The peer: the file parsed and its changes and calls' rows made frames, unchecked."""
    import pandas as pd

    with path.open("rb") as file:
        document = json.load(file)
    changes = pd.DataFrame(document["changes"])
    calls = {call: pd.DataFrame(rows, dtype=object) for call, rows in document["calls"].items()}
    return changes, calls, pd.DataFrame(document["touched"])


def run_route(route: str, path: Path, rounds: int) -> None:
    """Measure one route in this process; print its figures as JSON."""
    started = time.perf_counter()
    if route == "peer":
        import pandas  # noqa: F401

        load = by_hand
    else:
        from lyt_toolkit.actions import ChangePlan

        load = ChangePlan.load
    imported = time.perf_counter() - started
    imported_mib = _peak_mib()
    times = []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        load(path)
        times.append((time.perf_counter() - wall, time.process_time() - cpu))
    print(
        json.dumps(
            {
                "import_s": imported,
                "first": times[0],
                "best": min(times[1:] or times),
                "import_mib": imported_mib,
                "peak_mib": _peak_mib(),
            }
        )
    )


def _peak_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def _in_process(route: str, tree: Path, path: Path, rounds: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--route", route, "--plan", str(path)]
    command += ["--rounds", str(rounds)]
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(command, env=env, cwd=tempfile.gettempdir(), capture_output=True)
    if done.returncode:
        raise SystemExit(done.stderr.decode())
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", type=Path)
    parser.add_argument("--members", type=int, default=20000)
    parser.add_argument("--activations", type=int, default=4000)
    parser.add_argument("--creates", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path)
    parser.add_argument("--route", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", type=int, nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.route == "make":
        make_plan(args.plan, *args.sizes)
        return
    if args.route:
        run_route(args.route, args.plan, args.rounds)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = args.plan or Path(folder) / "plan.json"
        if not path.exists():  # made in a process of its own: a child's peak is its own
            sizes = [str(n) for n in (args.members, args.activations, args.creates)]
            command = [sys.executable, __file__, "--route", "make", "--plan", str(path)]
            subprocess.run([*command, "--sizes", *sizes], env={"PYTHONPATH": str(ROOT)}, check=True)
        items = len(json.loads(path.read_bytes())["changes"])
        print(f"{path}: {items:,} changes, {path.stat().st_size / 2**20:.1f} MiB")
        routes = {"peer (json.load + frames)": ("peer", ROOT), "toolkit": ("toolkit", ROOT)}
        if args.against:
            routes["toolkit before"] = ("toolkit", args.against.resolve())
        print(f"{'route':<26} {'import s':>8} {'first s (cpu)':>14} {'best s (cpu)':>13} MiB")
        for label, (route, tree) in routes.items():
            got = _in_process(route, tree, path, args.rounds)
            (first, first_cpu), (best, best_cpu) = got["first"], got["best"]
            print(
                f"{label:<26} {got['import_s']:8.2f} {first:6.2f} ({first_cpu:5.2f})"
                f" {best:5.2f} ({best_cpu:5.2f}) {got['peak_mib']:.0f}"
                f" ({got['import_mib']:.0f} after import)"
            )


if __name__ == "__main__":
    main()
