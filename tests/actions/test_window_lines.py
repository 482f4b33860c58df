"""A paced run's log says what it spent of a window once for that window, not once a call:
each write's ``attempted`` line already counts it. Counted over real HTTP, the writes spread
over several of the run's seconds (each answer held back a quarter of a second)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from interrupting import window_used
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

ROWS = 14
CARD = "lcdef_c0ffee0001"


def _windows(log: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    return [line for line in lines if line.get("log") == "lyt-action-window/1"]


def test_a_paced_run_writes_one_window_line_for_its_window_and_is_counted_whole(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    fresh.set_plan("1000/hour")  # the plan fits its share: one window
    rows = [
        {
            "name": f"Lined {i:02d}",
            "type": "POINTS",
            "points": {"value": 1, "card_definition_id": CARD},
        }
        for i in range(ROWS)
    ]
    plan = actions.create_benefits(rows)
    log = tmp_path / "lined.jsonl"

    def slowly(response: httpx.Response) -> None:
        time.sleep(0.25)  # the run lasts several of its once-a-second notes

    with (
        httpx.Client(event_hooks={"response": [slowly]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = plan.execute(client, log=log, progress=False, paced=True, concurrency=1)
    assert results["outcome"].eq("succeeded").all()
    windows = _windows(log)
    assert len(windows) == 1, windows  # before: one more a second the run sent a call in
    # What a run resumed in the window counts: every call the sandbox counted (token included).
    ends, limit = windows[0]["ends"], windows[0]["limit"]
    assert isinstance(ends, float | int) and (limit is None or isinstance(limit, int))
    assert ActionLog(log).earlier(ends, limit).sent == window_used(fresh) == 1 + ROWS
    last = ActionLog(log).last_window()
    assert last is not None and last.sent == 1 + ROWS
