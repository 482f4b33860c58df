"""Diffs of pulled snapshots: change the demo program through the client, pull again, compare."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest
from fixture_types import StartSandbox
from frame_reads import row_of

from lyt_toolkit import ProgramSnapshot, read_snapshot
from lyt_toolkit.audit import findings_between, run
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import CHANGES

from .helpers import client_for, pull

DRAFTED = "lrew_c0ffee000f"  # ACTIVE and expired: drafting it resolves active-reward-expired
DAILY_INVALID = "lrew_c0ffee000d"  # ACTIVE with an empty DAILY schedule
DELETED = "lts_c0ffee0005"  # INACTIVE tier structure on a DELETED card definition
BUCKET = ("lprg_c0ffee0001", "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_c0ffee0001")
NEW_BENEFIT = {
    "name": "Diff test bonus",
    "type": "POINTS",
    "points": {"value": 42, "card_definition_id": "lcdef_c0ffee0001"},
}


class Changed(NamedTuple):
    """The demo pulled, changed through the client and pulled again."""

    before: ProgramSnapshot
    after: ProgramSnapshot
    created: str
    """The ID of the benefit created, if one was."""


@pytest.fixture(scope="module")
def changed(start_sandbox: StartSandbox) -> Changed:
    """Pull, draft a reward, delete a tier structure, create a benefit, activate a bucket, pull
    (once: its tests only compare the two pulls)."""
    with start_sandbox() as demo:
        before = pull(demo)
        with client_for(demo) as client:
            client.rewards.draft(DRAFTED)
            client.tier_structures.delete(DELETED)
            created = client.benefits.create(NEW_BENEFIT).id
            client.pending_buckets.activate(*BUCKET)
        demo.settle()  # the activation settles after its answer: pull what it settled to
        return Changed(before, pull(demo), created)


@pytest.fixture(scope="module")
def daily_drafted(start_sandbox: StartSandbox) -> Changed:
    """Pull, draft the reward whose DAILY validity is invalid, pull (once: its tests only
    compare the two pulls)."""
    with start_sandbox() as demo:
        before = pull(demo)
        with client_for(demo) as client:
            client.rewards.draft(DAILY_INVALID)
        return Changed(before, pull(demo), "")


def _expected(before: ProgramSnapshot, created: str) -> pd.DataFrame:
    """The change rows the four edits must give, worked out from ``before`` alone."""
    cost = before.reward_costs[before.reward_costs["reward_id"] == DRAFTED].iloc[0]
    card = before.cards[before.cards["id"] == BUCKET[2]].iloc[0]
    bucket = before.pending_buckets[before.pending_buckets["id"] == BUCKET[3]].iloc[0]
    points = int(bucket["points_total"])
    rows = [
        ("rewards", DRAFTED, "changed", "status", "ACTIVE", "DRAFT"),
        (
            "reward_costs",
            f"{DRAFTED}/{cost['cost_id']}/{cost['spending_index']}",
            "changed",
            "reward_status",
            "ACTIVE",
            "DRAFT",
        ),
        ("benefits", created, "added", None, None, "<row>"),
        ("tier_structures", DELETED, "changed", "status", "INACTIVE", "DELETED"),
        (
            "cards",
            f"{BUCKET[1]}/{BUCKET[2]}",
            "changed",
            "balance_points",
            str(card["balance_points"]),
            str(card["balance_points"] + points),
        ),
        (
            "cards",
            f"{BUCKET[1]}/{BUCKET[2]}",
            "changed",
            "balance_pending_points",
            str(card["balance_pending_points"]),
            str(card["balance_pending_points"] - points),
        ),
        # activated, it leaves the list: the service lists PENDING buckets only
        ("pending_buckets", BUCKET[3], "removed", None, "<row>", None),
    ]
    return CHANGES.conform(pd.DataFrame(rows, columns=CHANGES.names))


def test_changes_made_through_the_client_are_exactly_the_diff(changed: Changed) -> None:
    before, after, created = changed
    diff = before.diff(after)
    changes = diff.changes.copy()
    added = json.loads(changes.loc[changes["change"] == "added", "after"].iloc[0])
    assert added["name"] == NEW_BENEFIT["name"] and added["points_value"] == 42
    assert added["status"] == "DRAFT" and added["id"] == created
    changes.loc[changes["change"] == "added", "after"] = "<row>"
    removed = json.loads(changes.loc[changes["change"] == "removed", "before"].iloc[0])
    assert (removed["id"], removed["status"]) == (BUCKET[3], "PENDING")
    changes.loc[changes["change"] == "removed", "before"] = "<row>"
    pd.testing.assert_frame_equal(changes, _expected(before, created))
    assert len(diff) == 7 and diff

    summary = diff.summary()
    assert summary.loc["benefits", "added"] == 1
    assert row_of(summary, "cards").tolist() == [0, 0, 1, 2]
    assert row_of(summary, "total").tolist() == [1, 1, 4, 5]  # the bucket: removed, no value

    everything = before.diff(after, ignore=())
    updated = everything.changes[everything.changes["column"] == "updated_at"]
    assert sorted(updated["key"]) == sorted([DRAFTED, DELETED])

    findings = findings_between(before, after)
    resolved = findings[findings["change"] == "resolved"]
    pairs = zip(resolved["rule"], resolved["resource_id"], strict=True)
    assert ("active-reward-expired", DRAFTED) in set(pairs)
    both = pd.concat([run(before).assign(side="before"), run(after).assign(side="after")])
    for f in findings.itertuples():
        side = "before" if f.change == "resolved" else "after"
        same = both[(both["rule"] == f.rule) & (both["message"] == f.message)]
        assert set(same["side"]) == {side}, f
        if f.change == "changed":
            old = both[(both["rule"] == f.rule) & (both["message"] == f.previous_message)]
            assert set(old["side"]) == {"before"}, f


def test_a_finding_whose_message_changed_is_one_changed_finding(daily_drafted: Changed) -> None:
    findings = findings_between(daily_drafted.before, daily_drafted.after)
    mine = findings[findings["resource_id"] == DAILY_INVALID]
    assert mine[["change", "rule"]].values.tolist() == [["changed", "daily-validity-invalid"]]
    assert mine["previous_message"].iloc[0].startswith("ACTIVE reward: DAILY validity")
    assert mine["message"].iloc[0].startswith("DRAFT reward: DAILY validity")


def test_exported_folders_diff_like_the_pulled_snapshots(changed: Changed, tmp_path: Path) -> None:
    before, after, _ = changed
    before.to_csv(tmp_path / "old")
    after.to_parquet(tmp_path / "new")
    from_files = read_snapshot(tmp_path / "old").diff(read_snapshot(tmp_path / "new"))
    pd.testing.assert_frame_equal(from_files.changes, before.diff(after).changes)


def test_two_pulls_of_unchanged_data_do_not_differ(
    demo_snapshot: ProgramSnapshot, demo: Sandbox
) -> None:
    again = pull(demo)
    diff = demo_snapshot.diff(again)
    assert len(diff) == 0 and not diff
    assert findings_between(demo_snapshot, again).empty


def test_the_deprecated_findings_attribute_warns_and_gives_findings_between(
    daily_drafted: Changed,
) -> None:
    before, after, _ = daily_drafted
    diff = before.diff(after)
    with pytest.warns(FutureWarning, match=r"lyt_toolkit\.audit\.findings_between\("):
        old = diff.findings
    pd.testing.assert_frame_equal(old, findings_between(before, after))
    assert not old.empty
    with pytest.warns(FutureWarning):
        assert diff.findings is old  # the audits ran once
