"""A chunked paced apply's progress, over real HTTP: the calls a later chunk's line says were
sent earlier in its window are those another run sent there, not less the apply's own chunks
of a past window."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from pathlib import Path

from interrupting import PacedLines

from lyt_toolkit.actions import ActionLog
from lyt_toolkit.actions.paced import pacing
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.fill.pace_work import paced_work
from lyt_toolkit.sandbox import Sandbox

ClientFor = Callable[..., LoyaltyClient]


def _another_run(client: LoyaltyClient, log: ActionLog) -> None:
    """Another run of the plan: 3 calls paced, noted in its log."""
    with pacing(client, log, 0.5, lambda: 0, False, "re-read"):
        for _ in range(3):
            client.rewards.list()


def test_a_later_chunk_says_what_another_run_sent_in_its_window(
    fresh: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    """The apply's first chunk sent 2 calls in a past window, its second 1 in this one, and
    another run of the plan 3 more here (the log's window line says 4): the next chunk's line
    says 3 sent earlier in this window. On main it said 1 (4 less all 3 of the apply's)."""
    fresh.set_plan("1000/minute")  # the fixed clock: the window ends at 12:01
    path = tmp_path / "plan.log.jsonl"
    told = PacedLines()
    with (
        make_client(fresh) as client,
        make_client(fresh) as other,
        ActionLog(path) as log,
        ActionLog(path) as others_log,
    ):
        client.rewards.list()  # its token, before the apply
        other.rewards.list()
        with paced_work(client, "paced apply", lambda: 10):
            with pacing(client, log, 0.5, lambda: 0, False, "re-read"):
                client.rewards.list()
                client.rewards.list()
            fresh.set_clock("2026-01-15T12:01:00Z")  # the next window
            other.rewards.list()  # it hears of the window
            with pacing(client, log, 0.5, lambda: 0, False, "re-read"):
                client.rewards.list()
            contextvars.Context().run(_another_run, other, others_log)  # not of this work
            with pacing(client, log, 0.5, lambda: 0, told, "re-read"):
                pass
    assert told.lines
    assert "3 sent, 3 sent earlier in this window, " in told.lines[-1], told.lines
