"""Rewards to draft, pending bucket activation, tier structure and webhook deletion."""

from __future__ import annotations

import time

import pandas as pd
from frame_reads import cell

from lyt_toolkit import actions
from lyt_toolkit.client import LoyaltyClient

ACTIVE_REWARD, DRAFT_REWARD, INACTIVE_REWARD = (
    "lrew_c0ffee0001",
    "lrew_c0ffee0006",
    "lrew_c0ffee0007",
)
PROGRAM = "lprg_c0ffee0001"


def _by_target(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index("target")


def test_move_rewards_to_draft(client: LoyaltyClient) -> None:
    rewards = [client.rewards.get(r) for r in (ACTIVE_REWARD, DRAFT_REWARD, INACTIVE_REWARD)]
    plan = actions.move_rewards_to_draft([*rewards, "lrew_NOPE"])
    assert list(plan.preview().will[:3]) == [
        "move to DRAFT",
        "nothing (already DRAFT)",
        "fails: the reward is INACTIVE; only ACTIVE rewards move to DRAFT (409)",
    ]
    results = _by_target(plan.execute(client, concurrency=2, progress=False))
    assert results.loc[ACTIVE_REWARD, "outcome"] == "succeeded"
    assert client.rewards.get(ACTIVE_REWARD).status == "DRAFT"
    assert results.loc[DRAFT_REWARD, "outcome"] == "already_done"
    assert cell(results, DRAFT_REWARD, "message").startswith("already DRAFT")
    assert results.loc[INACTIVE_REWARD, "outcome"] == "failed"
    assert results.loc[INACTIVE_REWARD, "status"] == 409
    assert INACTIVE_REWARD in cell(results, INACTIVE_REWARD, "message")
    assert results.loc["lrew_NOPE", "outcome"] == "invalid"
    assert client.rewards.get(INACTIVE_REWARD).status == "INACTIVE"


def test_rewards_from_a_dataframe(client: LoyaltyClient) -> None:
    frame = pd.DataFrame([{"id": ACTIVE_REWARD, "name": "Free Espresso Shot"}])
    results = actions.move_rewards_to_draft(frame).execute(client, progress=False)
    assert results.name[0] == "Free Espresso Shot" and results.outcome[0] == "succeeded"


def _buckets(client: LoyaltyClient, member_id: str) -> list:
    member = client.members.get(PROGRAM, member_id)
    found = []
    for member_card in member.cards:
        assert member_card.card is not None
        found += list(client.pending_buckets.iter(PROGRAM, member_id, member_card.card.id))
    return found


def test_activate_pending_buckets(client: LoyaltyClient) -> None:
    buckets = {b.id: b for m in ("lmbr_c0ffee0001", "lmbr_c0ffee0002") for b in _buckets(client, m)}
    chosen = [buckets[i] for i in ("lcppb_c0ffee0001", "lcppb_c0ffee0003", "lcppb_c0ffee0004")]
    results = _by_target(actions.activate_pending_buckets(chosen).execute(client, progress=False))
    ok = results.loc["lcppb_c0ffee0001"]
    assert ok.outcome == "succeeded" and ok.activation_status == "TRANSACTION_CREATED"
    assert ok.transaction_id.startswith("lctx_") and ok.resource_id == ok.transaction_id
    for locked in ("lcppb_c0ffee0003", "lcppb_c0ffee0004"):
        assert (results.loc[locked, "outcome"], results.loc[locked, "status"]) == ("failed", 423)
    deadline = time.monotonic() + 5  # the service settles the transaction asynchronously
    while time.monotonic() < deadline:
        after = {b.id: b for b in _buckets(client, chosen[0].member_id)}
        if "lcppb_c0ffee0001" not in after:  # ACTIVATED: the list holds PENDING buckets only
            break
        time.sleep(0.05)
    assert "lcppb_c0ffee0001" not in after
    assert {"lcppb_c0ffee0003", "lcppb_c0ffee0004"} <= set(after)  # refused: still PENDING


def test_activation_targets_as_tuples_and_bad_ids(client: LoyaltyClient) -> None:
    plan = actions.activate_pending_buckets(
        [(PROGRAM, "lmbr_c0ffee0001", "lcrd_NOT", "lcppb_c0ffee0001"), ("lprg_0", "lmbr_0")]
    )
    preview = plan.preview()
    assert list(preview.valid) == [False, False]
    assert preview.field[0] == "card_id"


def test_a_value_that_is_no_id_is_quoted_short_and_a_token_in_it_masked() -> None:
    """IDs pasted from a file: one that is no ID is quoted in the row's error cut short, a
    bearer token in it masked whole."""
    token = "Bearer eyJhbGciOiJIUzI1NiJ9.pasted-as-an-id.0123456789abcdef"
    plan = actions.activate_pending_buckets(
        [(token, "lmbr_0", "lcrd_0", "lcppb_0"), ("x" * 5000, "lmbr_0", "lcrd_0", "lcppb_0")]
    )
    errors = plan.preview().error.tolist()
    assert errors[0] == "program_id must look like lprg_<hex digits>, got 'Bearer ***'"
    assert errors[1].startswith("program_id must look like lprg_<hex digits>, got 'xxx")
    assert len(errors[1]) < 120


def test_delete_tier_structures(client: LoyaltyClient) -> None:
    results = _by_target(
        actions.delete_tier_structures(["lts_c0ffee0006", "lts_c0ffee00ff"]).execute(
            client, progress=False
        )
    )
    assert results.loc["lts_c0ffee0006", "outcome"] == "succeeded"
    assert results.loc["lts_c0ffee00ff", "status"] == 404
    statuses = {t.id: t.status for t in client.tier_structures.iter(limit=100)}
    assert statuses.get("lts_c0ffee0006", "DELETED") == "DELETED"
    assert statuses["lts_c0ffee0001"] == "ACTIVE"


def test_delete_webhooks(client: LoyaltyClient) -> None:
    hooks = client.webhooks.list("proj_NwStage01")
    targets = [*hooks, ("proj_NwStarter01", "wh_NwStarterLegacy01"), ("proj_NwMain01", "wh_gone")]
    results = _by_target(actions.delete_webhooks(targets).execute(client, progress=False))
    assert results.loc["proj_NwStage01/wh_NwStageAll01", "outcome"] == "succeeded"
    starter = results.loc["proj_NwStarter01/wh_NwStarterLegacy01"]
    assert (starter.status, starter.error_key, starter.field) == (
        402,
        "missing_required_feature",
        "project_id",
    )
    gone = results.loc["proj_NwMain01/wh_gone"]  # the service cannot tell deleted from never there
    assert (gone.outcome, gone.message.startswith("already gone")) == ("already_done", True)
    assert client.webhooks.list("proj_NwStage01") == []


def test_results_schema_is_stable_for_zero_items(client: LoyaltyClient) -> None:
    empty = actions.delete_tier_structures([]).preview()
    assert len(empty) == 0 and "will" in empty.columns
    plan = actions.delete_tier_structures([])
    assert list(plan.execute(client, progress=False).columns)[:5] == [
        "item",
        "row",
        "target",
        "name",
        "outcome",
    ]


def test_results_have_the_same_columns_whatever_the_plan_was_built_from(
    client: LoyaltyClient,
) -> None:
    listed = client.rewards.frame()
    chosen = listed[listed.id.isin([ACTIVE_REWARD, DRAFT_REWARD])]
    from_frame = actions.move_rewards_to_draft(chosen)
    from_ids = actions.move_rewards_to_draft([ACTIVE_REWARD, DRAFT_REWARD])
    assert list(from_ids.preview().columns) == list(from_frame.preview().columns)
    results = from_ids.execute(client, progress=False)
    assert list(results.columns) == list(from_frame.execute(client, progress=False).columns)
    shown = results[["target", "name", "outcome"]]  # KeyError while IDs gave no name column
    assert shown["name"].isna().all() and shown["name"].dtype == "string"


def test_buckets_as_tuples_or_models_preview_the_same_columns(client: LoyaltyClient) -> None:
    bucket = _buckets(client, "lmbr_c0ffee0001")[0]
    path = (bucket.program_id, bucket.member_id, bucket.card_id, bucket.id)
    from_models = actions.activate_pending_buckets([bucket]).preview()
    from_tuples = actions.activate_pending_buckets([path]).preview()
    assert list(from_tuples.columns) == list(from_models.columns)
    assert from_tuples["points"].isna().all() and from_models["points"].notna().all()
