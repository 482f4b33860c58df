"""The modules a saved plan is made of, each alone, over real HTTP: the plan it holds,
the file format, the staleness check, typed re-planning and the ledger of applied plans."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit.actions import ChangePlan, PlanAlreadyAppliedError, SavedPlan
from lyt_toolkit.actions.change_planner import CHANGE_COLUMNS
from lyt_toolkit.actions.ledger import (
    COMPLETE,
    applied_marker,
    applied_record,
    record_applied,
    refuse_applied,
)
from lyt_toolkit.actions.plan_file import PlanDocument, read_plan
from lyt_toolkit.actions.replan import live_changes
from lyt_toolkit.actions.reread import live_rows
from lyt_toolkit.actions.staleness import stale_objects
from lyt_toolkit.actions.touched import TOUCHES, touched_objects
from lyt_toolkit.client import LoyaltyClient

from .helpers import TIERS, SaveFour, four_kinds, pull

# -- the plan it holds --------------------------------------------------------------------


def test_a_saved_plan_holds_its_plan_and_still_counts_as_one(
    tmp_path: Path, save_four: SaveFour
) -> None:
    plan = save_four(tmp_path / "plan.json")[0]
    saved = ChangePlan.load(tmp_path / "plan.json")

    assert isinstance(saved, SavedPlan) and isinstance(saved, ChangePlan)
    assert type(saved.plan) is ChangePlan and not isinstance(saved.plan, SavedPlan)
    for name in ("base", "changes", "unsupported", "parts", "inputs"):
        assert getattr(saved, name) is getattr(saved.plan, name)
    assert len(saved) == len(plan)
    assert str(saved).splitlines()[1:-1] == str(plan).splitlines()[1:]
    assert str(saved).splitlines()[-1] == f"File: {saved.path} (sha256 {saved.sha256})"
    assert "re-reads, then" in saved.summary() and "re-read" not in plan.summary()
    pd.testing.assert_frame_equal(saved.preview(), plan.preview())


def test_the_file_format_reads_back_a_document_not_a_plan(
    tmp_path: Path, save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    plan = save_four(path)[0]

    found = read_plan(path)
    assert isinstance(found, PlanDocument)
    pd.testing.assert_frame_equal(found.changes, plan.changes)
    assert [p.action for p in found.parts] == [p.action for p in plan.parts]
    assert {(t["kind"], t["key"]) for t in found.touched} == {
        (t["kind"], t["key"]) for t in touched_objects(plan.base, plan.changes, plan.inputs)
    }
    assert json.loads(path.read_text())["summary"] == SavedPlan.load(path).summary()


# -- the staleness check ------------------------------------------------------------------


def test_staleness_alone_names_what_changed_live_but_not_the_plans_own_work(
    client: LoyaltyClient,
) -> None:
    edit, targets = four_kinds(pull(client))
    plan = edit.plan()
    touched = touched_objects(plan.base, plan.changes, plan.inputs)
    nothing: dict[str, set[str]] = {call: set() for call in TOUCHES}
    assert stale_objects(touched, live_rows(client, touched, plan.inputs), nothing) == []

    reward = targets["move_reward_to_draft"]
    client.rewards.draft(reward)
    client.tier_structures.delete(TIERS)
    live = live_rows(client, touched, plan.inputs)
    assert live["tier_structures", TIERS] is not None  # deleted: a status, not gone
    assert stale_objects(touched, live, nothing) == [
        f"rewards {reward}",
        f"tier_structures {TIERS} (already DELETED)",  # the plan deletes it: done
    ]
    own = {**nothing, "move_reward_to_draft": {reward}, "delete_tier_structure": {TIERS}}
    assert stale_objects(touched, live, own) == []
    gone = {**live, ("rewards", reward): None}
    assert stale_objects(touched, gone, nothing)[0] == f"rewards {reward} (no longer exists)"


# -- re-planning from typed values --------------------------------------------------------


def _change(kind: str, key: str, column: str, after: str) -> dict[str, Any]:
    return {
        "kind": kind,
        "key": key,
        "action": "change",
        "column": column,
        "before": None,
        "after": after,
        "call": "move_reward_to_draft",
        "calls": 1,
        "blocked_reason": None,
    }


def _as_read(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Change rows as a plan file gives them: text columns, ``calls`` whole."""
    frame = pd.DataFrame(rows, columns=list(CHANGE_COLUMNS))
    return frame.astype({c: "string" for c in CHANGE_COLUMNS if c != "calls"})


def test_refresh_re_plans_typed_values_each_column_as_its_schema_type(
    client: LoyaltyClient,
) -> None:
    snapshot = pull(client)
    reward = snapshot.rewards.iloc[[0]].reset_index(drop=True)
    tiers = snapshot.tier_structures.iloc[[0]].reset_index(drop=True)
    key, tier = str(reward["id"].iloc[0]), str(tiers["id"].iloc[0])
    start = pd.Timestamp("2031-02-03T04:05:06.789", tz="UTC")
    wanted: list[tuple[str, str, str, Any, type]] = [
        ("rewards", key, "cost_count", 17, int),
        ("rewards", key, "digital_points", 2**40, int),
        ("rewards", key, "digital_gift_voucher_balance", 12.25, float),
        ("rewards", key, "digital_gift_voucher_balance", Decimal("12.50"), float),
        ("rewards", key, "start_date", start, dt.datetime),
        ("tier_structures", tier, "card_definition_found", False, bool),
        ("rewards", key, "status", "DRAFT", str),
    ]
    changes = _as_read(
        [_change(kind, k, column, str(value)) for kind, k, column, value, _ in wanted]
    )

    diff = live_changes(changes, {"rewards": reward, "tier_structures": tiers})

    assert len(diff) == len(wanted)
    for row, (kind, k, column, value, typed) in zip(
        diff.itertuples(index=False), wanted, strict=True
    ):
        assert (row.kind, row.key, row.change, row.column) == (kind, k, "changed", column)
        assert isinstance(row.after, typed) and not isinstance(row.after, Decimal)
        assert row.after == value  # read back as the column's type, not kept as text
        live = (reward if kind == "rewards" else tiers)[column].iloc[0]
        assert row.before == live or (pd.isna(live) and row.before is None)


def test_a_change_the_live_row_already_shows_drops_out_and_a_delete_is_a_removed_row(
    client: LoyaltyClient,
) -> None:
    snapshot = pull(client)
    reward = snapshot.rewards.iloc[[0]].reset_index(drop=True)
    key = str(reward["id"].iloc[0])
    changes = _as_read(
        [
            _change("rewards", key, "status", str(reward["status"].iloc[0])),
            _change("rewards", key, "cost_count", f"{reward['cost_count'].iloc[0]}.0"),
            {**_change("tier_structures", TIERS, "status", ""), "action": "delete"},
            _change("rewards", "lrew_not_live", "status", "DRAFT"),
        ]
    )
    tiers = snapshot.tier_structures[snapshot.tier_structures["id"] == TIERS]

    diff = live_changes(changes, {"rewards": reward, "tier_structures": tiers})

    assert diff[["kind", "key", "change"]].to_numpy().tolist() == [
        ["tier_structures", TIERS, "removed"]
    ]


def test_refresh_gives_the_plan_the_live_state_still_needs(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    edit, targets = four_kinds(pull(client))
    saved = ChangePlan.load(edit.plan().save(tmp_path / "plan.json"))
    client.rewards.draft(targets["move_reward_to_draft"])

    refreshed = saved.refreshed(client)

    assert type(refreshed) is ChangePlan
    shown = refreshed.changes[["kind", "key", "before", "after"]].astype(object)
    assert shown.where(shown.notna(), None).to_numpy().tolist() == [
        ["benefits", "Bonus 05", None, saved.changes["after"].iloc[0]],
        ["pending_buckets", targets["activate_pending_bucket"], "PENDING", "ACTIVATED"],
        ["tier_structures", TIERS, None, None],
    ]
    assert (
        refreshed.changes.dtypes.astype(str).tolist() == saved.changes.dtypes.astype(str).tolist()
    )
    assert refreshed.base.kinds >= {"pending_buckets", "tier_structures"}


# -- the ledger ---------------------------------------------------------------------------


def _results(*outcomes: str) -> pd.DataFrame:
    return pd.DataFrame({"call": ["move_reward_to_draft"] * len(outcomes), "outcome": outcomes})


def test_the_ledger_records_a_complete_apply_bound_to_the_plans_bytes(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    assert applied_marker(path) == tmp_path / "plan.json.applied"
    assert applied_record(path, "a" * 64) is None
    refuse_applied(path, "a" * 64)  # nothing recorded: nothing refused

    assert not record_applied(path, "a" * 64, _results("succeeded", "failed"))
    assert not applied_marker(path).exists()
    assert record_applied(path, "a" * 64, _results(*(str(o) for o in COMPLETE)))

    record = applied_record(path, "a" * 64)
    assert record is not None and (record["calls"], record["sha256"]) == (3, "a" * 64)
    with pytest.raises(PlanAlreadyAppliedError, match=r"plan\.json\.applied\);"):
        refuse_applied(path, "a" * 64)
    refuse_applied(path, "b" * 64)  # another plan saved at the same path applies


def test_the_ledger_takes_a_marker_without_a_hash_for_any_plan(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    applied_marker(path).write_text('not json\n{"applied_at": "2026-01-01", "calls": 1}\n')
    assert applied_record(path, "c" * 64) == {"applied_at": "2026-01-01", "calls": 1}
    with pytest.raises(PlanAlreadyAppliedError, match="delete that marker"):
        refuse_applied(path, "c" * 64)
