"""A chunked paced apply's progress, over real HTTP: the calls a later chunk's line says were
sent earlier in its window are those another run sent there, not less the apply's own chunks
of a past window; on a terminal the whole apply is one bar, no item bar beside it (an
unpaced apply's parts keep theirs); and a 429 in the middle of it is said in its one set of
lines, nothing lost or sent twice."""

from __future__ import annotations

import contextvars
import io
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from interrupting import PacedLines
from shared_tls import TLS

from lyt_toolkit import _progress
from lyt_toolkit.actions import ActionLog, ChangePlan
from lyt_toolkit.actions.paced import pacing
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.fill.pace_work import paced_work
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveFour

ClientFor = Callable[..., LoyaltyClient]
WRITES = ("POST", "PUT", "PATCH", "DELETE")


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
    says 3 sent earlier in this window. Earlier it said 1 (4 less all 3 of the apply's)."""
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


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The text bars opened from here on, as on a terminal (``LYT_PROGRESS=text``)."""
    bars: list[Any] = []
    text_bar = _progress._tqdm_class("text")

    class Kept(text_bar):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            bars.append(self)

    monkeypatch.setattr(_progress, "_tqdm_class", lambda kind: Kept)
    monkeypatch.setenv(_progress.ENV_VAR, "text")
    return bars


def test_a_chunked_paced_apply_shows_one_bar_on_a_terminal(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, opened: list[Any], save_four: SaveFour
) -> None:
    """Its four parts' chunks each re-read, then write: earlier each opened a bar of its own
    (8 bars named ``paced apply``), and each chunk an item bar of its part beside them; now
    one bar shows the whole apply to its end, its calls counting every write, and nothing
    beside it."""
    path = tmp_path / "plan.json"
    save_four(path)
    fresh.set_plan("1000/hour")
    opened.clear()  # the plan's pull: not the apply's
    results = ChangePlan.load(path).apply(
        client, log=tmp_path / "plan.log.jsonl", progress=True, paced=True, allow_destroy=True
    )
    assert results["outcome"].eq("succeeded").all(), results
    assert [bar.desc for bar in opened] == ["paced apply"]
    assert opened[0].n == opened[0].total > 0  # the whole apply's calls


def test_an_unpaced_apply_still_shows_each_parts_items_on_a_terminal(
    client: LoyaltyClient, tmp_path: Path, opened: list[Any], save_four: SaveFour
) -> None:
    """Not chunked, an apply's parts each show their items' bar, as before."""
    path = tmp_path / "plan.json"
    plan, _ = save_four(path)
    opened.clear()
    ChangePlan.load(path).apply(client, progress=True, allow_destroy=True)
    assert sorted(bar.desc for bar in opened) == sorted(part.action for part in plan.parts)


@pytest.mark.waits
def test_a_429_in_the_middle_of_a_chunked_paced_apply_is_said_and_nothing_is_lost(
    fresh: Sandbox,
    make_client: ClientFor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_four: SaveFour,
) -> None:
    """Once the apply says its second chunk, the service refuses every call (429, Retry-After
    1 s) until the lines say so: they say it in the one work's lines, between its chunks, with
    the refusals counted; each write succeeds, sent once."""
    path = tmp_path / "plan.json"
    with make_client(fresh) as client:
        _, targets = save_four(path)
    fresh.set_plan("1000/hour")
    said = io.StringIO()  # stderr, not a terminal: what the apply's lines said so far
    monkeypatch.setattr(sys, "stderr", said)
    monkeypatch.setenv(_progress.ENV_VAR, "auto")
    faults = {"set": False, "cleared": False}
    written: Counter[str] = Counter()

    def refuse_from_the_second_chunk(request: httpx.Request) -> None:
        if not faults["set"] and "paced apply: chunk 2 " in said.getvalue():
            fresh.set_faults(rate_limit=1.0, retry_after=1)  # this request is refused
            faults["set"] = True
        elif faults["set"] and not faults["cleared"] and "retrying" in said.getvalue():
            fresh.clear_faults()
            faults["cleared"] = True

    def count_written(response: httpx.Response) -> None:
        sent = response.request
        if sent.method in WRITES and response.is_success and sent.url.path != "/oauth/token":
            written[f"{sent.method} {sent.url.path}"] += 1

    hooks: dict[str, list[Callable[..., Any]]] = {
        "request": [refuse_from_the_second_chunk],
        "response": [count_written],
    }
    try:
        with (
            httpx.Client(event_hooks=hooks, verify=TLS) as http,
            make_client(fresh, http_client=http) as client,
            _progress.plain_lines(),
        ):
            results = ChangePlan.load(path).apply(
                client,
                log=tmp_path / "plan.log.jsonl",
                progress=True,
                paced=True,
                allow_destroy=True,
            )
    finally:
        fresh.clear_faults()
    lines = said.getvalue().splitlines()
    assert faults == {"set": True, "cleared": True}, lines
    assert results["outcome"].eq("succeeded").all(), results
    calls = sorted(call for call in targets if call != "card")  # one item each
    assert sorted(results["call"]) == calls
    assert sum(written.values()) == len(calls) and max(written.values()) == 1, written
    assert all(" UTC paced apply: " in line for line in lines), lines
    saying = [line.split(" UTC paced apply: ", 1)[1] for line in lines]
    assert [at for at, line in enumerate(saying) if line.startswith("started")] == [0], lines
    chunk_2 = next(at for at, line in enumerate(saying) if line.startswith("chunk 2 "))
    refused = [
        at
        for at, line in enumerate(saying)
        if line.startswith("refused by the service (429 Too Many Requests), retrying: ")
    ]
    assert refused and refused[0] > chunk_2, lines
    assert " refused (429) and retried" in saying[refused[0]], lines
    assert any(line.startswith("chunk 3 ") for line in saying[refused[0] :]), lines
