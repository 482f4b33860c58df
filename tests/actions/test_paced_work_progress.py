"""A chunked paced apply's progress, over real HTTP: the calls a later chunk's line says were
sent earlier in its window are those another run sent there, not less the apply's own chunks
of a past window; on a terminal the whole apply is one bar."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from interrupting import PacedLines

from lyt_toolkit import _progress
from lyt_toolkit.actions import ActionLog, ChangePlan
from lyt_toolkit.actions.paced import pacing
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.fill.pace_work import paced_work
from lyt_toolkit.sandbox import Sandbox

from .helpers import save_four_kinds

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


def test_a_chunked_paced_apply_shows_one_bar_on_a_terminal(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its four parts' chunks each re-read, then write: on main each opened a bar of its own
    (8 bars named ``paced apply``); now one shows the whole apply to its end."""
    path = tmp_path / "plan.json"
    save_four_kinds(client, path)
    fresh.set_plan("1000/hour")
    opened: list[Any] = []
    text_bar = _progress._tqdm_class("text")

    class Kept(text_bar):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            opened.append(self)

    monkeypatch.setattr(_progress, "_tqdm_class", lambda kind: Kept)
    monkeypatch.setenv(_progress.ENV_VAR, "text")  # as on a terminal
    results = ChangePlan.load(path).apply(
        client, log=tmp_path / "plan.log.jsonl", progress=True, paced=True, allow_destroy=True
    )
    assert results["outcome"].eq("succeeded").all(), results
    bars = [bar for bar in opened if bar.desc == "paced apply"]
    assert len(bars) == 1, [bar.desc for bar in opened]
    assert bars[0].n == bars[0].total > 0  # the whole apply's calls
