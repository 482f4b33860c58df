"""A saved plan's apply with a long-lived action log: what reading the log costs it.

    .venv/bin/python benchmarks/long_log.py [--lines 200000]

The bundled demo is served by a sandbox and pulled; a plan activating one future pending
bucket a card (4 on the demo) is saved. It is applied twice, each time on a reset sandbox:
with a new log, then with a log already holding ``lines`` item lines of earlier applies (a
plan line of another plan file every 1,000 lines, as many applies write). Printed for each:
the apply's seconds, how many times it read the whole log (``ActionLog._read`` from its
start; the apply reads it once, then only the lines appended since: ``reading_once``) and
the seconds of ``ActionLog.begin_plan`` (the apply's and its execute's).

``--lines 200000`` on the shared 2-core machine (load about 5), one after the other: before
(e2190a5) 0.28 s with a new log and 23.00 s with the long one, 16 whole-log reads (begin_plan
2.60 s); since, 0.20 s and 2.36 s, 1 whole-log read (begin_plan 0.17 s: its fsync of the lines
written unsynced just before, no read).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lyt_toolkit.actions import ActionLog, ChangePlan  # noqa: E402
from lyt_toolkit.actions.log import PLAN, LogOwner  # noqa: E402
from lyt_toolkit.client import LoyaltyClient  # noqa: E402
from lyt_toolkit.sandbox import Sandbox  # noqa: E402
from tests.actions.helpers import one_bucket_a_card, pull  # noqa: E402

_seen = {"reads": 0, "begin_plan": 0.0}
_read, _begin_plan = ActionLog._read, ActionLog.begin_plan


def _counted(
    self: ActionLog, start: int, file: tuple[int, int] | None, add: Callable[[dict[str, Any]], None]
) -> Any:
    _seen["reads"] += start == 0
    return _read(self, start, file, add)


def _timed(self: ActionLog) -> None:
    started = time.perf_counter()
    _begin_plan(self)
    _seen["begin_plan"] += time.perf_counter() - started


def _earlier_lines(log: Path, lines: int) -> None:
    with log.open("a", encoding="utf-8") as file:
        for i in range(lines):
            if i % 1000 == 0:
                file.write(json.dumps({"log": PLAN, "plan": f"{i // 1000:064x}"}) + "\n")
            line = {
                "time": "2026-01-15T12:00:00.000Z",
                "action": "activate_pending_bucket",
                "target": f"lcrd_{i:010d}/lbkt_{i:010d}",
                "outcome": "succeeded",
                "status": 200,
                "error_key": None,
                "message": None,
                "request_id": f"req_{i:012d}",
                "resource_id": None,
            }
            file.write(json.dumps(line) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    args = parser.parse_args()
    ActionLog._read = _counted  # type: ignore[method-assign]
    ActionLog.begin_plan = _timed  # type: ignore[method-assign]
    with Sandbox.start() as sb, tempfile.TemporaryDirectory() as tmp:
        for lines in (0, args.lines):
            sb.reset()
            folder = Path(tmp) / str(lines)
            folder.mkdir()
            plan, log = folder / "plan.json", folder / "plan.log.jsonl"
            kwargs = sb.credentials.as_client_kwargs()
            with LoyaltyClient(base_url=sb.base_url, env_file=None, **kwargs) as client:
                one_bucket_a_card(pull(client))[0].save(plan)
                client.fetch_token()  # names the sandbox's state, for the log's owner line
                ActionLog(log).claim(LogOwner.of(client))
                _earlier_lines(log, lines)
                _seen.update(reads=0, begin_plan=0.0)
                started = time.perf_counter()
                results = ChangePlan.load(plan).apply(client, log=log, progress=False)
                took = time.perf_counter() - started
            done = int(results["outcome"].eq("succeeded").sum())
            print(
                f"{lines:>7} earlier lines: apply {took:.2f} s ({done} succeeded),"
                f" {_seen['reads']} whole-log reads, begin_plan {_seen['begin_plan']:.2f} s"
            )


if __name__ == "__main__":
    main()
