"""A plan against the call budget, over real HTTP: counted in the preview, refused when it
cannot finish, finished exactly on a budget equal to its cost, stopped and resumed."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from other_traffic import spend
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import BudgetExceededError, QuotaExhaustedError
from lyt_toolkit.sandbox import Sandbox

from .helpers import benefit_rows, names_on_server

LEARN = 2
"""Calls a fresh client spends learning the budget: its token request and one read."""


def learned(client: LoyaltyClient) -> int:
    """Make ``client`` read the budget (a token and one read); returns what remains."""
    client.programs.list(limit=1)
    assert client.quota.remaining is not None
    return client.quota.remaining


def test_preview_counts_each_rows_calls_and_sums_them(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    fresh.set_plan("50/hour")
    plan = actions.create_benefits([*benefit_rows("Preview", 3), {"name": ""}])
    # One read at a time: answers overtaking each other could leave the count a call off.
    preview = plan.preview(client, concurrency=1, progress=False)
    assert preview["calls"].tolist() == [1, 1, 1, 0]
    cost = preview.attrs["cost"]
    # The preview's reads brought the token, so the plan needs its three writes only.
    assert cost.needed == 3 and cost.limit == 50
    assert cost.remaining == 50 - fresh.plan()["used"]
    assert preview.attrs["summary"] == str(cost)
    assert "calls needed: 3; remaining this window:" in str(cost) and "resets at" in str(cost)


def test_a_fresh_clients_plan_counts_its_token_request(client: LoyaltyClient) -> None:
    plan = actions.create_benefits(benefit_rows("Token", 2))
    assert plan.cost(client).needed == 3
    client.programs.list(limit=1)  # brings the token
    assert plan.cost(client).needed == 2


@pytest.mark.parametrize("concurrency", [1, 8])
def test_a_300_item_plan_on_a_budget_equal_to_its_cost_finishes_with_no_429(
    client: LoyaltyClient, fresh: Sandbox, concurrency: int
) -> None:
    plan = actions.create_benefits(benefit_rows("Exact", 300))
    fresh.set_plan(f"{300 + LEARN}/hour")
    assert learned(client) == 300 == plan.cost(client).needed
    # With 8 in flight, answers overtake each other: the client's count may run low until
    # they are in (it waits for them), never high, so the last call is neither lost nor refused.
    results = plan.execute(client, concurrency=concurrency, progress=False, budget_share=1.0)
    assert (results["outcome"] == "succeeded").all()
    # Any 429 would have raised: the window resets an hour away on the sandbox's fixed clock.
    assert client.quota.remaining == 0 and client.quota.type is None
    assert fresh.plan()["used"] == 300 + LEARN
    assert len(names_on_server_after_reset(client, fresh, "Exact")) == 300


def names_on_server_after_reset(client: LoyaltyClient, sb: Sandbox, prefix: str) -> list[str]:
    sb.set_plan("unlimited")
    with LoyaltyClient(config=client.config) as reader:
        return names_on_server(reader, prefix)


def test_a_plan_keeps_half_the_window_for_the_projects_other_traffic_unless_told(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    plan = actions.create_benefits(benefit_rows("Half", 6))
    fresh.set_plan(f"{10 + LEARN}/hour")
    assert learned(client) == 10
    assert not plan.cost(client).fits and plan.cost(client).shortfall == 1  # 6 of 5
    assert "this plan's share (0.5): 5; 1 call short" in str(plan.cost(client))
    with pytest.raises(BudgetExceededError) as raised:
        plan.execute(client, progress=False)
    assert raised.value.share == 0.5 and (raised.value.needed, raised.value.remaining) == (6, 10)
    assert "its share (0.5) of the call budget left this window is 5 (10 of 12 left; 1 short)" in (
        str(raised.value)
    )
    assert "pass budget_share=1.0 to let it take the window's whole budget" in str(raised.value)
    assert "Run it after the reset" in str(raised.value)  # a whole window's share holds 6
    assert fresh.plan()["used"] == LEARN  # nothing was sent
    results = plan.execute(client, progress=False, budget_share=0.6)
    assert (results["outcome"] == "succeeded").all() and client.quota.remaining == 4


def test_a_plan_no_window_s_share_holds_is_not_told_to_run_after_the_reset(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    """8 calls at half of a 12-call window: after the reset its share is 6, refused again.
    (On 20,000 members, a saved plan of 5,114 calls under the professional plan's 5,000 an
    hour was told to run after the reset, where only a paced run could do it.)"""
    plan = actions.create_benefits(benefit_rows("Beyond", 8))
    fresh.set_plan(f"{10 + LEARN}/hour")
    learned(client)
    with pytest.raises(BudgetExceededError) as raised:
        plan.execute(client, progress=False)
    refusal = str(raised.value)
    assert "Run it after the reset" not in refusal
    assert refusal.split("UTC. ")[1] == (
        "No window's share holds it either (6 of 12 at 0.5). Pass budget_share=1.0 to let it"
        " take the window's whole budget, or pass allow_partial=True to send what fits and"
        " resume from the log after the reset, or pass paced=True to send its share of every"
        " window, waiting for each reset, until it is done (resumable from its log)"
    )
    assert fresh.plan()["used"] == LEARN  # nothing was sent


def test_a_partial_run_sends_only_what_fits_its_share_and_the_rest_later(
    client: LoyaltyClient, fresh: Sandbox, tmp_path: Path
) -> None:
    plan = actions.create_benefits(benefit_rows("Partial", 10))
    log = tmp_path / "partial.jsonl"
    fresh.set_plan(f"{10 + LEARN}/hour")
    assert learned(client) == 10
    results = plan.execute(client, log=log, allow_partial=True, progress=False)
    assert results["outcome"].tolist() == ["succeeded"] * 5 + ["cancelled"] * 5
    assert "beyond the plan's share" in str(results["message"].iloc[-1])
    assert fresh.plan()["used"] == LEARN + 5 and client.quota.remaining == 5
    again = plan.execute(client, log=log, progress=False, budget_share=1.0)  # the other 5
    assert again["outcome"].tolist() == ["skipped_already_done"] * 5 + ["succeeded"] * 5
    assert len(names_on_server_after_reset(client, fresh, "Partial")) == 10


def test_a_preview_refuses_a_bad_budget_share_before_reading(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    fresh.set_plan("40/hour")
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001", "lrew_c0ffee0002"])
    with pytest.raises(ValueError, match="budget_share"):
        plan.preview(client, budget_share=2, progress=False)
    assert fresh.plan()["used"] == 0


def test_a_preview_keeps_its_reads_to_its_share_of_the_window(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    plan = actions.create_benefits(benefit_rows("Look", 120))  # 10 names a read: 12 reads
    fresh.set_plan(f"{20 + LEARN - 1}/hour")  # the token, then 20 left: 10 at the share
    with pytest.raises(BudgetExceededError, match=r"the create_benefit preview \(12 reads\)"):
        plan.preview(client, progress=False)
    assert fresh.plan()["used"] == 1  # the token that told the budget, no read
    preview = plan.preview(client, progress=False, budget_share=1.0)
    assert (preview["calls"] == 1).all() and fresh.plan()["used"] == 1 + 12


def test_a_budget_one_call_short_is_refused_before_the_first_call(
    client: LoyaltyClient, fresh: Sandbox, tmp_path: Path
) -> None:
    plan = actions.create_benefits(benefit_rows("Short", 5))
    fresh.set_plan(f"{5 + LEARN - 1}/hour")
    learned(client)
    with pytest.raises(BudgetExceededError) as raised:
        plan.execute(client, log=tmp_path / "short.jsonl", progress=False, budget_share=1.0)
    error = raised.value
    assert (error.needed, error.remaining, error.limit) == (5, 4, 5 + LEARN - 1)
    assert error.resets_at is not None
    assert "needs 5 calls" in str(error) and "4 of 6 left" in str(error) and "1 short" in str(error)
    assert fresh.plan()["used"] == LEARN  # nothing was sent
    assert (
        not (tmp_path / "short.jsonl").exists() or not ActionLog(tmp_path / "short.jsonl").entries()
    )


def _stopped_by_the_budget(
    client: LoyaltyClient,
    fresh: Sandbox,
    log: Path,
    name: str,
    count: int,
    *,
    calls: int,
    concurrency: int,
) -> tuple[actions.CreateBenefits, QuotaExhaustedError]:
    """A plan creating ``count`` benefits named ``name``, run with ``concurrency`` and ``log``
    on a budget of ``calls`` once ``client`` learned it: the budget stops it, and no item is
    left in doubt. The plan, and the error that stopped it."""
    plan = actions.create_benefits(benefit_rows(name, count))
    fresh.set_plan(f"{calls + LEARN}/hour")
    learned(client)
    with pytest.raises(QuotaExhaustedError) as raised:
        plan.execute(
            client,
            log=log,
            allow_partial=True,
            concurrency=concurrency,
            progress=False,
            budget_share=1.0,  # the whole window: the service's refusal stops it
        )
    state = ActionLog(log).state(plan.action)
    assert not any(state.in_doubt(item.target) for item in plan.items)
    return plan, raised.value


def test_a_plan_stopped_by_the_budget_resumes_after_the_reset_each_item_done_once(
    client: LoyaltyClient,
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    log = tmp_path / "stopped.jsonl"
    plan, stopped = _stopped_by_the_budget(
        client, fresh, log, "Stopped", 10, calls=6, concurrency=1
    )
    assert "run execute again with the same log after the reset" in "".join(
        getattr(stopped, "__notes__", [])
    )
    assert len(ActionLog(log).state(plan.action).succeeded) == 6
    assert fresh.plan()["used"] == 6 + LEARN

    fresh.advance_clock(3600)  # the window resets on the sandbox's clock
    with make_client(fresh) as later:  # a client started after the reset
        assert plan.cost(later, log=log).needed == 4 + 1  # the rest, and its token
        results = plan.execute(later, log=log, progress=False, budget_share=1.0)
    assert results["outcome"].value_counts().to_dict() == {
        "succeeded": 4,
        "skipped_already_done": 6,
        "failed": 0,
        "invalid": 0,
        "already_done": 0,
        "cancelled": 0,
    }
    names = names_on_server_after_reset(client, fresh, "Stopped")
    assert sorted(names) == sorted(row["name"] for row in benefit_rows("Stopped", 10))


def test_a_concurrent_run_stopped_by_the_budget_loses_and_repeats_nothing(
    client: LoyaltyClient,
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    log = tmp_path / "concurrent.jsonl"
    plan, _ = _stopped_by_the_budget(client, fresh, log, "Concurrent", 20, calls=12, concurrency=4)
    created = fresh.plan()["used"] - LEARN  # every counted call was one item's write
    assert 0 < len(ActionLog(log).state(plan.action).succeeded) == created <= 12

    fresh.advance_clock(3600)
    with make_client(fresh) as later:
        results = plan.execute(later, log=log, progress=False, budget_share=1.0)
    assert (results["outcome"] == "succeeded").sum() == 20 - created
    names = names_on_server_after_reset(client, fresh, "Concurrent")
    assert sorted(names) == sorted(row["name"] for row in benefit_rows("Concurrent", 20))


@pytest.mark.parametrize("concurrency", [1, 8])
def test_a_batch_keeps_to_its_share_of_what_other_traffic_leaves_and_the_rest_runs_later(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    concurrency: int,
) -> None:
    """The batch's client last read 298 of 300 left; another client of the project then
    spends 113, and 40 more once the batch has sent 20 items: 145 were really left for the
    batch, and it sends half of them at most, not half of the 298 it had read."""
    fresh.set_plan("300/hour")
    plan = actions.create_benefits(benefit_rows("Shared", 200))
    log = tmp_path / "shared.jsonl"
    writes = itertools.count(1)
    lock = threading.Lock()

    def other_traffic_meanwhile(request: httpx.Request) -> None:
        if request.method == "POST":
            with lock:
                if next(writes) == 20:
                    spend(other, 40)

    with (
        make_client(fresh) as other,
        httpx.Client(event_hooks={"request": [other_traffic_meanwhile]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        assert learned(client) == 300 - LEARN
        spend(other, 113)
        results = plan.execute(
            client, log=log, allow_partial=True, concurrency=concurrency, progress=False
        )
    really_left = 300 - LEARN - 113 - 40
    sent = fresh.plan()["used"] - LEARN - 113 - 40
    outcomes = results["outcome"].value_counts().to_dict()
    assert outcomes["succeeded"] == sent and outcomes["cancelled"] == 200 - sent
    # Half of what was really left (with 8 in flight, up to half of those more: a call in
    # flight is taken as counted), never half of the 298 read.
    assert really_left // 2 == 72 <= sent <= really_left // 2 + concurrency // 2
    if concurrency == 1:
        assert sent == 72
    cancelled = results[results["outcome"] == "cancelled"]
    assert (cancelled["message"].str.contains("beyond the plan's share")).all()

    fresh.set_plan("300/hour")  # a new window
    with make_client(fresh) as later:
        again = plan.execute(later, log=log, progress=False)  # 128 fit half of 300
        assert later.quota.calls_used == 1 + 200 - sent  # its token, and the cancelled items
    assert (again["outcome"] == "succeeded").sum() == 200 - sent
    assert (again["outcome"] == "skipped_already_done").sum() == sent
    names = names_on_server_after_reset(later, fresh, "Shared")
    assert sorted(names) == sorted(row["name"] for row in benefit_rows("Shared", 200))


def test_a_batch_on_a_plan_without_rate_headers_refuses_nothing_whatever_others_spend(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    fresh.set_plan("unlimited")
    plan = actions.create_benefits(benefit_rows("Unlimited", 30))
    with make_client(fresh) as other, make_client(fresh) as client:
        client.programs.list(limit=1)
        spend(other, 50)
        results = plan.execute(client, concurrency=4, progress=False)
        assert client.quota.remaining is None  # no answer told the budget
    assert (results["outcome"] == "succeeded").all()


def test_a_plan_after_the_plan_changed_is_refused_before_the_first_call(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    fresh.set_plan("professional")
    assert learned(client) == 5000 - LEARN
    fresh.set_plan("30/minute")  # the next answer carries the new limit
    assert learned(client) == 29
    plan = actions.create_benefits(benefit_rows("Changed", 30))
    with pytest.raises(BudgetExceededError) as raised:
        plan.execute(client, progress=False)
    assert (raised.value.needed, raised.value.remaining, raised.value.limit) == (30, 29, 30)
    assert fresh.plan()["used"] == 1  # nothing was sent


@pytest.mark.waits
def test_past_the_reset_a_plan_runs_on_the_refilled_budget(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    fresh.set_clock("2026-01-15T12:00:58Z")  # the window ends 2 s away on the sandbox clock
    fresh.set_plan("3/minute")
    learned(client)
    client.programs.list(limit=1)  # the budget is spent
    assert client.quota.remaining == 0
    left = client.quota.seconds_to_reset()
    assert left is not None
    fresh.advance_clock(2)  # the sandbox's fixed clock crosses into the next window
    time.sleep(left)  # and this machine's clock passes the reset the client read
    plan = actions.create_benefits(benefit_rows("Refilled", 1))
    assert plan.cost(client).fits
    results = plan.execute(client, progress=False)
    assert results["outcome"].tolist() == ["succeeded"]
    assert fresh.plan()["used"] == 1


def test_a_client_that_has_read_no_budget_learns_it_from_its_token_before_refusing(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    plan = actions.create_benefits(benefit_rows("Unknown", 5))
    fresh.set_plan("5/hour")  # the token and 5 writes would need 6
    assert client.quota.remaining is None  # nothing read yet: the budget is unknown
    with pytest.raises(BudgetExceededError) as raised:
        plan.execute(client, progress=False)
    assert (raised.value.needed, raised.value.remaining) == (5, 4)
    assert fresh.plan()["used"] == 1  # the token request, whose answer told the budget
    assert names_on_server_after_reset(client, fresh, "Unknown") == []
