"""An analyst's saved-plan loop on a stale plan, and a paced apply stopped in its re-read,
counted in the sandbox's calls.

    .venv/bin/python benchmarks/stale_apply.py [--members 20000] [--writes 1000]
        [--stale 10] [--second refresh|refreshed|paced-stop] [--stop-after 600] [--paced]

A program of ``members`` members is generated (``lyt_toolkit.synthetic``), served by a sandbox
standing for production and pulled whole (no budget yet). The plan activates ``writes``
pending buckets dated in the future, one a card, and is saved. Then the professional plan
(5,000 calls an hour) is put in force and ``stale`` of those buckets are activated by someone
else, so the plan is stale. ``lyt apply PLAN --sha256 HEX`` runs (refused: stale), then the
second step:

- ``refresh``: ``lyt apply PLAN --sha256 HEX --refresh`` (re-plans from the rows the
  refusal read, kept beside the log, ``kept_reads``; refused when the plan made again holds
  changes the service cannot make, such as buckets activated meanwhile, then run again with
  ``--ignore-unsupported``, from the same rows);
- ``refreshed``: the command the refusal names, ``lyt apply PLAN.refreshed.json --sha256
  HEX2`` (the re-planned file it wrote).

``--paced`` runs the first step and ``refresh`` with ``--paced``.

``paced-stop`` instead leaves the plan fresh (``--stale 0``): ``lyt apply PLAN --sha256 HEX
--paced`` is stopped with SIGINT (Ctrl-C) once ``stop-after`` calls of its re-read went out,
then run again to the end.

Each step's calls are read from ``sb.plan()["used"]`` before and after it. ``lyt`` runs as a
process of this interpreter, with this ``PYTHONPATH`` (so one script measures either tree).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from scale import PULL_SIZES

from lyt_toolkit import LoyaltyClient, ProgramSnapshot, actions
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

NOW = "2026-01-15T12:00:00Z"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=20_000)
    parser.add_argument("--writes", type=int, default=1000)
    parser.add_argument("--stale", type=int, default=10)
    parser.add_argument(
        "--second", choices=("refresh", "refreshed", "paced-stop"), default="refreshed"
    )
    parser.add_argument("--stop-after", type=int, default=600)
    parser.add_argument("--paced", action="store_true")
    args = parser.parse_args()
    program = generate_program(members=args.members, seed=1, **PULL_SIZES)
    with (
        Sandbox.start(program, now=NOW, seed=7) as sb,
        LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client,
        tempfile.TemporaryDirectory() as folder,
    ):
        sb.set_plan("unlimited")
        base = ProgramSnapshot.pull(client, progress=False)
        path = Path(folder) / "plan.json"
        chosen = saved_activations(base, args.writes, path)
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        stale = 0 if args.second == "paced-stop" else args.stale
        stale_rows: Iterable[Any] = chosen.head(stale).itertuples()  # fields typed as any cell
        for row in stale_rows:
            client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, row.id)
        sb.settle()
        sb.set_plan("professional")
        env = {
            **os.environ,
            "LYT_PROGRESS": "off",
            "LYT_BASE_URL": sb.base_url,
            **{f"LYT_{k.upper()}": str(v) for k, v in sb.credentials.as_client_kwargs().items()},
        }

        def lyt(*words: str) -> tuple[int, str, int]:
            used = sb.plan()["used"]
            done = subprocess.run(
                [sys.executable, "-m", "lyt_toolkit.cli", "apply", *words, "--budget-share", "1"],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            return done.returncode, done.stdout + done.stderr, sb.plan()["used"] - used

        print(f"plan: {len(chosen)} activations, {stale} made stale; {sb.plan()['limit']}/h")
        if args.second == "paced-stop":
            stopped = _stopped(sb, env, folder, [str(path), "--sha256", sha], args.stop_after)
            print(f"1. lyt apply PLAN --sha256 --paced, Ctrl-C: {stopped} calls")
            code, text, calls = lyt(str(path), "--sha256", sha, "--paced")
            print(f"2. the same command again: exit {code}, {calls} calls")
            print("\n".join(line for line in text.splitlines() if line.startswith("Applied")))
            return
        paced = ["--paced"] if args.paced else []
        code, text, calls = lyt(str(path), "--sha256", sha, *paced)
        print(f"1. lyt apply PLAN --sha256 {' '.join(paced)}: exit {code}, {calls} calls")
        if args.second == "refresh":
            code, text, second = lyt(str(path), "--sha256", sha, "--refresh", *paced)
            if code == 1 and "--ignore-unsupported" in text:  # refused after its re-read
                print(f"2a. --refresh: exit {code}, {second} calls (unsupported changes)")
                code, text, more = lyt(
                    str(path), "--sha256", sha, "--refresh", "--ignore-unsupported", *paced
                )
                second += more
        else:
            named = re.search(
                r"lyt apply (\S+refreshed\S*) --sha256 ([0-9a-f]{64})((?: --[a-z-]+)*)", text
            )
            if named is None:
                sys.exit(f"the refusal names no re-planned file:\n{text}")
            code, text, second = lyt(named[1], "--sha256", named[2], *named[3].split())
        print(f"2. {args.second}: exit {code}, {second} calls")
        print("\n".join(line for line in text.splitlines() if line.startswith(("Applied", "lyt"))))
        print(f"total: {calls + second} calls")


def _stopped(sb: Sandbox, env: dict[str, str], folder: str, words: list[str], after: int) -> int:
    """``lyt apply WORDS --paced`` stopped with SIGINT once ``after`` of its calls went out;
    the calls it sent in all."""
    used = sb.plan()["used"]
    run = subprocess.Popen(
        [sys.executable, "-m", "lyt_toolkit.cli", "apply", *words, "--paced"],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while sb.plan()["used"] - used < after and run.poll() is None:
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)
    run.wait()
    return sb.plan()["used"] - used


def saved_activations(base: ProgramSnapshot, writes: int, path: Path) -> pd.DataFrame:
    """A plan activating ``writes`` pending buckets of ``base`` dated after its pull (one a
    card), saved to ``path``; the buckets chosen."""
    buckets = base.pending_buckets
    future = buckets[buckets["date"] > base.pulled_at].drop_duplicates("card_id")
    chosen = future.head(writes)
    edit = actions.edit(base)
    edit.pending_buckets.loc[edit.pending_buckets["id"].isin(chosen["id"]), "status"] = "ACTIVATED"
    edit.plan().save(path)
    return chosen


if __name__ == "__main__":
    main()
