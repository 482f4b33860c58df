"""Rehearsals over real HTTP: a plan run on a sandbox holding a snapshot of "production"
(the directory's sandbox), then the same plan run there, then verified change by change."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from frame_reads import records

from lyt_toolkit import actions
from lyt_toolkit.actions.rehearsal import (
    _CANCELED,
    _UNLISTED,
    _UNSURE,
    CHECKS,
    Rehearsal,
    _unlisted,
)
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import LytError, RehearsalSnapshotError
from lyt_toolkit.frames.members import PENDING_BUCKETS
from lyt_toolkit.frames.sample import Sample
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.services import programs as sandbox_programs
from lyt_toolkit.snapshot import ProgramSnapshot, read_snapshot

from .helpers import benefit_rows, pull

Plan = actions.ActionPlan[Any]

BUCKETS = ("lcppb_c0ffee0001", "lcppb_c0ffee0002", "lcppb_c0ffee0003")
"""Two activatable buckets and one dated in the past (423 in both places)."""


def _buckets(snapshot: ProgramSnapshot) -> pd.DataFrame:
    frame = snapshot.pending_buckets
    return frame[frame.id.isin(BUCKETS)].rename(columns={"id": "bucket_id"})


PLANS: dict[str, Callable[[ProgramSnapshot], Plan]] = {
    "create benefits": lambda _: actions.create_benefits(benefit_rows("Rehearsed", 3)),
    "move rewards to draft": lambda _: actions.move_rewards_to_draft(
        ["lrew_c0ffee0001", "lrew_c0ffee0002", "lrew_c0ffee0006"]
    ),
    "activate pending buckets": lambda s: actions.activate_pending_buckets(_buckets(s)),
    "delete tier structures": lambda _: actions.delete_tier_structures(
        ["lts_c0ffee0006", "lts_c0ffee0003"]
    ),
    "delete webhooks": lambda _: actions.delete_webhooks(
        [("proj_NwMain01", "wh_NwMainLoyalty01"), ("proj_NwStage01", "wh_NwStageAll01")]
    ),
}


def _rehearsed(before: ProgramSnapshot, plan: Plan) -> tuple[ProgramSnapshot, Rehearsal]:
    return before, plan.rehearse(before, concurrency=4, progress=False)


def _statuses(checks: pd.DataFrame) -> dict[tuple[str, str, Any], str]:
    return {
        (r.kind, r.key, None if pd.isna(r.column) else r.column): r.status for r in records(checks)
    }


@pytest.mark.parametrize("name", list(PLANS))
def test_production_does_what_was_rehearsed_and_reading_only_what_it_touched_agrees(
    name: str, client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot
) -> None:
    """Each plan rehearsed, run on production, then verified by a full pull and by reading
    only what the rehearsal changed (``verify_touched``, sending the calls its cost
    announced): both agree. One run of each plan serves both verifications (until
    2026-12-06 two tests ran the same five plans, one for each)."""
    before = fresh_pulled
    plan = PLANS[name](before)
    rehearsal = plan.rehearse(before, concurrency=4, progress=False)
    assert rehearsal.results.outcome.isin(["succeeded", "already_done", "failed"]).all()
    assert (rehearsal.results.outcome == "succeeded").any()

    results = plan.execute(client, concurrency=4, progress=False)
    after = pull(client)
    verification = rehearsal.verify(after, results=results)

    assert verification.ok, verification.problems
    checks = verification.checks
    assert list(checks.columns) == CHECKS.names and checks.dtypes.to_dict() == CHECKS.dtypes
    outcomes = checks[checks.change == "outcome"]
    assert list(outcomes.key) == sorted(results.target)  # every item compared
    data = checks[checks.change != "outcome"]
    assert len(data) == len(rehearsal.diff) == len(before.diff(after))
    if name != "delete webhooks":  # a snapshot holds no webhooks: only outcomes to compare
        assert len(rehearsal.diff) > 0
    pd.testing.assert_series_equal(rehearsal.results.outcome, results.outcome, check_names=False)

    fresh.settle()
    cost = actions.verify_touched_cost(rehearsal, client)
    sent = client.quota.calls_used
    touched = actions.verify_touched(rehearsal, client, results=results)
    assert client.quota.calls_used - sent == cost.needed
    assert touched.ok, touched.problems
    assert touched.checks.equals(checks)
    assert verification.scope is None and touched.scope is not None


def test_created_objects_match_by_name_not_id(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    plan = actions.create_benefits(benefit_rows("Named", 2))
    before, rehearsal = _rehearsed(fresh_pulled, plan)
    plan.execute(client, progress=False)
    after = pull(client)
    rehearsed_ids = set(rehearsal.after.benefits.id) - set(before.benefits.id)
    real_ids = set(after.benefits.id) - set(before.benefits.id)
    assert len(real_ids) == 2 and rehearsed_ids.isdisjoint(real_ids)
    checks = rehearsal.verify(after).checks
    assert list(checks.key) == ["Named 0000", "Named 0001"]
    assert (checks.status == "as rehearsed").all()
    assert not checks.expected.str.contains('"id"|created_at').any()


def test_what_someone_else_changed_in_between_is_named(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001"])
    _, rehearsal = _rehearsed(fresh_pulled, plan)
    client.rewards.draft("lrew_c0ffee0002")  # someone else, after the snapshot
    plan.execute(client, progress=False)
    verification = rehearsal.verify(pull(client))
    assert not verification.ok and not bool(verification)
    problems = verification.problems
    assert _statuses(problems) == {
        ("rewards", "lrew_c0ffee0002", "status"): "unexpected",
        ("reward_costs", "lrew_c0ffee0002/lrcst_c0ffee0002/0", "reward_status"): "unexpected",
    }
    assert problems.expected.isna().all() and set(problems.actual) == {"DRAFT"}
    assert repr(verification) == "Verification(ok=False, 2 as rehearsed, 2 unexpected)"


def test_a_name_taken_first_with_other_settings_is_different(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    rows = benefit_rows("Contested", 2)
    plan = actions.create_benefits(rows)
    _, rehearsal = _rehearsed(fresh_pulled, plan)
    other = {**rows[1], "points": {**rows[1]["points"], "value": 999}}
    actions.create_benefits([other]).execute(client, progress=False)  # someone else, first
    results = plan.execute(client, progress=False)
    assert list(results.outcome) == ["succeeded", "failed"]
    verification = rehearsal.verify(pull(client), results=results)
    assert _statuses(verification.problems) == {
        ("benefits", "Contested 0001", "points_value"): "different",
        ("create_benefit", "Contested 0001", "outcome"): "different",
    }
    benefit, outcome = records(verification.problems)
    assert benefit.column == "points_value"  # the field production holds otherwise
    assert '"points_value": 11' in benefit.expected and '"points_value": 999' in benefit.actual
    assert outcome.expected == "succeeded" and outcome.actual == "failed 409 duplicate_found"


def test_changes_production_did_not_make_are_missing(
    client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot
) -> None:
    before = fresh_pulled
    plan = actions.activate_pending_buckets(_buckets(before))
    rehearsal = plan.rehearse(before, progress=False)
    fresh.advance_clock(400 * 86400)  # the real run comes too late: every date has passed
    results = plan.execute(client, progress=False)
    assert set(results.outcome) == {"failed"}
    problems = rehearsal.verify(pull(client)).problems
    assert set(problems.status) == {"missing"}
    assert {("pending_buckets", b, "status") for b in BUCKETS[:2]} <= set(_statuses(problems))
    assert problems.actual.isna().all()


CARD = ("lprg_c0ffee0001", "lmbr_c0ffee0004", "lcrd_c0ffee000a")
"""A card whose every bucket (``CARD_BUCKETS``) is PENDING and activatable."""

CARD_BUCKETS = ("lcppb_c0ffee000e", "lcppb_c0ffee000f", "lcppb_c0ffee0010", "lcppb_c0ffee0011")
"""The card's buckets, 40 to 160 days ahead: once all are activated the card holds no pending
points, so a pull no longer lists them."""

CARD_KEY = "lmbr_c0ffee0004/lcrd_c0ffee000a"


def _activate(snapshot: ProgramSnapshot, buckets: tuple[str, ...]) -> Plan:
    frame = snapshot.pending_buckets
    return actions.activate_pending_buckets(
        frame[frame.id.isin(buckets)].rename(columns={"id": "bucket_id"})
    )


def _settled(client: LoyaltyClient, pending_points: int, path: tuple[str, str, str] = CARD) -> None:
    """Wait until the card's activations have settled (they do shortly after their answer)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        member = client.members.get(*path[:2])
        card = next(c.card for c in member.cards if c.card is not None and c.card.id == path[2])
        if card.balance.pending_points == pending_points:
            return
        time.sleep(0.05)
    raise AssertionError("the activations never settled")


def test_a_rehearsal_pulls_its_activations_settled(
    fresh_pulled: ProgramSnapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Activations left to settle by themselves never would: the rehearsal must settle them.
    monkeypatch.setattr(sandbox_programs, "settle_later", lambda *_: None)
    before = fresh_pulled
    rehearsal = _activate(before, CARD_BUCKETS).rehearse(before, progress=False)
    assert set(rehearsal.results.outcome) == {"succeeded"}
    cards = rehearsal.after.cards.drop_duplicates("id").set_index("id")
    assert cards.loc[CARD[2], "balance_pending_points"] == 0
    listed = rehearsal.after.pending_buckets
    assert not listed[listed.id.isin(CARD_BUCKETS)].status.eq("PENDING").any()


def test_activating_every_bucket_of_a_card_is_as_rehearsed(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    # lcppb_c0ffee0007 is the one PENDING bucket of a card also holding a CANCELED one (000c)
    activated = (*CARD_BUCKETS, "lcppb_c0ffee0007")
    before = fresh_pulled
    plan = _activate(before, activated)
    rehearsal = plan.rehearse(before, progress=False)
    results = plan.execute(client, progress=False)
    _settled(client, 0)
    after = pull(client)
    assert not after.pending_buckets.id.isin([*activated, "lcppb_c0ffee000c"]).any()  # unlisted
    verification = rehearsal.verify(after, results=results)
    assert verification.ok, verification.problems
    statuses = _statuses(verification.checks)
    assert {statuses[("pending_buckets", b, "status")] for b in activated} == {"as rehearsed"}
    assert "lcppb_c0ffee000c" not in set(verification.checks.key)  # not PENDING: no change


def test_of_a_card_s_buckets_only_the_one_that_failed_is_reported(
    client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot
) -> None:
    before = fresh_pulled
    plan = _activate(before, CARD_BUCKETS)
    rehearsal = plan.rehearse(before, progress=False)
    assert set(rehearsal.results.outcome) == {"succeeded"}
    fresh.advance_clock(50 * 86400)  # the first bucket's date (40 days ahead) has passed
    results = plan.execute(client, progress=False)
    assert list(results.outcome) == ["failed", "succeeded", "succeeded", "succeeded"]
    _settled(client, 800)
    verification = rehearsal.verify(pull(client), results=results)
    assert _statuses(verification.problems) == {
        ("pending_buckets", "lcppb_c0ffee000e", "status"): "missing",
        ("activate_pending_bucket", "lcppb_c0ffee000e", "outcome"): "different",
        ("cards", CARD_KEY, "balance_points"): "different",
        ("cards", CARD_KEY, "balance_pending_points"): "different",
    }
    statuses = _statuses(verification.checks)
    assert {statuses[("pending_buckets", b, "status")] for b in CARD_BUCKETS[1:]} == {
        "as rehearsed"
    }


def test_buckets_activated_on_a_card_production_no_longer_lists_are_as_rehearsed(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    before = fresh_pulled
    plan = _activate(before, CARD_BUCKETS[:3])
    rehearsal = plan.rehearse(before, progress=False)
    client.pending_buckets.activate(*CARD, CARD_BUCKETS[3])  # someone else, after the snapshot
    results = plan.execute(client, progress=False)
    _settled(client, 0)
    verification = rehearsal.verify(pull(client), results=results)
    assert _statuses(verification.problems) == {
        ("pending_buckets", "lcppb_c0ffee0011", "status"): "unexpected",
        ("cards", CARD_KEY, "balance_points"): "different",
        ("cards", CARD_KEY, "balance_pending_points"): "different",
    }
    statuses = _statuses(verification.checks)
    assert {statuses[("pending_buckets", b, "status")] for b in CARD_BUCKETS[:3]} == {
        "as rehearsed"
    }


CANCELED_CARD = ("lmbr_c0ffee0002", "lcrd_c0ffee0003")
"""A card holding one PENDING bucket (lcppb_c0ffee0007, 80 points) and one CANCELED
(lcppb_c0ffee000c, 25 points, counted in the card's canceled pending points)."""


def _before_the_cancel(snapshot: ProgramSnapshot) -> ProgramSnapshot:
    """``snapshot`` as a pull before lcppb_c0ffee000c was canceled would have seen it:
    listed PENDING, its points still pending on the card and not yet counted canceled."""
    frames = snapshot.frames()
    listed = frames["pending_buckets"]
    assert "lcppb_c0ffee000c" not in set(listed.id)  # CANCELED: the service does not list it
    canceled = listed[listed.id == "lcppb_c0ffee0007"].assign(
        id="lcppb_c0ffee000c", points_total=25
    )
    buckets = PENDING_BUCKETS.conform(pd.concat([listed, canceled], ignore_index=True))
    cards = frames["cards"].copy()
    card = (cards.member_id == CANCELED_CARD[0]) & (cards.id == CANCELED_CARD[1])
    cards.loc[card, ["balance_pending_points", "lifetime_pending_canceled"]] = [105, 0]
    frames.update(pending_buckets=buckets, cards=cards)
    return ProgramSnapshot.from_frames(
        frames, source=snapshot.source, pulled_at=snapshot.pulled_at.isoformat()
    )


def test_a_bucket_canceled_before_the_run_is_reported_not_counted_activated(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    before = _before_the_cancel(fresh_pulled)
    buckets = ("lcppb_c0ffee0007", "lcppb_c0ffee000c")
    plan = _activate(before, buckets)
    rehearsal = plan.rehearse(before, progress=False)
    assert set(rehearsal.results.outcome) == {"succeeded"}
    results = plan.execute(client, progress=False)  # 000c was canceled meanwhile: 423
    # read back, 000c is no longer listed: as an activated bucket is (verify tells them apart)
    assert list(results.outcome) == ["succeeded", "already_done"]
    assert "activated or canceled" in results.message.iloc[1]
    _settled(client, 0, ("lprg_c0ffee0001", *CANCELED_CARD))
    after = pull(client)
    assert not after.pending_buckets.id.isin(buckets).any()  # the card holds none: unlisted

    for given in (None, results):
        statuses = _statuses(rehearsal.verify(after, results=given).checks)
        assert statuses[("pending_buckets", "lcppb_c0ffee0007", "status")] == "as rehearsed"
        assert statuses[("pending_buckets", "lcppb_c0ffee000c", "status")] == "different"
    problems = rehearsal.verify(after).problems
    canceled = problems[problems.key == "lcppb_c0ffee000c"].iloc[0]
    assert canceled.expected.startswith("not PENDING") and canceled.actual.startswith("CANCELED")


def test_a_rise_of_canceled_points_that_no_one_set_of_buckets_makes_up_is_reported() -> None:
    points: dict[Hashable, int] = {0: 25, 1: 25, 2: 80}
    assert set(_unlisted(points, 0).values()) == {_UNLISTED}  # none canceled
    assert _unlisted(points, 80) == {0: _UNLISTED, 1: _UNLISTED, 2: _CANCELED}
    assert _unlisted(points, 50) == {0: _CANCELED, 1: _CANCELED, 2: _UNLISTED}
    assert set(_unlisted(points, 25).values()) == {_UNSURE}  # 0 or 1: either may be
    assert set(_unlisted(points, 30).values()) == {_UNSURE}  # no set: some other bucket


def test_calls_count_every_request_of_the_run(fresh_pulled: ProgramSnapshot) -> None:
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001", "lrew_c0ffee0002"])
    _, rehearsal = _rehearsed(fresh_pulled, plan)
    assert rehearsal.calls == 3  # the token, then one draft per reward
    again = actions.move_rewards_to_draft(["lrew_c0ffee0006"])  # already DRAFT: 409, then read
    _, settled = _rehearsed(fresh_pulled, again)
    assert list(settled.results.outcome) == ["already_done"]
    assert settled.calls == 3


def test_the_rehearsal_runs_at_the_snapshot_clock_and_stops_its_sandbox(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    fresh.advance_clock(3600)
    before = pull(client)
    fresh.advance_clock(86400)  # production moves on; the rehearsal does not
    serving = _sandbox_threads()
    rehearsal = actions.delete_tier_structures(["lts_c0ffee0006"]).rehearse(before, progress=False)
    assert _sandbox_threads() == serving
    assert rehearsal.after.pulled_at == before.pulled_at
    assert list(rehearsal.diff.changes.key) == ["lts_c0ffee0006"]
    assert repr(rehearsal) == (
        "<Rehearsal delete_tier_structure: 1 item (1 succeeded), 1 change, 2 calls>"
    )


def _sandbox_threads() -> int:
    return sum(t.name == "lyt-sandbox" for t in threading.enumerate())


def test_a_log_is_read_never_written(client: LoyaltyClient, tmp_path: Path) -> None:
    log = tmp_path / "drafts.jsonl"
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001", "lrew_c0ffee0002"])
    actions.move_rewards_to_draft(["lrew_c0ffee0001"]).execute(client, log=log, progress=False)
    written = log.read_bytes()
    before = pull(client)
    rehearsal = plan.rehearse(before, log=log, progress=False)
    assert log.read_bytes() == written
    assert list(rehearsal.results.outcome) == ["skipped_already_done", "succeeded"]


def test_an_exported_folder_rehearses_like_its_snapshot(
    fresh_pulled: ProgramSnapshot, tmp_path: Path
) -> None:
    before = fresh_pulled
    before.to_csv(tmp_path / "export")
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001"])
    rehearsal = plan.rehearse(tmp_path / "export", progress=False)
    changed = rehearsal.diff.changes
    assert set(zip(changed.kind, changed.key, changed.after, strict=True)) == {
        ("rewards", "lrew_c0ffee0001", "DRAFT"),
        ("reward_costs", "lrew_c0ffee0001/lrcst_c0ffee0001/0", "DRAFT"),
    }


def test_an_empty_plan_rehearses_to_nothing(fresh_pulled: ProgramSnapshot) -> None:
    before, rehearsal = _rehearsed(fresh_pulled, actions.delete_tier_structures([]))
    assert repr(rehearsal) == "<Rehearsal delete_tier_structure: 0 items, 0 changes, 0 calls>"
    verification = rehearsal.verify(before)
    assert verification.ok and verification.checks.empty
    assert list(verification.checks.columns) == CHECKS.names


def test_bad_arguments_are_refused_naming_them(fresh_pulled: ProgramSnapshot) -> None:
    plan = actions.delete_tier_structures(["lts_c0ffee0006"])
    with pytest.raises(TypeError, match="snapshot: expected a ProgramSnapshot"):
        plan.rehearse({"rewards": []}, progress=False)  # type: ignore[arg-type]
    before, rehearsal = _rehearsed(fresh_pulled, plan)
    with pytest.raises(TypeError, match="after_snapshot: expected a ProgramSnapshot, not str"):
        rehearsal.verify("after")  # type: ignore[arg-type]
    earlier = ProgramSnapshot.from_frames(before.frames(), pulled_at="2025-01-01T00:00:00Z")
    with pytest.raises(ValueError, match="after_snapshot: pulled at 2025-01-01"):
        rehearsal.verify(earlier)
    with pytest.raises(ValueError, match=r"results: not a results frame.*'outcome'"):
        rehearsal.verify(before, results=pd.DataFrame({"target": ["x"]}))


def test_importing_the_actions_does_not_load_the_sandbox() -> None:
    code = (
        "import sys; from lyt_toolkit import actions; "
        "print(sorted(m for m in sys.modules if m.startswith(('lyt_toolkit.sandbox', 'uvicorn'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_snapshot_without_the_kinds_a_plan_needs_is_refused_naming_them(
    client: LoyaltyClient,
) -> None:
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001", "lrew_c0ffee0002"])
    only_rewards = ProgramSnapshot.pull(client, progress=False, kinds=["rewards"])
    refused = r"snapshot: .*move_reward_to_draft needs the kinds reward_costs, which"
    with pytest.raises(ValueError, match=refused):
        plan.rehearse(only_rewards, progress=False)

    kinds = ["rewards", "reward_costs"]
    before = ProgramSnapshot.pull(client, progress=False, kinds=kinds)
    rehearsal = plan.rehearse(before, progress=False)
    assert set(rehearsal.diff.changes.column.dropna()) == {"status", "reward_status"}
    plan.execute(client, progress=False)
    with pytest.raises(ValueError, match=r"after_snapshot: .*pull production with kinds="):
        rehearsal.verify(ProgramSnapshot.pull(client, progress=False))
    verification = rehearsal.verify(ProgramSnapshot.pull(client, progress=False, kinds=kinds))
    assert verification.ok, verification.problems
    assert len(verification.checks) == len(rehearsal.diff) > 0


def test_a_sampled_snapshot_is_refused_naming_the_pull_a_rehearsal_can_use(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    sampled = fresh_pulled.sampled(Sample(3, seed=1))
    drafts = actions.move_rewards_to_draft(["lrew_c0ffee0001"])
    kinds = "kinds=['reward_costs', 'rewards']"
    with pytest.raises(
        ValueError, match=rf"^snapshot: a stratified sample of \d+ .*{re.escape(kinds)}"
    ):
        drafts.rehearse(sampled, progress=False)
    rehearsal = drafts.rehearse(
        ProgramSnapshot.pull(client, progress=False, kinds=["reward_costs", "rewards"]),
        progress=False,
    )  # the pull it names is one a rehearsal takes
    assert rehearsal.results["outcome"].eq("succeeded").all()
    activations = actions.activate_pending_buckets(_buckets(sampled).head(1))
    with pytest.raises(ValueError, match=r"every member's cards: .*checkpoint="):
        activations.rehearse(sampled, progress=False)


def test_a_rehearsal_refusing_its_snapshot_is_a_lyt_error_naming_what_is_missing(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot, tmp_path: Path
) -> None:
    """A sampled snapshot, one pulled without a kind the plan needs, and none for a plan read
    from its file: each refused as a ``LytError`` (``except LytError`` catches it) that is a
    ``ValueError`` still, naming what is missing. Before, a bare ``ValueError``."""
    drafts = actions.move_rewards_to_draft(["lrew_c0ffee0001"])
    sampled = fresh_pulled.sampled(Sample(3, seed=1))
    with pytest.raises(LytError) as caught:
        drafts.rehearse(sampled, progress=False)
    refusal = caught.value
    assert isinstance(refusal, RehearsalSnapshotError) and isinstance(refusal, ValueError)
    assert refusal.sample == str(sampled.sample) and refusal.missing == ()
    assert refusal.field == "snapshot" and str(refusal).endswith(
        "needs only the kinds reward_costs and rewards: pull them,"
        " ProgramSnapshot.pull(client, kinds=['reward_costs', 'rewards']), and rehearse on that"
    )

    only_rewards = ProgramSnapshot.pull(client, progress=False, kinds=["rewards"])
    with pytest.raises(RehearsalSnapshotError) as caught:
        drafts.rehearse(only_rewards, progress=False)
    assert caught.value.missing == ("reward_costs",) and caught.value.sample is None
    assert str(caught.value).startswith(
        "snapshot: rehearsing move_reward_to_draft needs the kinds reward_costs, which it was"
        " pulled without (it holds rewards): pull with kinds=['reward_costs', 'rewards']"
    )

    empty = actions.ChangePlan.from_frames(fresh_pulled, fresh_pulled)
    saved = actions.ChangePlan.load(empty.save(tmp_path / "plan.json"))
    with pytest.raises(RehearsalSnapshotError, match=r"^snapshot: the plan read from"):
        saved.rehearse(progress=False)


@pytest.mark.parametrize("form", ["to_csv", "to_parquet"])
def test_a_partial_snapshot_read_back_from_its_folder_keeps_its_kinds(
    client: LoyaltyClient, tmp_path: Path, form: str
) -> None:
    only_rewards = ProgramSnapshot.pull(client, progress=False, kinds=["rewards"])
    getattr(only_rewards, form)(tmp_path)
    read_back = read_snapshot(tmp_path)
    assert read_back.kinds == {"rewards"}
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001"])
    with pytest.raises(ValueError, match=r"needs the kinds reward_costs, which it was pulled"):
        plan.rehearse(read_back, progress=False)
