"""Previews that read the service's state, and re-runs without a log that find the work done."""

from __future__ import annotations

import asyncio
import io
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from frame_reads import cell, records, row_of

from lyt_toolkit import _progress, actions
from lyt_toolkit.audit import run
from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.frames.members import PENDING_BUCKETS
from lyt_toolkit.pull.member_tree import holds_pending
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import SECRETS, benefit_rows

PROGRAMS = ("lprg_c0ffee0001", "lprg_c0ffee0002")
CARD = ("lprg_c0ffee0001", "lmbr_c0ffee0001", "lcrd_c0ffee0001")
TO_ACTIVATE = ("lcppb_c0ffee0001", "lcppb_c0ffee0002")


def _buckets(client: LoyaltyClient) -> pd.DataFrame:
    frames = [client.pending_buckets.frame(p, progress=False) for p in PROGRAMS]
    return pd.concat(frames, ignore_index=True)


def _by_target(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index("target")


def test_program_bucket_frame_walks_members_and_cards(client: LoyaltyClient) -> None:
    frame = client.pending_buckets.frame("lprg_c0ffee0001", progress=False)
    assert list(frame.columns) == PENDING_BUCKETS.names
    assert set(frame.program_id) == {"lprg_c0ffee0001"}
    assert set(frame.program_status) == {"ACTIVE"}
    member_status = {m.id: m.status for m in client.members.iter("lprg_c0ffee0001", limit=100)}
    assert dict(zip(frame.member_id, frame.member_status, strict=True)) == {
        m: member_status[m] for m in frame.member_id
    }
    assert "INACTIVE" in set(frame.member_status)  # lcppb_c0ffee0009 sits on an INACTIVE member
    snapshot = ProgramSnapshot.pull(client, progress=False).pending_buckets
    same_program = snapshot[snapshot.program_id == "lprg_c0ffee0001"].reset_index(drop=True)
    pd.testing.assert_frame_equal(frame, same_program)


def test_async_program_bucket_frame_equals_sync(client: LoyaltyClient) -> None:
    async def pull() -> pd.DataFrame:
        async with AsyncLoyaltyClient(config=client.config) as twin:
            return await twin.pending_buckets.frame("lprg_c0ffee0002", progress=False)

    expected = client.pending_buckets.frame("lprg_c0ffee0002", progress=False)
    assert len(expected) > 0
    pd.testing.assert_frame_equal(asyncio.run(pull()), expected)


def test_program_bucket_frame_of_one_card_and_bad_arguments(client: LoyaltyClient) -> None:
    card = client.members.get("lprg_c0ffee0001", "lmbr_c0ffee0001").cards[0].card
    assert card is not None
    one = client.pending_buckets.frame(
        "lprg_c0ffee0001", "lmbr_c0ffee0001", card.id, progress=False
    )
    assert set(one.card_id) == {card.id} and one.member_status.isna().all()
    with pytest.raises(TypeError, match="member_id and card_id together"):
        client.pending_buckets.frame("lprg_c0ffee0001", "lmbr_c0ffee0001")


UNLISTED = (
    ("lprg_c0ffee0001", "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_c0ffee0005"),  # ACTIVATED
    ("lprg_c0ffee0001", "lmbr_c0ffee0002", "lcrd_c0ffee0003", "lcppb_c0ffee000c"),  # CANCELED
    ("lprg_c0ffee0001", "lmbr_c0ffee0002", "lcrd_c0ffee0003", "lcppb_c0ffee0ff0"),  # none such
)
"""Buckets the service does not list: no longer PENDING, or never there."""


def test_bucket_preview_agrees_with_the_audit_rule(client: LoyaltyClient) -> None:
    buckets = _buckets(client)
    assert set(buckets.status) == {"PENDING"}  # the service lists PENDING buckets only
    unlisted = pd.DataFrame(UNLISTED, columns=["program_id", "member_id", "card_id", "id"])
    plan = actions.activate_pending_buckets(pd.concat([buckets, unlisted], ignore_index=True))
    preview = _by_target(plan.preview(client, progress=False))
    assert str(preview.activatable.dtype) == "boolean"
    assert str(preview.blocked_reason.dtype) == "string"
    findings = run(ProgramSnapshot.pull(client, progress=False))
    stuck = findings[findings.rule == "pending-bucket-not-activatable"].set_index("resource_id")
    for bucket in records(buckets):
        row = row_of(preview, bucket.id)
        if bucket.status != "PENDING":
            continue
        assert bool(row.activatable) == (bucket.id not in stuck.index), bucket.id
        if bucket.id in stuck.index:  # one function gives both their reasons
            assert cell(stuck, bucket.id, "message").endswith(row.blocked_reason)
            assert row.will == f"fails: {row.blocked_reason} (423)"
        else:
            assert row.will == "activate pending points now" and pd.isna(row.blocked_reason)
    for *_, bucket_id in UNLISTED:  # nothing to send: activated, canceled or never there
        row = row_of(preview, bucket_id)
        assert (
            row.will == "nothing (no longer PENDING: not on its card's list (activated or"
            " canceled, or never there))"
        )
        assert not row.activatable and row.blocked_reason == "not among the card's PENDING buckets"
    results = _by_target(plan.execute(client, progress=False)).loc[[u[3] for u in UNLISTED]]
    assert list(results.outcome) == ["already_done", "already_done", "failed"]
    assert results.status.isna().tolist() == [True, True, False]  # 423, read back: done
    assert results.status.iloc[2] == 404
    refused = "no longer PENDING: activated or canceled (not on its card's list) (the service"
    assert results.message.iloc[0] == f"{refused} answered 423 resource_locked)"  # it is there
    assert "is not after 2026-01-15" in cell(preview, "lcppb_c0ffee0004", "blocked_reason")
    assert "member lmbr_c0ffee0003" in cell(preview, "lcppb_c0ffee0009", "blocked_reason")
    assert "IMMEDIATE" in cell(preview, "lcppb_c0ffee0008", "blocked_reason")
    both = cell(preview, "lcppb_c0ffee000b", "blocked_reason")
    assert "program lprg_c0ffee0002 is INACTIVE" in both and "lmbr_c0ffee0006 is INACTIVE" in both


def test_bucket_preview_without_a_client_reads_nothing() -> None:
    plan = actions.activate_pending_buckets(
        [("lprg_c0ffee0001", "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_c0ffee0005")]
    )
    preview = plan.preview()
    assert preview.will[0] == "activate pending points now"
    assert preview.activatable.isna().all() and preview.blocked_reason.isna().all()


def test_reward_preview_tells_each_status(client: LoyaltyClient) -> None:
    ids = ["lrew_c0ffee0001", "lrew_c0ffee0006", "lrew_c0ffee0007", "lrew_c0ffee0008"]
    plan = actions.move_rewards_to_draft([*ids, "lrew_deadbeef01"])
    assert list(plan.preview(client, progress=False).will) == [
        "move to DRAFT",
        "nothing (already DRAFT)",
        "fails: the reward is INACTIVE; only ACTIVE rewards move to DRAFT (409)",
        "fails: the reward is DELETED; only ACTIVE rewards move to DRAFT (409)",
        "fails: no such reward (404)",  # not among the rewards listed by ID
    ]


def test_benefit_preview_finds_names_already_taken(client: LoyaltyClient) -> None:
    existing = client.benefits.get("lben_c0ffee0001")
    assert existing.points is not None
    points = existing.points.model_dump()
    same: dict[str, Any] = {
        "name": existing.name,
        "type": "POINTS",
        "status": "ACTIVE",
        "points": points,
    }
    other = {**same, "points": {**same["points"], "value": 999}}
    plan = actions.create_benefits([benefit_rows("Fresh", 1)[0], same])
    assert list(plan.preview(client, progress=False).will) == [
        "create POINTS benefit (DRAFT)",
        "nothing (already exists as lben_c0ffee0001)",
    ]
    clash = actions.create_benefits([other]).preview(client, progress=False)
    assert clash.will[0] == "fails: the name is taken by lben_c0ffee0001 with other settings (409)"


def test_deletion_previews_show_nothing_for_what_is_gone(client: LoyaltyClient) -> None:
    client.tier_structures.delete("lts_c0ffee0006")
    tiers = actions.delete_tier_structures(["lts_c0ffee0006", "lts_c0ffee0003", "lts_c0ffee00ff"])
    assert list(tiers.preview(client, progress=False).will) == [
        "nothing (already DELETED)",
        "delete tier structure (now DRAFT)",
        "fails: Resource not found (404)",
    ]
    client.webhooks.delete("proj_NwMain01", "wh_NwMainCustomers02")
    hooks = actions.delete_webhooks(
        [
            ("proj_NwMain01", "wh_NwMainLoyalty01"),
            ("proj_NwMain01", "wh_NwMainCustomers02"),
            ("proj_NwStarter01", "wh_NwStarterLegacy01"),
        ]
    )
    will = list(hooks.preview(client, progress=False).will)
    assert will[:2] == [
        "delete webhook configuration",
        "nothing (already gone: not among the project's webhooks (deleted, or never there))",
    ]
    assert will[2].startswith("fails: ") and will[2].endswith("(402)")


def _wait_activated(client: LoyaltyClient) -> None:
    """Activations settle asynchronously; wait until the buckets leave the list (the service
    lists PENDING buckets only)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not _buckets(client).id.isin(TO_ACTIVATE).any():
            return
        time.sleep(0.05)
    raise AssertionError("the activations never settled")


def _plans() -> list[actions.ActionPlan]:
    return [
        actions.create_benefits(benefit_rows("Rerun", 3)),
        actions.move_rewards_to_draft(["lrew_c0ffee0001", "lrew_c0ffee0002"]),
        actions.activate_pending_buckets([(*CARD, bucket) for bucket in TO_ACTIVATE]),
        actions.delete_tier_structures(["lts_c0ffee0006", "lts_c0ffee0003"]),
        actions.delete_webhooks([("proj_NwStage01", "wh_NwStageAll01")]),
    ]


def _state(client: LoyaltyClient) -> tuple[dict[str, pd.DataFrame], list[str]]:
    frames = ProgramSnapshot.pull(client, progress=False).frames()
    return frames, sorted(
        w.id for p in ("proj_NwMain01", "proj_NwStage01") for w in client.webhooks.list(p)
    )


def test_a_rerun_without_its_log_finds_everything_done(client: LoyaltyClient) -> None:
    for plan in _plans():
        first = plan.execute(client, concurrency=2, progress=False)
        assert set(first.outcome) == {"succeeded"}, first[["target", "outcome", "message"]]
    _wait_activated(client)
    before, hooks_before = _state(client)
    for plan in _plans():
        done = ("nothing (already", "nothing (no longer PENDING")  # an activated bucket: unlisted
        assert all(w.startswith(done) for w in plan.preview(client, progress=False).will)
        again = plan.execute(client, concurrency=2, progress=False)
        assert set(again.outcome) == {"already_done"}, again[["target", "outcome", "message"]]
        assert again.status.isna().all() and again.error_key.isna().all()
        assert not any(s in m for m in again.message for s in SECRETS)
    after, hooks_after = _state(client)
    assert hooks_after == hooks_before
    for kind, frame in before.items():  # nothing the re-runs sent changed anything
        pd.testing.assert_frame_equal(after[kind], frame, obj=kind)


def test_a_rerun_with_the_log_of_found_work_skips_it(client: LoyaltyClient, tmp_path: Path) -> None:
    log = tmp_path / "draft.jsonl"
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0006"])
    assert plan.execute(client, log=log, progress=False).outcome[0] == "already_done"
    again = plan.execute(client, log=log, progress=False)
    assert again.outcome[0] == "skipped_already_done"
    assert again.message[0].startswith("already found done at")
    assert plan.preview(log=log).will[0] == "skip (already done)"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_program_bucket_frame_reports_rows_and_pages(
    client: LoyaltyClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv(_progress.ENV_VAR, raising=False)
    monkeypatch.setattr(_progress, "REFRESH_SECONDS", 0)
    frame = client.pending_buckets.frame("lprg_c0ffee0001")
    members = client.members.iter("lprg_c0ffee0001", limit=100)
    cards = sum(  # the cards holding pending points: the others have no bucket to list
        1
        for m in members
        for held in client.members.get("lprg_c0ffee0001", m.id).cards
        if held.card is not None and holds_pending(held.card)
    )
    written = terminal.getvalue()
    assert f"pending_buckets: {len(frame)} rows" in written  # one page per holding card
    assert f"{cards} pages]" in written
