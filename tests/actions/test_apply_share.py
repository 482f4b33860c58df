"""An unpaced change-plan apply keeps, from its first call to its last, to the share of the
call budget its check promised, over real HTTP: other traffic spending the window while it
runs stops it at that share (the re-read and every part counted together), the rest reported
not sent, and a second apply after the reset finishes it without repeating a write; so does the
project's plan lowered between its parts (a part is not refused alone for the window)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pandas as pd
import pytest
from other_traffic import spend
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import bonuses_then_drafts, first_id, names_on_server, pull

CREATES = 60
OTHERS = 200
"""Calls another client of the project spends once the apply has sent ``AFTER`` writes."""
AFTER = 20


def _bonuses_and_a_draft(client: LoyaltyClient) -> tuple[ChangePlan, str]:
    """A plan creating ``CREATES`` benefits, then moving an ACTIVE reward to DRAFT (two
    parts); the reward."""
    base = pull(client)
    edit = actions.edit(base)
    card = str(base.card_definitions["id"].iloc[0])
    added = pd.DataFrame(
        [
            {
                "name": f"Share {i:02d}",
                "type": "POINTS",
                "points_value": 5,
                "card_definition_id": card,
            }
            for i in range(CREATES)
        ]
    )
    edit.benefits = pd.concat([edit.benefits, added], ignore_index=True)
    reward = first_id(base.rewards, status="ACTIVE")
    edit.rewards.loc[edit.rewards["id"] == reward, "status"] = "DRAFT"
    return edit.plan(), reward


@pytest.mark.parametrize("saved", [False, True], ids=["change-plan", "saved-plan"])
def test_an_unpaced_apply_stops_at_its_share_when_other_traffic_spends_the_window(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    saved: bool,
) -> None:
    """Earlier the check held the plan to half of the calls left, then every part ran at the
    whole window: another client spending 200 of 300 mid-run, the apply still sent every call
    (61; 69 with the saved plan's re-read), past half of what the window held for it (48)."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    with make_client(fresh) as client:
        plan, reward = _bonuses_and_a_draft(client)
        plan.save(path)
    fresh.set_plan("300/hour")
    writes = 0
    lock = threading.Lock()

    def other_traffic_meanwhile(request: httpx.Request) -> None:
        nonlocal writes
        if request.method == "POST":
            with lock:
                writes += 1
                if writes == AFTER:
                    spend(other, OTHERS)

    with (
        make_client(fresh) as other,
        httpx.Client(event_hooks={"request": [other_traffic_meanwhile]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        other.programs.list(limit=1)  # its token: spent before the apply starts
        client.programs.list(limit=1)  # the budget read: the apply's check holds the plan
        left = client.quota.remaining
        before = client.quota.calls_used
        applying = ChangePlan.load(path) if saved else plan
        results = applying.apply(client, log=log, concurrency=1, progress=False)
        sent = client.quota.calls_used - before
    assert left is not None
    assert fresh.plan()["used"] == 300 - left + sent + OTHERS
    assert sent <= (left - OTHERS) // 2  # half of what the window held for it, no more
    created = results[(results["call"] == "create_benefit") & (results["outcome"] == "succeeded")]
    assert 0 < len(created) < CREATES
    not_sent = results[results["outcome"] == "cancelled"]
    assert len(not_sent) == CREATES - len(created) + 1  # the reward's part not sent either
    assert not_sent["message"].str.contains("beyond the plan's share").all()
    assert (results["outcome"].isin(["succeeded", "cancelled"])).all()

    fresh.set_plan("300/hour")  # a new window
    posts: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [posts.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as later,
    ):
        again = (ChangePlan.load(path) if saved else plan).apply(later, log=log, progress=False)
    creates = [r for r in posts if r.method == "POST" and r.url.path.endswith("/benefits")]
    assert len(creates) == CREATES - len(created)  # each write once
    assert (again["outcome"] == "skipped_already_done").sum() == len(created)
    assert (again["outcome"] == "succeeded").sum() == CREATES - len(created) + 1
    fresh.set_plan("unlimited")
    with make_client(fresh) as reader:
        names = names_on_server(reader, "Share ")
        assert reader.rewards.get(reward).status == "DRAFT"
    assert sorted(names) == [f"Share {i:02d}" for i in range(CREATES)]


def test_lyt_apply_keeps_to_its_share_when_retries_spend_the_window(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Earlier ``lyt apply`` checked its plan (133 calls) against half of the 298 left, then
    sent what the sandbox's 429s (of no budget) took in retries: 188 calls, well past the 149
    promised. Now it stops at the share, and a second ``lyt apply`` finishes the plan."""
    path = tmp_path / "plan.json"
    with make_client(fresh) as client:
        base = pull(client)
    edit = actions.edit(base)
    card = str(base.card_definitions["id"].iloc[0])
    rows = [
        {
            "name": f"Retried {i:03d}",
            "type": "POINTS",
            "points_value": 5,
            "card_definition_id": card,
        }
        for i in range(120)
    ]
    edit.benefits = pd.concat([edit.benefits, pd.DataFrame(rows)], ignore_index=True)
    edit.plan().save(path)
    configure_lyt(fresh)
    fresh.set_plan("300/hour")
    fresh.set_faults(rate_limit=0.3, retry_after=0, seed=1)
    assert main(["apply", str(path)]) != 0
    out, err = capsys.readouterr()
    found = re.search(r"(\d+) left in this window", out)
    assert found is not None, out
    left = int(found[1])  # after lyt's check (its token)
    # Half of what was left, a few more at most (half its 8 calls in flight: see test_budget).
    assert fresh.plan()["used"] - (300 - left) <= left // 2 + 4, out
    assert " cancelled" in out and "run again to resume" in err, (out, err)
    assert "(--budget-share)" in out and "budget_share" not in out, out  # the terminal's option

    fresh.clear_faults()
    fresh.set_plan("300/hour")  # a new window
    assert main(["apply", str(path)]) == 0, capsys.readouterr()
    fresh.set_plan("unlimited")
    with make_client(fresh) as reader:
        names = names_on_server(reader, "Retried ")
    assert sorted(names) == [row["name"] for row in rows]  # each created once


def test_a_re_read_that_spends_the_share_sends_no_write_and_the_next_apply_does_them(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """Earlier the re-read and the writes ran at the whole window once the check passed: other
    traffic leaving the apply 5 calls of the window, the re-read read on until the window was
    spent (``QuotaExhaustedError``): the project's window taken to zero."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    with make_client(fresh) as client:
        plan, reward = _bonuses_and_a_draft(client)
        plan.save(path)
    fresh.set_plan("300/hour")
    sent: list[httpx.Request] = []

    def other_traffic_in_the_re_read(request: httpx.Request) -> None:
        sent.append(request)
        if sum(r.method == "GET" for r in sent) == 2:
            spend(other, 290)

    with (
        make_client(fresh) as other,
        httpx.Client(event_hooks={"request": [other_traffic_in_the_re_read]}, verify=TLS) as http,
        make_client(fresh, http_client=http, max_wait=0) as client,
    ):
        other.programs.list(limit=1)
        results = ChangePlan.load(path).apply(client, log=log, concurrency=1, progress=False)
    assert not [r for r in sent if r.method != "GET" and "oauth" not in r.url.path]  # no write
    assert (results["outcome"] == "cancelled").all()
    assert results["message"].str.contains("beyond the plan's share").all()
    assert not ChangePlan.load(path).applied_before()

    fresh.set_plan("300/hour")  # a new window
    with make_client(fresh) as later:
        again = ChangePlan.load(path).apply(later, log=log, progress=False)
    assert (again["outcome"] == "succeeded").all()
    fresh.set_plan("unlimited")
    with make_client(fresh) as reader:
        assert sorted(names_on_server(reader, "Share ")) == [
            f"Share {i:02d}" for i in range(CREATES)
        ]
        assert reader.rewards.get(reward).status == "DRAFT"


BONUSES = 3
FALLEN_TO = "100/hour"
LEFT = 20
"""What the window has left for the apply once the plan fell to ``FALLEN_TO`` and another
client spent the rest: fewer than the second part's writes."""


@pytest.mark.parametrize("saved", [False, True], ids=["change-plan", "saved-plan"])
def test_an_unpaced_apply_whose_budget_falls_between_parts_sends_its_share_of_the_rest(
    fresh_pulled: ProgramSnapshot,
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    saved: bool,
) -> None:
    """The project's plan lowered as the apply's first part ends, another client spending most
    of the new window: the second part sends what the apply's share of the window still holds,
    its other items ``cancelled`` as beyond it (the one met logged so), and a run again after
    the reset sends exactly them. Earlier the second part, checked alone against the whole
    window, raised ``BudgetExceededError`` out of ``apply`` ("the move_reward_to_draft plan
    (25 items) not started", offering ``allow_partial=True``, which an apply does not take):
    the first part's results lost, the share of what the window held unused."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    plan, drafts = bonuses_then_drafts(fresh_pulled, BONUSES, "Fallen")
    plan.save(path)
    fresh.set_plan("1000/hour")
    creates = 0

    def plan_lowered_at_the_last_create(request: httpx.Request) -> None:
        nonlocal creates
        if request.method == "POST" and request.url.path.endswith("/benefits"):
            creates += 1
            if creates == BONUSES:
                fresh.set_plan(FALLEN_TO)
                spend(other, 100 - LEFT)

    with (
        make_client(fresh) as other,
        httpx.Client(
            event_hooks={"request": [plan_lowered_at_the_last_create]}, verify=TLS
        ) as http,
        make_client(fresh, http_client=http) as client,
    ):
        other.programs.list(limit=1)  # its token: spent before the apply starts
        applying = ChangePlan.load(path) if saved else plan
        results = applying.apply(client, log=log, concurrency=1, progress=False)
        refusals = client.quota.refusals
    # The apply's calls in the lowered window (its last create among them): half of the LEFT.
    assert fresh.plan()["used"] - (100 - LEFT) <= LEFT // 2
    assert refusals == 0
    outcomes = results.groupby(["call", "outcome"]).size().to_dict()
    made = outcomes.get(("move_reward_to_draft", "succeeded"), 0)
    assert outcomes.get(("create_benefit", "succeeded")) == BONUSES
    assert 0 < made < len(drafts)
    assert outcomes.get(("move_reward_to_draft", "cancelled")) == len(drafts) - made
    not_sent = results[results["outcome"] == "cancelled"]
    assert not_sent["message"].str.contains("beyond the plan's share").all()

    fresh.set_plan(FALLEN_TO)  # a new window
    posts: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [posts.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as later,
    ):
        again = (ChangePlan.load(path) if saved else plan).apply(later, log=log, progress=False)
    writes = [r for r in posts if r.method == "POST" and "oauth" not in r.url.path]
    assert len(writes) == len(drafts) - made  # exactly the rest
    assert (again["outcome"] == "skipped_already_done").sum() == BONUSES + made
    fresh.set_plan("unlimited")
    with make_client(fresh) as reader:
        assert sorted(names_on_server(reader, "Fallen ")) == [f"Fallen {i}" for i in range(BONUSES)]
        statuses = {reward.id: reward.status for reward in reader.rewards.iter(limit=100)}
    assert {statuses[reward] for reward in drafts} == {"DRAFT"}
