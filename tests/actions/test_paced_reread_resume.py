"""A paced apply stopped in its re-read (Ctrl-C) takes it up where it stopped, over real HTTP:
each card's bucket list read before the stop is kept beside the log and not read again; the
re-read ended, nothing is kept; a kept read older than ``KEPT_FOR`` is read again."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.kept_reads import KEPT_FOR
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveOne, bucket_lists, stopped_in_re_read

pytestmark = pytest.mark.usefixtures("professional")

STOP_AT = 3
"""The bucket list the Ctrl-C comes at (before it is sent): two were read."""


def test_a_paced_apply_stopped_in_its_re_read_reads_only_the_rest_next_run(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """Earlier, the run after a Ctrl-C in a paced re-read read every card again: at 20,000
    members, up to 1,000 bucket lists of a 1,000-activation plan, a fifth of a window."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    cards = len(save_one(path))
    assert cards > STOP_AT
    sent = stopped_in_re_read(fresh, make_client, path, log, STOP_AT)
    assert not any(r.method == "POST" and "/activate" in r.url.path for r in sent)

    sent.clear()
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = ChangePlan.load(path).apply(client, log=log, progress=False, paced=True)
    assert results["outcome"].eq("succeeded").sum() == cards, results.drop(
        columns=["call"]
    ).to_string()
    assert bucket_lists(sent) == cards - (STOP_AT - 1)  # the cards not read before the stop
    assert not log.with_name(log.name + ".reread.jsonl").exists()  # ended: none kept


def test_a_kept_re_read_older_than_an_hour_is_read_again_not_applied_as_fresh(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """Earlier a kept read had no age: a paced re-read stopped, then run again days later, took
    the rows it read then for the live state, and wrote over whatever changed since unseen."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    cards = len(save_one(path))
    sent = stopped_in_re_read(fresh, make_client, path, log, STOP_AT)
    kept = log.with_name(log.name + ".reread.jsonl")
    lines = [json.loads(line) for line in kept.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == STOP_AT - 1
    two_hours_ago = time.time() - 2 * KEPT_FOR
    kept.write_text("".join(json.dumps({**line, "at": two_hours_ago}) + "\n" for line in lines))

    sent.clear()
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = ChangePlan.load(path).apply(client, log=log, progress=False, paced=True)
    assert results["outcome"].eq("succeeded").sum() == cards
    assert bucket_lists(sent) == cards  # every card read again: none kept too long taken up
