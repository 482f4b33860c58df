"""A paced apply of a plan of several parts, with a fresh log: no earlier run sent a call in
its window, so no line of its progress says one did; the calls of its own re-reads and earlier
parts, which each later part counts against the one share, are among the whole apply's calls
sent, not said again as sent earlier in the window (each part's bar said so while its figures
were its own: "9 sent, 10 sent earlier in this window" of a share of 10). Over real HTTP."""

from __future__ import annotations

import re
from pathlib import Path

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveFour, paced_four_kinds


def test_a_paced_apply_never_says_its_own_calls_were_its_earlier_runs(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    results, told = paced_four_kinds(fresh, client, tmp_path, save_four)
    assert results["outcome"].eq("succeeded").all(), results
    assert told.lines
    assert not [line for line in told.lines if "earlier runs" in line], told.lines
    assert not [line for line in told.lines if "sent earlier in this window" in line], told.lines
    assert re.match(r"(\d+) of \1 calls; \1 sent, ", told.lines[-1]), told.lines
