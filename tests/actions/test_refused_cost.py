"""A write the service refuses, or one left in doubt, is read back with one call, and a plan
whose base shows a write refused counts that call: the cost said is the calls sent."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from interrupting import window_used

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog, ChangePlan
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import BUCKET, pull, two_refused_one_made


def test_a_plan_counts_the_read_back_of_each_write_its_base_shows_refused(
    client: LoyaltyClient, fresh: Sandbox, tmp_path: Path
) -> None:
    """Two activations the base shows blocked (a past date, an INACTIVE program) and one
    that is not: each refused write is read back once (its card's bucket list: done after
    all?), and the summary, the saved file's and the cost count it, so the apply sends what
    they said (before, each refusal sent four reads no figure counted)."""
    plan = two_refused_one_made(client).plan()
    refused = "2 reads back of the writes the service will refuse"
    assert f"; 5 calls (3 writes, {refused})" in plan.summary()

    saved = ChangePlan.load(plan.save(tmp_path / "plan.json"))
    assert f"then 3 writes, {refused})" in saved.summary()
    needed = saved.cost(client).needed
    used = window_used(fresh)
    results = saved.apply(client, progress=False).set_index("target")
    assert window_used(fresh) - used == needed
    assert results["outcome"].astype(str).value_counts().to_dict() == {"failed": 2, "succeeded": 1}
    assert "3 writes, 2 reads back" in saved.summary(log=tmp_path / "plan.json.log.jsonl")


def test_an_activation_in_doubt_is_read_back_with_its_card_list_alone(
    client: LoyaltyClient, fresh: Sandbox, tmp_path: Path
) -> None:
    """An activation a killed run left in doubt costs two calls, as its cost says: its
    card's bucket list (not listed would be done), then the write; not the program, member
    and card definition a preview reads as well."""
    row = pull(client).pending_buckets.set_index("id").loc[BUCKET]
    plan = actions.activate_pending_buckets(
        [(row["program_id"], row["member_id"], row["card_id"], BUCKET)]
    )
    log = tmp_path / "killed.jsonl"
    ActionLog(log).record(plan.action, BUCKET, "attempted")
    needed = plan.cost(client, log=log).needed
    used = window_used(fresh)
    results = plan.execute(client, log=log, progress=False)
    assert list(results["outcome"]) == ["succeeded"]
    assert window_used(fresh) - used == needed == 2


def test_a_preview_counts_the_read_back_of_each_write_it_shows_refused_or_done(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    """A preview's ``calls`` and cost count the read back of a write it shows the service
    refusing (a past date, an INACTIVE program: 423) or already done (a bucket no longer
    listed, a reward already DRAFT): the execute that follows sends exactly that (before,
    the preview said one call an item and the run sent up to four more)."""
    buckets = pull(client).pending_buckets
    pending = buckets[buckets["status"] == "PENDING"]
    past = pending[pending["date"] < pd.Timestamp("2026-01-15", tz="UTC")].head(1)
    inactive = pending[pending["program_status"] == "INACTIVE"].head(1)
    done = buckets[buckets["id"] == BUCKET]
    rows = pd.concat([past, inactive, done]).rename(columns={"id": "bucket_id"})
    client.pending_buckets.activate(*done[["program_id", "member_id", "card_id", "id"]].iloc[0])
    fresh.settle()  # activated: its card's list no longer holds it
    client.rewards.draft("lrew_c0ffee0001")
    for plan in (
        actions.activate_pending_buckets(rows),
        actions.move_rewards_to_draft(["lrew_c0ffee0001"]),
    ):
        preview = plan.preview(client, progress=False)
        assert (preview["calls"] == 2).all(), preview[["will", "calls"]]
        used = window_used(fresh)
        plan.execute(client, progress=False)
        assert window_used(fresh) - used == preview.attrs["cost"].needed == 2 * len(plan)
