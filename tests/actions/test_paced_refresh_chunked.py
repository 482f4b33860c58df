"""A paced ``--refresh`` re-plans a chunk of writes at a time from the rows it just read,
over real HTTP: stopped and run again in each window (as a scheduled job runs it), it
writes in every window its share holds a chunk's read and write, and sends each write once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fixture_types import LytProcess
from interrupting import ctrl_c_once_quiet

from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.log import log_state
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import bucket_lists, save_one_bucket_a_card

pytestmark = pytest.mark.usefixtures("lyt_to_fresh")

SHARE = 3
"""The calls of a window at ``--budget-share 0.3`` of 10 an hour: a run's token, then one
card's bucket list and its activation (a chunk of one write)."""


def _activated(path: Path, log: Path) -> set[str]:
    """The buckets the log shows activated by the plan at ``path``."""
    plan = ChangePlan.load(path)
    return set(log_state(plan._bound(log), plan.parts[0].action).succeeded)


def test_a_paced_refresh_run_again_in_each_window_writes_in_each(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    lyt_process: LytProcess,
    tmp_path: Path,
) -> None:
    """On main a paced refresh re-read every object left before its first write and kept
    none of those reads once its re-read ended: stopped in each window once it waits for
    the next, every run spent its share on its token and 2 bucket lists and none wrote."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.json.log.jsonl"  # lyt's default log
    with make_client(fresh) as client:
        chosen = save_one_bucket_a_card(client, path)
        last = str(ChangePlan.load(path).parts[0].items[-1].target)  # in the last chunk
        other = chosen[chosen["id"] == last].iloc[0]  # activated by someone else since
        client.pending_buckets.activate(other.program_id, other.member_id, other.card_id, last)
    fresh.settle()
    cards = len(chosen)
    assert cards > 3
    fresh.set_plan("10/hour")
    argv = ["apply", str(path), "--paced", "--refresh", "--ignore-unsupported"]
    written = []
    for window in range(2):  # a chunk a window: its share spent, it waits for the next
        run = lyt_process(fresh, tmp_path, *argv, "--budget-share", "0.3")
        counted, _ = ctrl_c_once_quiet(fresh, run, SHARE, quiet=0.5)
        assert counted == SHARE and run.returncode == 130
        written.append(len(_activated(path, log)))
        fresh.set_clock(f"2026-01-15T{13 + window:02d}:00:00Z")  # the next window
    assert written == [1, 2]  # a write in each window, from the first

    fresh.set_plan("professional")  # the rest in one run: the cost its re-read
    sent: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [sent.append]}) as http,
        make_client(fresh, http_client=http) as client,
    ):
        loaded = ChangePlan.load(path)
        loaded.check_apply(client, log=log, paced=True, refresh=True)  # its token first
        reads = loaded.reread_cost(client, log=log, paced=True, refresh=True).needed
        loaded.apply(
            client, log=log, progress=False, paced=True, refresh=True, ignore_unsupported=True
        )
    assert reads == bucket_lists(sent) == cards - 2
    assert _activated(path, log) == set(chosen["id"]) - {last}  # each sent once
    assert sum(r.url.path.endswith("/activate") for r in sent) == cards - 3
