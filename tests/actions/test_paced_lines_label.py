"""A paced apply of a plan of several parts, with a fresh log: no earlier run sent a call in
its window, so no line of its progress says one did; the calls of its own re-reads and earlier
parts, which each later part counts against the one share, are among the whole apply's calls
sent, not said again as sent earlier in the window (each part's bar said so while its figures
were its own: "9 sent, 10 sent earlier in this window" of a share of 10). Over real HTTP."""

from __future__ import annotations

import re
from pathlib import Path

from interrupting import PacedLines

from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveFour


def test_a_paced_apply_never_says_its_own_calls_were_its_earlier_runs(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)
    fresh.set_plan("1000/hour")
    told = PacedLines()
    results = ChangePlan.load(path).apply(
        client, log=tmp_path / "plan.log.jsonl", progress=told, paced=True, allow_destroy=True
    )
    assert results["outcome"].eq("succeeded").all(), results
    assert told.lines
    assert not [line for line in told.lines if "earlier runs" in line], told.lines
    assert not [line for line in told.lines if "sent earlier in this window" in line], told.lines
    assert re.match(r"(\d+) of \1 calls; \1 sent, ", told.lines[-1]), told.lines
