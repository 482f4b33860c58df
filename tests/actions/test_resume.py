"""An interrupted batch resumes from its log: nothing done twice, nothing lost."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import NoReturn

import httpx
import pytest
from frame_reads import row_of
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.models import BenefitCreate
from lyt_toolkit.sandbox import Sandbox

from .helpers import (
    CREDENTIALS,
    CrashingBenefits,
    SimulatedCrash,
    benefit_rows,
    client_with,
    names_on_server,
)


def _log_outcomes(path: Path) -> Counter:
    return Counter(e["outcome"] for e in ActionLog(path).entries())


@pytest.mark.parametrize("concurrency", [1, 6])
def test_crash_mid_batch_then_resume(
    client: LoyaltyClient, tmp_path: Path, concurrency: int
) -> None:
    log = tmp_path / "batch.jsonl"
    plan = actions.create_benefits(benefit_rows("Resume", 60))
    crashing = CrashingBenefits(client.benefits, crash_at=25)
    with pytest.raises(SimulatedCrash):
        plan.execute(
            client_with(client, benefits=crashing), concurrency=concurrency, log=log, progress=False
        )
    done_before = len(ActionLog(log).state(plan.action).succeeded)
    assert done_before == len(crashing.created) == 24
    assert done_before == len(names_on_server(client, "Resume "))

    results = plan.execute(client, concurrency=concurrency, log=log, progress=False)
    counts = results.outcome.value_counts()
    assert counts["skipped_already_done"] == done_before
    assert counts["succeeded"] == 60 - done_before
    names = names_on_server(client, "Resume ")
    assert sorted(names) == sorted(r["name"] for r in benefit_rows("Resume", 60))
    assert set(results.resource_id) == {
        b.id for b in client.benefits.iter(filters={"name": {"$starts_with": "Resume "}}, limit=100)
    }

    # A third run does nothing at all.
    again = plan.execute(client, log=log, progress=False)
    assert (again.outcome == "skipped_already_done").all()
    assert _log_outcomes(log)["succeeded"] == 60


def test_crash_between_create_and_log_line_resolves_to_exactly_one(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    log = tmp_path / "window.jsonl"
    plan = actions.create_benefits(benefit_rows("Window", 10))
    crashing = CrashingBenefits(client.benefits, crash_at=4, after_sending=True)
    with pytest.raises(SimulatedCrash):
        plan.execute(client_with(client, benefits=crashing), concurrency=1, log=log, progress=False)
    assert crashing.created == ["Window 0000", "Window 0001", "Window 0002", "Window 0003"]
    state = ActionLog(log).state(plan.action)
    assert state.in_doubt("Window 0003") and "Window 0003" not in state.succeeded

    results = plan.execute(client, concurrency=4, log=log, progress=False).set_index("target")
    recovered = row_of(results, "Window 0003")
    assert recovered.outcome == "succeeded" and bool(recovered.recovered)
    assert client.benefits.get(recovered.resource_id).name == "Window 0003"
    assert Counter(names_on_server(client, "Window ")) == Counter(
        r["name"] for r in benefit_rows("Window", 10)
    )
    assert set(Counter(names_on_server(client, "Window ")).values()) == {1}


def test_existing_name_is_not_mistaken_for_our_own(client: LoyaltyClient, tmp_path: Path) -> None:
    """A 409 for an item never attempted (or whose failure was logged) stays a failure."""
    log = tmp_path / "dup.jsonl"
    row = {**benefit_rows("x", 1)[0], "name": "Welcome Bonus 100 Beans"}
    for _ in range(2):
        results = actions.create_benefits([row]).execute(client, log=log, progress=False)
        assert (results.outcome[0], results.status[0], bool(results.recovered[0])) == (
            "failed",
            409,
            False,
        )


def test_in_doubt_item_with_a_different_definition_is_not_claimed(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    log = tmp_path / "other.jsonl"
    ActionLog(log).record("create_benefit", "Welcome Bonus 100 Beans", "attempted")
    row = {**benefit_rows("x", 1)[0], "name": "Welcome Bonus 100 Beans"}
    results = actions.create_benefits([row]).execute(client, log=log, progress=False)
    assert results.outcome[0] == "failed" and results.error_key[0] == "duplicate_found"


def test_resume_with_truncated_log_line(client: LoyaltyClient, tmp_path: Path) -> None:
    log = tmp_path / "cut.jsonl"
    plan = actions.create_benefits(benefit_rows("Cut", 8))
    crashing = CrashingBenefits(client.benefits, crash_at=5, after_sending=True)
    with pytest.raises(SimulatedCrash):
        plan.execute(client_with(client, benefits=crashing), concurrency=1, log=log, progress=False)
    with log.open("a") as handle:  # the dying process left half a line behind
        handle.write(json.dumps({"action": "create_benefit", "target": "Cut 0004"})[:30])
    results = plan.execute(client, concurrency=3, log=log, progress=False)
    assert Counter(results.outcome) == {"skipped_already_done": 4, "succeeded": 4}
    assert len(names_on_server(client, "Cut ")) == 8


def test_preview_with_log_shows_what_will_be_skipped(client: LoyaltyClient, tmp_path: Path) -> None:
    log = tmp_path / "p.jsonl"
    rows = benefit_rows("Preview", 4)
    actions.create_benefits(rows[:2]).execute(client, log=log, progress=False)
    preview = actions.create_benefits(rows).preview(log=log)
    assert list(preview.will) == ["skip (already done)"] * 2 + ["create POINTS benefit (DRAFT)"] * 2


def test_interrupted_deletion_resumes_as_done(client: LoyaltyClient, tmp_path: Path) -> None:
    log = tmp_path / "del.jsonl"
    client.tier_structures.delete("lts_c0ffee0006")  # sent, but the run died before logging
    ActionLog(log).record("delete_tier_structure", "lts_c0ffee0006", "attempted")
    results = actions.delete_tier_structures(["lts_c0ffee0006", "lts_c0ffee0003"]).execute(
        client, log=log, progress=False
    )
    assert list(results.outcome) == ["succeeded", "succeeded"]
    assert list(results.recovered) == [True, False]


def test_interrupted_draft_move_resumes_as_done(client: LoyaltyClient, tmp_path: Path) -> None:
    log = tmp_path / "draft.jsonl"
    client.rewards.draft("lrew_c0ffee0001")
    ActionLog(log).record("move_reward_to_draft", "lrew_c0ffee0001", "attempted")
    results = actions.move_rewards_to_draft(["lrew_c0ffee0001", "lrew_c0ffee0006"]).execute(
        client, log=log, progress=False
    )
    assert list(results.outcome) == ["succeeded", "already_done"]
    assert list(results.recovered) == [True, False]


def test_an_item_in_doubt_is_read_before_it_is_written(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    log = tmp_path / "killed.jsonl"
    moved, not_moved = "lrew_c0ffee0001", "lrew_c0ffee0002"
    plan = actions.move_rewards_to_draft([moved, not_moved])
    sent: list[tuple[str, str]] = []

    def note(request: httpx.Request) -> None:
        if request.url.path.startswith("/v2/loyalties/"):
            sent.append((request.method, request.url.path.rsplit("/", 2)[-1]))

    with (
        httpx.Client(event_hooks={"request": [note]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        client.rewards.draft(moved)  # the killed run's write reached the service
        for target in (moved, not_moved):
            ActionLog(log).record(plan.action, target, "attempted")
        with log.open("a") as handle:  # the outcome line, cut by the kill
            handle.write(json.dumps({"action": plan.action, "target": moved})[:25])
        sent.clear()
        results = plan.execute(client, concurrency=1, log=log, progress=False)
    assert list(results.outcome) == ["succeeded", "succeeded"]
    assert list(results.recovered) == [True, False]
    # each in doubt read back first (a listing by ID), then the one not done written
    assert sent == [("GET", "rewards"), ("GET", "rewards"), ("POST", "draft")]


def test_timeout_after_the_service_created_it_resolves_to_exactly_one(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    from lyt_toolkit.errors import APITimeoutError

    real = client.benefits

    class TimesOut:
        def create(self, body: BenefitCreate) -> NoReturn:
            real.create(body)
            raise APITimeoutError()

    log = tmp_path / "timeout.jsonl"
    plan = actions.create_benefits(benefit_rows("Slow", 3))
    first = plan.execute(client_with(client, benefits=TimesOut()), log=log, progress=False)
    assert set(first.outcome) == {"failed"} and set(first.error_key) == {"api_timeout_error"}
    second = plan.execute(client, log=log, progress=False)
    assert set(second.outcome) == {"succeeded"} and second.recovered.all()
    assert sorted(names_on_server(client, "Slow ")) == ["Slow 0000", "Slow 0001", "Slow 0002"]


def test_a_log_of_another_service_is_refused(
    client: LoyaltyClient,
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    log = tmp_path / "a.jsonl"
    rewards = ["lrew_c0ffee0001", "lrew_c0ffee0002"]
    plan = actions.move_rewards_to_draft(rewards)
    assert set(plan.execute(client, log=log, progress=False).outcome) == {"succeeded"}
    with start_sandbox(credentials=CREDENTIALS) as other, make_client(other) as elsewhere:
        for attempt in (
            lambda: plan.preview(elsewhere, log=log),
            lambda: plan.execute(elsewhere, log=log, progress=False),
        ):
            with pytest.raises(ValueError, match="belongs to") as refused:
                attempt()
            assert str(log) in str(refused.value)
            assert client.base_url in str(refused.value) and other.base_url in str(refused.value)
        assert {elsewhere.rewards.get(r).status for r in rewards} == {"ACTIVE"}
    again = plan.execute(client, log=log, progress=False)
    assert set(again.outcome) == {"skipped_already_done"}
