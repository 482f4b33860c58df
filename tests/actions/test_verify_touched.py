"""Verifying an apply by reading only what its rehearsal changed, over real HTTP: the demo
sandbox as production, each plan rehearsed on its pull, applied, then verified. The five plans
of ``test_rehearsal`` are verified this way there, beside their full pull's verification."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from interrupting import quiet_then_closed, window_used
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.actions.verify_touched import planned_reads, touched_reads
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client.allowance import PacingEnded
from lyt_toolkit.errors import BudgetExceededError, StoppedError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import (
    CrashingBenefits,
    SimulatedCrash,
    benefit_rows,
    client_with,
    four_kinds_plan,
    pull,
)
from .test_rehearsal import CARD_BUCKETS, _activate, _statuses


def test_a_change_plan_of_four_kinds_reads_what_each_part_wrote_to(
    client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot
) -> None:
    plan, targets = four_kinds_plan(fresh_pulled)
    rehearsal = plan.rehearse(progress=False)
    results = plan.apply(client, progress=False, allow_destroy=True, budget_share=1.0)
    fresh.settle()
    reads = touched_reads(rehearsal)
    assert targets["move_reward_to_draft"] in reads.listed["rewards"]
    assert targets["delete_tier_structure"] in reads.gets["tier_structures"]
    assert reads.names == {targets["create_benefit"]}
    cost = actions.verify_touched_cost(rehearsal, client)
    sent = client.quota.calls_used
    verification = actions.verify_touched(rehearsal, client, results=results)
    assert client.quota.calls_used - sent == cost.needed == reads.calls
    assert verification.ok, verification.problems
    assert verification.checks.equals(rehearsal.verify(pull(client), results=results).checks)


def test_a_change_production_made_to_a_touched_card_after_the_apply_is_different(
    client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot
) -> None:
    plan = _activate(fresh_pulled, CARD_BUCKETS[:1])
    rehearsal = plan.rehearse(fresh_pulled, progress=False)
    results = plan.execute(client, progress=False)
    _activate(fresh_pulled, CARD_BUCKETS[1:2]).execute(client, progress=False)  # someone else
    fresh.settle()
    verification = actions.verify_touched(rehearsal, client, results=results)
    assert not verification.ok
    statuses = _statuses(verification.problems)
    assert statuses[("pending_buckets", CARD_BUCKETS[1], "status")] == "unexpected"
    assert "different" in statuses.values()  # the card's pending points: not as rehearsed
    assert verification.checks.equals(rehearsal.verify(pull(client), results=results).checks)
    # each check of the card names the item writing to it, done as rehearsed: changed since
    card = verification.problems[verification.problems["kind"] == "cards"]
    assert len(card) and set(card["item"]) == {f"activate_pending_bucket {CARD_BUCKETS[0]}"}
    assert set(card["item_outcome"]) == {"succeeded"}


def test_the_log_of_a_run_that_died_tells_each_item_it_left_and_explains_its_changes(
    client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot, tmp_path: Path
) -> None:
    """The run died once its second create was sent, before its answer was logged: read from
    its log (no results frame kept), that item is in doubt and the third not sent, each
    outcome not as rehearsed, and the benefit never created names its item's."""
    plan = actions.create_benefits(benefit_rows("Died", 3))
    rehearsal = plan.rehearse(fresh_pulled, concurrency=1, progress=False)
    log = tmp_path / "run.jsonl"
    crashing = CrashingBenefits(client.benefits, crash_at=2, after_sending=True)
    with pytest.raises(SimulatedCrash):
        plan.execute(client_with(client, benefits=crashing), concurrency=1, log=log, progress=False)
    results = actions.logged_results(rehearsal, log)
    assert list(results["outcome"]) == ["succeeded", "in doubt", "not sent"]
    verification = actions.verify_touched(rehearsal, client, results=results)
    problems = verification.problems.set_index(["change", "key"])
    assert problems.loc[("outcome", "Died 0001"), "actual"] == "in doubt"
    assert problems.loc[("outcome", "Died 0002"), "actual"] == "not sent"
    missing: Any = problems.loc[("added", "Died 0002")]
    assert (missing["status"], missing["item"], missing["item_outcome"]) == (
        "missing",
        "create_benefit Died 0002",
        "not sent",
    )
    assert ("added", "Died 0001") not in problems.index  # sent, made: as rehearsed


def test_a_card_read_holding_no_pending_points_is_not_listed_for_its_buckets(
    client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot
) -> None:
    """Every bucket of the card activated: its member read shows it holding no pending points,
    so the service lists none PENDING and its bucket list is not read, as a pull skips it."""
    plan = _activate(fresh_pulled, CARD_BUCKETS)
    rehearsal = plan.rehearse(fresh_pulled, progress=False)
    results = plan.execute(client, progress=False)
    fresh.settle()
    reads = touched_reads(rehearsal)
    assert len(reads.cards) == 1 and sum(reads.cards.values()) == 1
    sent = client.quota.calls_used
    verification = actions.verify_touched(rehearsal, client, results=results)
    assert client.quota.calls_used - sent == reads.calls - 1  # all but the bucket list
    assert verification.ok, verification.problems
    assert verification.checks.equals(rehearsal.verify(pull(client), results=results).checks)


def test_the_reads_known_before_rehearsing_count_each_member_its_activations_certainly_change(
    fresh_pulled: ProgramSnapshot,
) -> None:
    """Every bucket of the demo activated, some the service refuses (a date gone, a program
    or member not ACTIVE, a card definition of IMMEDIATE points): the reads counted before
    the rehearsal are the read-back's, a member read for each card an activation changed and
    none for a refused one."""
    buckets = fresh_pulled.pending_buckets
    plan = _activate(fresh_pulled, tuple(buckets["id"]))
    rehearsal = plan.rehearse(fresh_pulled, progress=False)
    outcomes = set(rehearsal.results["outcome"].astype(str))
    assert {"succeeded", "failed"} <= outcomes  # both kinds are counted
    planned = planned_reads(fresh_pulled, [plan])
    assert planned == touched_reads(rehearsal)
    assert planned.members


def test_a_change_production_made_elsewhere_is_not_seen_and_the_verification_says_so(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001"])
    rehearsal = plan.rehearse(fresh_pulled, progress=False)
    plan.execute(client, progress=False)
    client.rewards.draft("lrew_c0ffee0002")  # someone else, a reward the plan never touched
    focused = actions.verify_touched(rehearsal, client)
    assert focused.ok and not rehearsal.verify(pull(client)).ok
    assert touched_reads(rehearsal).objects == 1
    assert repr(focused) == (
        "Verification(ok=True, 2 as rehearsed; read only what the rehearsal changed or its"
        " items wrote to (1 object): a change production made to any other object is not seen)"
    )


def test_a_verification_beyond_the_windows_share_is_refused_before_any_read(
    client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot
) -> None:
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001", "lrew_c0ffee0002"])
    rehearsal = plan.rehearse(fresh_pulled, progress=False)
    plan.execute(client, progress=False)
    fresh.set_plan("2/hour")
    client.programs.list(limit=1)  # learns the budget: one call left, the share (half) none
    with pytest.raises(BudgetExceededError, match="paced=True") as refused:
        actions.verify_touched(rehearsal, client)
    assert "verifying against the rehearsal (1 read)" in str(refused.value)
    assert fresh.plan()["used"] == 1  # nothing read for it


@pytest.mark.waits
def test_a_verification_beyond_the_windows_share_paced_reads_the_share_of_each_window(
    running: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """On a running clock 6 s before a minute's end, under 4 calls a minute: the budget read
    (one call) leaves 3, half of them one read; paced, the verification reads that one, waits
    for the reset, then reads the rest."""
    running.set_plan("unlimited")
    with make_client(running) as client:
        before = pull(client)
        plan = actions.delete_tier_structures(["lts_c0ffee0006", "lts_c0ffee0003"])
        rehearsal = plan.rehearse(before, progress=False)
        results = plan.execute(client, progress=False)
        needed = actions.verify_touched_cost(rehearsal, client).needed
        assert needed >= 2
        running.set_clock("2026-01-15T12:00:54Z")
        running.set_plan("4/minute")
        client.programs.list(limit=1)  # learns the budget
        with pytest.raises(BudgetExceededError, match="paced=True"):
            actions.verify_touched(rehearsal, client)
        verification = actions.verify_touched(rehearsal, client, results=results, paced=True)
        window = running.plan()
    assert verification.ok, verification.problems
    assert window["resets_at"] == "2026-01-15T12:02:00.000Z"  # the next minute's window
    first, second = window["cycle_used"] - window["used"], window["used"]
    assert (first, second) == (1 + 1, needed - 1)


@pytest.mark.waits
def test_a_paced_verification_run_again_with_the_plans_log_counts_its_first_run(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """Paced with the plan's log, a verification run again in the window counts what the
    first run read against the same share: of 3n + 1 calls left, a share of (3n + 1) // 2, the
    first run's n reads and the second's first reads fill it and the second waits for the
    reset (without the log it would take half of the 2n + 1 left, n, and go whole)."""
    log = tmp_path / "plan.log.jsonl"
    fresh.set_plan("unlimited")
    with make_client(fresh) as client:
        before = pull(client)
        plan = actions.delete_tier_structures(["lts_c0ffee0006", "lts_c0ffee0003"])
        rehearsal = plan.rehearse(before, progress=False)
        results = plan.execute(client, log=log, progress=False)
        needed = actions.verify_touched_cost(rehearsal, client).needed
        assert needed >= 2
        fresh.set_plan(f"{3 * needed + 2}/hour")
        client.programs.list(limit=1)  # learns the budget: 3n + 1 left
        share = (3 * needed + 1) // 2
        first = actions.verify_touched(rehearsal, client, results=results, paced=True, log=log)
        assert first.ok, first.problems
        assert window_used(fresh) == 1 + needed
        ended: list[BaseException] = []

        def again() -> None:
            try:
                actions.verify_touched(rehearsal, client, results=results, paced=True, log=log)
            except Exception as exc:  # closed while it waits for the reset
                ended.append(exc)

        used = quiet_then_closed(fresh, client, again, 1 + share, quiet=1.5)
    assert used == window_used(fresh) == 1 + share
    assert len(ended) == 1 and isinstance(ended[0], StoppedError | PacingEnded), ended


def test_each_read_of_a_paced_verification_is_counted_in_the_plans_log_before_it_goes_out(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """A paced verification's reads are noted in the plan's log (its window line) before each
    goes out, as an apply's writes are: a run killed (``kill -9``) with reads in flight leaves
    none uncounted by the next. Before, its window line was written once it ended: killed
    mid-way, every read it had sent was counted by no run after it."""
    log = tmp_path / "plan.log.jsonl"
    fresh.set_plan("unlimited")
    with make_client(fresh) as client:
        plan = actions.delete_tier_structures(["lts_c0ffee0006", "lts_c0ffee0003"])
        rehearsal = plan.rehearse(pull(client), progress=False)
        results = plan.execute(client, log=log, progress=False)
    fresh.set_plan("1000/hour")  # its answers name the window
    going: list[tuple[int, int]] = []  # each call's number in the run, the log's count then

    def counted(request: httpx.Request) -> None:
        window = fresh.plan()
        ends = datetime.fromisoformat(window["resets_at"]).timestamp()
        going.append((len(going) + 1, ActionLog(log).earlier(ends, window["limit"]).sent))

    with (
        httpx.Client(event_hooks={"request": [counted]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as hooked,
    ):
        verification = actions.verify_touched(
            rehearsal, hooked, results=results, paced=True, log=log
        )
    assert verification.ok, verification.problems
    reads = going[1:]  # after its token request, the call that names the window
    assert len(reads) == touched_reads(rehearsal).calls >= 2
    assert [(n, logged) for n, logged in reads if logged < n] == []
