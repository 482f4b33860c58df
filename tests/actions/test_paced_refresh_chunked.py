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
from shared_tls import TLS

from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.edited_frames import EditError
from lyt_toolkit.actions.log import log_state
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveOne, activations, applied_until_waiting, bucket_lists

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
    save_one: SaveOne,
) -> None:
    """Earlier a paced refresh re-read every object left before its first write and kept
    none of those reads once its re-read ended: stopped in each window once it waits for
    the next, every run spent its share on its token and 2 bucket lists and none wrote."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.json.log.jsonl"  # lyt's default log
    with make_client(fresh) as client:
        chosen = save_one(path)
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
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
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


def test_a_paced_refresh_refuses_an_unsupported_change_at_its_chunk_and_keeps_its_rows(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """The chunks before the one holding a change the live rows no longer allow are written;
    that one is refused, unsent, its rows kept for the refresh with ``ignore_unsupported``,
    which reads none of them again and sends each write left once. Earlier the refresh read
    every card first and was refused before any write."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    with make_client(fresh) as client:
        chosen = save_one(path)
        gone = str(ChangePlan.load(path).parts[0].items[2].target)  # in the second chunk
        row = chosen[chosen["id"] == gone].iloc[0]  # activated by someone else since
        client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, gone)
    fresh.settle()
    cards = len(chosen)
    assert cards == 4  # two chunks of two at 5 calls a window: its token, 2 reads, 2 writes
    fresh.set_plan("10/hour")
    with make_client(fresh) as client:
        first = applied_until_waiting(fresh, client, path, log, refresh=True)
    assert first is not None and first["outcome"].eq("succeeded").sum() == 2
    fresh.set_clock("2026-01-15T13:00:00Z")  # the next window
    sent: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
        pytest.raises(EditError, match="ignore_unsupported=True"),
    ):
        applied_until_waiting(fresh, client, path, log, refresh=True)
    assert bucket_lists(sent) == 2 and activations(sent) == 0  # the chunk read, unsent

    fresh.set_plan("professional")  # the rest in one run
    sent.clear()
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        loaded = ChangePlan.load(path)
        loaded.check_apply(client, log=log, paced=True, refresh=True)  # its token first
        assert loaded.reread_cost(client, log=log, paced=True, refresh=True).needed == 0
        results = loaded.apply(
            client, log=log, progress=False, paced=True, refresh=True, ignore_unsupported=True
        )
    assert bucket_lists(sent) == 0 and activations(sent) == 1  # the rows kept, the write left
    assert set(results.loc[results["outcome"] == "succeeded", "target"]) == {
        str(ChangePlan.load(path).parts[0].items[3].target)
    }
    assert _activated(path, log) == set(chosen["id"]) - {gone}
