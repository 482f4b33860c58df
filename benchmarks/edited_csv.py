"""What reading an edited export and a saved plan costs: ``lyt plan`` / ``lyt apply``'s
reading, step by step, at the demo program's size and a large program's.

    PYTHONPATH=. .venv/bin/python benchmarks/edited_csv.py [--members 20000] [--rounds 5]
        [--exports DIR] [--baseline DIR]

Two exports are made with this tree's toolkit: the demo program pulled from the embedded
sandbox, and a generated program of ``--members`` members (``lyt_toolkit.synthetic``, with
``scale.PULL_SIZES``) pulled from a sandbox (about three minutes at 20,000 members on a
two-core machine; ``--exports DIR`` keeps them there and reuses them next time). Each gets
an edited copy as a spreadsheet saves it (LF line ends, ``1.0`` for ``1``, ``TRUE`` for
``True``, instants with a space and without microseconds or ``Z``), with edits: every
tenth reward moved to DRAFT and ten POINTS benefits added.

A child process (``python -P``, the package tree on ``PYTHONPATH``) then times, in the
main thread's CPU seconds, the median of ``--rounds`` calls of each step:

- ``read_snapshot``: the base export read back (checksums, dtypes, categories);
- ``read_edited_frames``: the edited copy read, every cell by its column's rules;
- ``from_frames``: ``ChangePlan.from_frames`` of those (the plan alone, reads excluded);
- ``save``: ``plan.save``;
- ``load``: ``ChangePlan.load`` of the saved file (every check a plan file gets);
- ``lyt plan``: the whole command, ``lyt plan --offline --base --edited --out``.

``--baseline DIR`` runs the same child from the package tree in ``DIR`` (e.g. ``git archive
main lyt_toolkit | tar -x -C DIR``), the two alternating round by round, prints both with
the ratio (this tree / baseline) and checks the two trees' outputs are the same: the frames
read (cell for cell, dtypes), the plan files (byte for byte) and ``lyt plan``'s output.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOW = "2026-01-15T12:00:00Z"
STEPS = ("read_snapshot", "read_edited_frames", "from_frames", "save", "load", "lyt plan")

CHILD = r"""
import contextlib, hashlib, io, json, sys, time
from pathlib import Path

import pandas as pd

from lyt_toolkit import read_snapshot
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.cli import main as lyt
from lyt_toolkit.reports import read_edited_frames

base, edited, out = (Path(arg) for arg in sys.argv[1:4])
rounds = int(sys.argv[4])
figures, digest = {}, hashlib.sha256()

def step(name, work):
    seconds = []
    for _ in range(rounds):
        started = time.thread_time()
        result = work()
        seconds.append(time.thread_time() - started)
    figures[name] = sorted(seconds)[len(seconds) // 2]
    return result

def frames_digest(frames):
    for kind, frame in frames.items():
        digest.update(f"{kind} {frame.dtypes.to_dict()} {list(frame.index)}".encode())
        digest.update(pd.util.hash_pandas_object(frame.astype(object), index=True).to_numpy())
        digest.update(frame.to_csv(date_format="%Y-%m-%dT%H:%M:%S.%fZ").encode())

snapshot = step("read_snapshot", lambda: read_snapshot(base))
frames_digest(snapshot.frames())
frames = step("read_edited_frames", lambda: read_edited_frames(edited))
frames_digest(frames)
plan = step("from_frames", lambda: ChangePlan.from_frames(snapshot, frames))
path = step("save", lambda: plan.save(out / "plan.json"))
digest.update(path.read_bytes())
loaded = step("load", lambda: ChangePlan.load(path))
digest.update(str(loaded).replace(str(out), "OUT").encode())
words = ["plan", "--offline", "--base", str(base), "--edited", str(edited)]
said = io.StringIO()
def command():
    said.seek(0), said.truncate()
    with contextlib.redirect_stdout(said):
        code = lyt([*words, "--out", str(out / "lyt-plan.json")])
    assert code == 2, code
step("lyt plan", command)
digest.update(said.getvalue().replace(str(out), "OUT").encode())
digest.update((out / "lyt-plan.json").read_bytes())
print(json.dumps({"figures": figures, "outputs": digest.hexdigest(), "changes": len(plan)}))
"""


def export(folder: Path, members: int | None) -> None:
    """The demo program (``members`` None) or a generated one, pulled and exported to
    ``folder/base``; ``folder/edited``, its copy edited and re-saved as a spreadsheet does."""
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    from scale import PULL_SIZES

    from lyt_toolkit import LoyaltyClient, ProgramSnapshot
    from lyt_toolkit.sandbox import Sandbox
    from lyt_toolkit.synthetic import generate_program

    program = None if members is None else generate_program(members=members, seed=1, **PULL_SIZES)
    with (
        Sandbox.start(program, now=NOW, seed=7, plan="unlimited") as sb,
        LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client,
    ):
        snapshot = ProgramSnapshot.pull(client, progress=False)
    snapshot.to_csv(folder / "base")
    shutil.copytree(folder / "base", folder / "edited")
    cards = snapshot.card_definitions["id"].astype(str).tolist()
    for kind, frame in snapshot.frames().items():
        whole = {str(c) for c, dtype in frame.dtypes.items() if dtype == "Int64"}
        _resave(folder / "edited" / f"{kind}.csv", kind, whole, cards)


def _resave(path: Path, kind: str, whole: set[str], cards: list[str]) -> None:
    """``path`` re-saved as a spreadsheet saves it (see the module docstring), with the edits."""
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        header, rows = list(reader.fieldnames or ()), list(reader)
    if kind == "rewards":
        for row in rows[::10]:
            row["status"] = "DRAFT" if row["status"] == "ACTIVE" else row["status"]
    if kind == "benefits":
        new = dict.fromkeys(header, "")
        rows += [
            {**new, "name": f"Bench {n}", "type": "POINTS", "points_value": str(10 + n),
             "card_definition_id": cards[n % len(cards)]}
            for n in range(10)
        ]  # fmt: skip
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, header, lineterminator="\n")
        writer.writeheader()
        writer.writerows({c: _spelled(c, v, whole) for c, v in row.items()} for row in rows)


_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000000Z")


def _spelled(column: str, value: str, whole: set[str]) -> str:
    """``value`` as a spreadsheet spells it."""
    if _INSTANT.fullmatch(value):
        return value.replace("T", " ")[:19]
    if column in whole and value.isdigit():
        return f"{value}.0"
    if value in ("True", "False"):
        return value.upper()
    return value


def run_child(tree: Path, folder: Path, rounds: int) -> dict[str, Any]:
    """One child's figures for the export in ``folder``, importing the package from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory() as out:
        words = [str(folder / "base"), str(folder / "edited"), out, str(rounds)]
        command = [sys.executable, "-P", "-c", CHILD, *words]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{tree}: the child failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--exports", type=Path, help="keep (and reuse) the exports here")
    parser.add_argument("--baseline", type=Path, help="package tree to compare with")
    args = parser.parse_args(argv)

    kept = args.exports or Path(tempfile.mkdtemp(prefix="edited-csv-"))
    sizes = {"demo": None, f"{args.members:,} members": args.members}
    trees = {"this tree": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    try:
        for label, members in sizes.items():
            folder = kept / ("demo" if members is None else f"members-{members}")
            if not (folder / "edited").is_dir():
                shutil.rmtree(folder, ignore_errors=True)
                export(folder, members)
            figures: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
            outputs: dict[str, set[str]] = {name: set() for name in trees}
            for number in range(2):  # two children a tree, alternating
                order = list(trees.items()) if number == 0 else list(trees.items())[::-1]
                for name, tree in order:
                    result = run_child(tree, folder, args.rounds)
                    figures[name].append(result["figures"])
                    outputs[name].add(result["outputs"])
            changes = result["changes"]
            print(f"{label}: {changes:,} changes planned; CPU ms, median of {args.rounds} calls")
            print(f"{'step':20} " + " ".join(f"{name:>10}" for name in trees) + "  ratio")
            for step in STEPS:
                values = {n: statistics.median(f[step] for f in figures[n]) for n in trees}
                line = f"{step:20} " + " ".join(f"{v * 1000:10.1f}" for v in values.values())
                if args.baseline:
                    line += f"  {values['this tree'] / values['baseline']:5.2f}"
                print(line)
            if args.baseline:
                same = len(outputs["this tree"] | outputs["baseline"]) == 1
                print(f"outputs (frames, plan files, lyt plan's): {'same' if same else 'DIFFER'}")
                if not same:
                    return 1
    finally:
        if args.exports is None:
            shutil.rmtree(kept, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
