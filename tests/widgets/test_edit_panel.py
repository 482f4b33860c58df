"""EditPanel driven headless: cells set through the grid's own API (as a browser edit
arrives), buttons clicked, the background step waited for, the sandbox checked over HTTP."""

from __future__ import annotations

import html
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from frame_reads import cell
from shared_tls import TLS

from lyt_toolkit import Sample, actions
from lyt_toolkit.actions.lock import held
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot, read_snapshot
from lyt_toolkit.snapshot.again import again_calls
from lyt_toolkit.synthetic import generate_program
from lyt_toolkit.widgets import EditPanel
from lyt_toolkit.widgets import edit_panel as edit_panel_module

from .helpers import off_thread

REWARD = "lrew_c0ffee0001"  # ACTIVE in the demo program
TIER_STRUCTURE = "lts_c0ffee0006"
CARD_DEFINITION = "lcdef_c0ffee0001"


@pytest.fixture
def snapshot(fresh_pulled: ProgramSnapshot) -> ProgramSnapshot:
    return fresh_pulled


@pytest.fixture
def panel(snapshot: ProgramSnapshot, client: LoyaltyClient) -> EditPanel:
    return EditPanel(snapshot, client)


def row_of(panel: EditPanel, resource_id: str, column: str = "id") -> int:
    """The grid row (position) showing ``resource_id``."""
    return list(panel.frame_of(panel.kind)[column]).index(resource_id)


def shown(panel: EditPanel) -> pd.DataFrame:
    """What the editable grid shows (its ``data`` getter warns under pandas 3.1)."""
    return panel.grid.get_visible_data()


def type_into(panel: EditPanel, row: int, column: str, value: Any) -> None:
    """A cell edit as the browser sends it (the grid shows, and edits, text)."""
    assert panel.grid.set_cell_value_by_index(column, row, value)


def type_benefit(panel: EditPanel, row: int, name: str) -> None:
    """A new POINTS benefit ``name`` typed into the benefits grid's ``row``, cell by cell."""
    cells = {
        "name": name,
        "type": "POINTS",
        "status": "ACTIVE",
        "points_value": "75",
        "card_definition_id": CARD_DEFINITION,
    }
    for column, value in cells.items():
        type_into(panel, row, column, value)


def plan(panel: EditPanel) -> None:
    panel.plan_button.click()
    panel.wait()


def apply(panel: EditPanel) -> None:
    assert not panel.apply_button.disabled
    panel.apply_button.click()
    panel.wait()


def _draft_reward(panel: EditPanel) -> None:
    type_into(panel, row_of(panel, REWARD), "status", "DRAFT")


def test_an_edited_cell_is_planned_then_applied(panel: EditPanel, client: LoyaltyClient) -> None:
    assert panel.apply_button.disabled and panel.rehearse_button.disabled  # nothing planned
    _draft_reward(panel)
    assert panel.edit.rewards.dtypes.equals(panel.snapshot.rewards.dtypes)
    plan(panel)

    expected = "Plan: 0 to create, 1 to change, 0 to delete; 0 changes the service cannot make"
    assert expected in panel.summary.value
    changes = panel.changes_table.frame
    assert changes[["kind", "key", "column", "before", "after", "call"]].values.tolist() == [
        ["rewards", REWARD, "status", "ACTIVE", "DRAFT", "move_reward_to_draft"]
    ]
    assert panel.changes_table.grid is not None  # the table shows it
    assert panel.changes_table.grid.get_visible_data()["key"].tolist() == [REWARD]
    assert panel.unsupported_table.layout.display == "none"  # nothing unsupported
    # The change, a token request unless the client holds one (its pull left one), and
    # the pull again after the apply.
    again = again_calls(panel.snapshot)
    needed = 1 + (not client.holds_token) + again
    assert f"calls needed: {needed} (with {again} of the pull again after" in panel.budget.value
    assert client.rewards.get(REWARD).status == "ACTIVE"  # planning sends nothing

    apply(panel)
    assert client.rewards.get(REWARD).status == "DRAFT"
    assert "Applied: succeeded: 1" in panel.status.value
    assert "not rehearsed" in panel.status.value and panel.verification is None
    assert panel.results is not None
    assert panel.results[["call", "target", "outcome"]].values.tolist() == [
        ["move_reward_to_draft", REWARD, "succeeded"]
    ]
    assert list(panel.results_table.frame["target"]) == [REWARD]
    # The panel is rebased on the service as pulled again: the grid shows the new status.
    assert panel.snapshot.rewards.set_index("id").loc[REWARD, "status"] == "DRAFT"
    assert shown(panel).iloc[row_of(panel, REWARD)]["status"] == "DRAFT"
    assert panel.plan is None and panel.apply_button.disabled
    assert not panel.plan_button.disabled and panel.cancel_button.disabled


def test_the_pull_again_is_counted_once_for_each_snapshot_the_panel_holds(
    panel: EditPanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan's cost line shows the pull again's calls in more than one figure, and each
    Plan shows them again: counted from the snapshot once (earlier three times a plan, some
    14 ms each on the demo), then once for the snapshot an Apply pulls."""
    counted: list[ProgramSnapshot] = []

    def counting(snapshot: ProgramSnapshot) -> int:
        counted.append(snapshot)
        return again_calls(snapshot)

    monkeypatch.setattr(edit_panel_module, "again_calls", counting)
    base = panel.snapshot
    _draft_reward(panel)
    plan(panel)
    plan(panel)
    assert f"(with {again_calls(base)} of the pull again after" in panel.budget.value
    assert counted == [base]
    apply(panel)
    assert panel.snapshot is not base
    plan(panel)
    assert counted == [base, panel.snapshot]


def test_an_added_benefit_row_is_created(panel: EditPanel, client: LoyaltyClient) -> None:
    panel.kind_select.value = "benefits"
    assert list(shown(panel).columns) == list(panel.snapshot.benefits.columns)
    panel.add_button.click()
    new = len(panel.frame_of("benefits")) - 1
    assert len(shown(panel)) == new + 1  # the grid shows the empty row
    type_benefit(panel, new, "Edited: Table Beans")
    assert panel.edit.benefits.dtypes.equals(panel.snapshot.benefits.dtypes)
    assert panel.edit.benefits.loc[new, "points_value"] == 75
    plan(panel)
    assert "Plan: 1 to create, 0 to change, 0 to delete" in panel.summary.value

    apply(panel)
    created = list(client.benefits.iter(filters={"name": {"$is": "Edited: Table Beans"}}))
    assert len(created) == 1
    benefit = created[0]
    assert (benefit.type, benefit.status) == ("POINTS", "ACTIVE")
    assert benefit.points is not None
    assert (benefit.points.value, benefit.points.card_definition_id) == (75, CARD_DEFINITION)
    assert panel.results is not None and list(panel.results["target"]) == ["Edited: Table Beans"]


def test_a_deleted_tier_structure_row_needs_allow_deletes(
    panel: EditPanel, client: LoyaltyClient
) -> None:
    status = client.tier_structures.get(TIER_STRUCTURE).status
    assert status != "DELETED"
    panel.kind_select.value = "tier_structures"
    row = row_of(panel, TIER_STRUCTURE)
    panel.grid.select(row, 2)  # a cell of the row, as a click selects it
    assert panel.selected_labels() == [panel.frame_of("tier_structures").index[row]]
    panel.delete_button.click()
    assert TIER_STRUCTURE not in set(panel.edit.tier_structures["id"])
    assert TIER_STRUCTURE not in set(shown(panel)["id"])
    plan(panel)
    assert "0 to change, 1 to delete" in panel.summary.value

    panel.apply_button.click()  # refused before anything is sent, with the plan's message
    assert not panel.busy
    assert "Refused, nothing was sent" in panel.status.value
    assert f"tier structure {TIER_STRUCTURE}" in panel.status.value
    assert "allow_destroy=True" in panel.status.value
    assert client.tier_structures.get(TIER_STRUCTURE).status == status

    panel.allow_destroy.value = True
    apply(panel)
    assert client.tier_structures.get(TIER_STRUCTURE).status == "DELETED"
    assert "succeeded: 1" in panel.status.value


def test_an_apply_runs_with_the_boxes_ticked_when_it_was_pressed(
    panel: EditPanel, client: LoyaltyClient
) -> None:
    """Allow deletes unticked while the Apply's worker starts changes nothing: the run sends
    what its check, on the click, allowed (the worker read the box: its deletes were
    refused after the check had passed them, "Applying stopped")."""
    panel.kind_select.value = "tier_structures"
    panel.grid.select(row_of(panel, TIER_STRUCTURE), 2)
    panel.delete_button.click()
    plan(panel)
    panel.allow_destroy.value = True
    starting, untick = threading.Event(), threading.Event()

    def hold_the_worker(_: object) -> None:  # its first step: the progress bar shown
        if threading.current_thread() is not threading.main_thread():
            starting.set()
            assert untick.wait(30), "the test never let the worker go on"

    panel.progress.layout.observe(hold_the_worker, names="display")
    try:
        panel.apply_button.click()
        assert starting.wait(30)
        panel.allow_destroy.value = False  # from code, as the box is clicked meanwhile
    finally:
        untick.set()
    panel.wait()
    assert "succeeded: 1" in panel.status.value
    assert client.tier_structures.get(TIER_STRUCTURE).status == "DELETED"


def test_unsupported_changes_need_ignore_unsupported(
    panel: EditPanel, client: LoyaltyClient
) -> None:
    row = row_of(panel, REWARD)
    name = client.rewards.get(REWARD).name
    type_into(panel, row, "name", "Renamed in the grid")
    _draft_reward(panel)
    plan(panel)
    assert "1 to change" in panel.summary.value
    assert "1 change the service cannot make" in panel.summary.value
    assert panel.unsupported_table.layout.display == ""
    assert panel.unsupported_table.frame[["key", "column", "after"]].values.tolist() == [
        [REWARD, "name", "Renamed in the grid"]
    ]

    panel.apply_button.click()
    assert (
        "Refused, nothing was sent: the plan holds 1 change the service cannot make"
        in panel.status.value
    )
    assert "ignore_unsupported=True" in panel.status.value
    assert client.rewards.get(REWARD).status == "ACTIVE"

    panel.ignore_unsupported.value = True
    apply(panel)
    reward = client.rewards.get(REWARD)
    assert (reward.status, reward.name) == ("DRAFT", name)  # the rename is not sent


def test_a_value_that_does_not_fit_names_the_frame_row_and_column(panel: EditPanel) -> None:
    panel.kind_select.value = "benefits"
    panel.add_button.click()
    new = len(panel.frame_of("benefits")) - 1
    type_into(panel, new, "name", "Edited: Bad Points")
    type_into(panel, new, "points_value", "lots")
    plan(panel)
    assert f"Cannot plan: benefits row {new}, column &#x27;points_value&#x27;" in (
        panel.status.value
    )
    assert "&#x27;lots&#x27; is not a whole number" in panel.status.value
    assert panel.plan is None and panel.apply_button.disabled
    assert "Traceback" not in panel.status.value

    type_into(panel, new, "points_value", "")  # emptied: the column is Int64 again
    assert panel.edit.benefits["points_value"].dtype == "Int64"
    panel.kind_select.value = "rewards"
    type_into(panel, row_of(panel, REWARD), "status", "PAUSED")  # not a category
    plan(panel)
    assert f"rewards row {row_of(panel, REWARD)}, column &#x27;status&#x27;" in panel.status.value
    assert "&#x27;PAUSED&#x27; is not one of [&#x27;ACTIVE&#x27;" in panel.status.value


def test_typed_text_comes_back_in_the_columns_dtypes(panel: EditPanel) -> None:
    """Each dtype of the frames from the text the grid edits: a nullable integer and float,
    a category, a string, an instant with its time zone, a flag, and a blank as missing."""
    row = row_of(panel, REWARD)
    type_into(panel, row, "end_date", "2026-06-30T18:00:00+02:00")
    type_into(panel, row, "start_date", "2026-02-01")
    type_into(panel, row, "cost_count", "3")
    type_into(panel, row, "digital_gift_voucher_balance", "2.5")
    type_into(panel, row, "metadata", "")
    type_into(panel, row, "type", "DIGITAL")
    edited, base = panel.edit.rewards, panel.snapshot.rewards
    assert edited.dtypes.equals(base.dtypes)
    assert edited.loc[row, "end_date"] == pd.Timestamp("2026-06-30T16:00:00Z")
    assert edited.loc[row, "start_date"] == pd.Timestamp("2026-02-01T00:00:00Z")
    assert edited.loc[row, "cost_count"] == 3
    assert edited.loc[row, "digital_gift_voucher_balance"] == 2.5
    assert pd.isna(cell(edited, row, "metadata"))
    panel.kind_select.value = "card_definitions"
    type_into(panel, 0, "listed", "false")
    assert panel.edit.card_definitions["listed"].dtype == "boolean"
    assert not panel.edit.card_definitions.loc[0, "listed"]
    assert (panel.edit.card_definitions.dtypes == panel.snapshot.card_definitions.dtypes).all()
    plan(panel)  # the changes are planned (as unsupported: no call sets them)
    assert panel.plan is not None
    columns = set(panel.plan.unsupported["column"])
    assert {"end_date", "start_date", "cost_count", "listed"} <= columns


def test_rehearse_shows_the_diff_and_writes_nothing_then_apply_is_verified(
    panel: EditPanel, client: LoyaltyClient
) -> None:
    _draft_reward(panel)
    plan(panel)
    before = ProgramSnapshot.pull(client, progress=False)
    panel.rehearse_button.click()
    panel.wait()
    assert "Rehearsed: 2 changes" in panel.status.value  # status, updated_at
    assert panel.rehearsal is not None
    diff = panel.rehearsal_table.frame
    assert [REWARD, "status", "ACTIVE", "DRAFT"] in (
        diff[["key", "column", "before", "after"]].values.tolist()
    )
    assert panel.rehearsal_table.layout.display == ""
    assert len(before.diff(ProgramSnapshot.pull(client, progress=False))) == 0  # nothing written
    assert client.rewards.get(REWARD).status == "ACTIVE"

    apply(panel)
    assert client.rewards.get(REWARD).status == "DRAFT"
    assert panel.verification is not None and panel.verification.ok
    assert "Verification(ok=True" in panel.verification_table.title.value
    checks = panel.verification_table.frame
    assert set(checks["status"]) == {"as rehearsed"}
    assert [REWARD, "outcome", "succeeded", "succeeded"] in (
        checks[["key", "change", "expected", "actual"]].values.tolist()
    )


@pytest.mark.waits
def test_cancel_stops_the_apply_after_the_requests_in_flight(
    snapshot: ProgramSnapshot, client: LoyaltyClient, fresh: Sandbox
) -> None:
    panel = EditPanel(snapshot, client, concurrency=1)
    active = panel.edit.rewards.index[panel.edit.rewards["status"] == "ACTIVE"]
    for label in active:
        type_into(panel, int(label), "status", "DRAFT")
    plan(panel)
    assert f"{len(active)} to change" in panel.summary.value
    fresh.set_faults(delay_seconds=0.2)  # ``fresh`` clears them afterwards
    panel.apply_button.click()
    assert panel.busy and not panel.cancel_button.disabled
    assert panel.plan_button.disabled and panel.add_button.disabled and not panel.grid.editable
    deadline = time.monotonic() + 30
    while panel.progress.value < 2:
        assert time.monotonic() < deadline, "the apply never got going"
        time.sleep(0.02)
    panel.cancel_button.click()
    assert "Cancelling" in panel.status.value
    panel.wait()
    fresh.clear_faults()

    assert panel.results is not None
    outcomes = panel.results["outcome"].value_counts()
    assert outcomes.get("cancelled", 0) > 0 and outcomes.get("succeeded", 0) >= 2
    assert "cancelled:" in panel.status.value and "\u26a0" in panel.status.value
    drafted = {r.id for r in client.rewards.iter() if r.status == "DRAFT"}
    succeeded = set(panel.results.loc[panel.results["outcome"] == "succeeded", "target"])
    cancelled = set(panel.results.loc[panel.results["outcome"] == "cancelled", "target"])
    assert succeeded <= drafted and not cancelled & drafted
    assert not panel.plan_button.disabled and panel.grid.editable


@pytest.mark.waits
def test_a_cancelled_apply_keeps_the_edits_never_sent_and_apply_again_sends_only_them(
    snapshot: ProgramSnapshot, client: LoyaltyClient, fresh: Sandbox
) -> None:
    """No work lost, none repeated: after Cancel the edits never sent stay in the panel on
    top of the service pulled again, and a second Apply sends exactly them."""
    panel = EditPanel(snapshot, client, concurrency=1)
    panel.kind_select.value = "benefits"  # a create: sent first
    panel.add_button.click()
    new = len(panel.frame_of("benefits")) - 1
    type_benefit(panel, new, "Edited: Cancelled Beans")
    panel.kind_select.value = "tier_structures"  # a delete: sent last
    panel.grid.select(row_of(panel, TIER_STRUCTURE), 2)
    panel.delete_button.click()
    panel.kind_select.value = "rewards"
    active = set(panel.edit.rewards.loc[panel.edit.rewards["status"] == "ACTIVE", "id"])
    for reward in sorted(active):
        type_into(panel, row_of(panel, reward), "status", "DRAFT")
    panel.allow_destroy.value = True
    plan(panel)
    assert panel.plan is not None and len(panel.plan.changes) == len(active) + 2
    fresh.set_faults(delay_seconds=0.2)  # ``fresh`` clears them afterwards
    panel.apply_button.click()
    deadline = time.monotonic() + 30
    while panel.progress.value < 3:
        assert time.monotonic() < deadline, "the apply never got going"
        time.sleep(0.02)
    panel.cancel_button.click()
    panel.wait()
    fresh.clear_faults()

    first = panel.results
    assert first is not None
    sent = set(zip(first["call"], first["target"], strict=True))
    rest = {
        (call, target)
        for call, target, outcome in zip(
            first["call"], first["target"], first["outcome"], strict=True
        )
        if outcome == "cancelled"
    }
    sent -= rest
    assert rest and ("create_benefit", "Edited: Cancelled Beans") in sent
    assert ("delete_tier_structure", TIER_STRUCTURE) in rest
    drafted = {r.id for r in client.rewards.iter() if r.status == "DRAFT"}
    assert {t for c, t in sent if c == "move_reward_to_draft"} <= drafted

    # The panel keeps the rest as edits on top of the pull: every reward edited shows DRAFT
    # (the sent ones live, the others pending), the created benefit once, its id filled.
    live = panel.snapshot.rewards
    assert set(live.loc[live["status"] == "DRAFT", "id"]) == drafted
    edited = panel.edit.rewards.set_index("id")["status"]
    assert (edited[sorted(active)] == "DRAFT").all()
    assert set(shown(panel).loc[lambda f: f["id"].isin(active), "status"]) == {"DRAFT"}
    benefits = panel.edit.benefits
    named = benefits[benefits["name"] == "Edited: Cancelled Beans"]
    assert len(named) == 1 and named["id"].notna().all()
    assert TIER_STRUCTURE not in set(panel.edit.tier_structures["id"])
    assert TIER_STRUCTURE in set(panel.snapshot.tier_structures["id"])
    assert "never sent" in panel.status.value

    assert panel.plan is not None  # planned again: exactly the rest, Apply armed
    assert set(zip(panel.plan.changes["call"], panel.plan.changes["key"], strict=True)) == rest
    assert len(panel.plan.changes) == len(rest)
    apply(panel)
    second = panel.results
    assert second is not None and set(second["outcome"]) == {"succeeded"}
    assert set(zip(second["call"], second["target"], strict=True)) == rest  # none repeated
    assert {r.id for r in client.rewards.iter() if r.status == "DRAFT"} >= active
    assert client.tier_structures.get(TIER_STRUCTURE).status == "DELETED"
    created = list(client.benefits.iter(filters={"name": {"$is": "Edited: Cancelled Beans"}}))
    assert len(created) == 1
    plan(panel)
    assert panel.plan is not None and len(panel.plan) == 0  # nothing left


def test_an_apply_keeps_the_edits_that_failed_or_were_ignored_and_apply_again_sends_them(
    panel: EditPanel, client: LoyaltyClient
) -> None:
    """No work lost, none repeated: an edit the service refused and one Ignore unsupported
    left out stay in the panel, said not applied with the reason, on top of the service
    pulled again; the next Apply sends the one it can make, and nothing already made."""
    name = "Edited: Locked Beans"
    row = row_of(panel, REWARD)
    type_into(panel, row, "name", "Renamed in the grid")  # no call renames a reward
    _draft_reward(panel)
    panel.kind_select.value = "benefits"
    panel.add_button.click()
    new = len(panel.frame_of("benefits")) - 1
    type_benefit(panel, new, name)
    type_into(panel, new, "card_definition_id", "lcdef_c0ffee0004")  # DRAFT: 423 for ACTIVE
    plan(panel)
    panel.ignore_unsupported.value = True
    apply(panel)

    first = panel.results
    assert first is not None
    outcomes = dict(zip(first["call"], first["outcome"], strict=True))
    assert outcomes == {"create_benefit": "failed", "move_reward_to_draft": "succeeded"}
    assert client.rewards.get(REWARD).status == "DRAFT"
    assert not list(client.benefits.iter(filters={"name": {"$is": name}}))
    # Both kept on top of the pull, planned again, and said not applied with the reason.
    edited = panel.edit.rewards.set_index("id")
    assert tuple(edited.loc[REWARD, ["name", "status"]]) == ("Renamed in the grid", "DRAFT")
    assert panel.snapshot.rewards.set_index("id").loc[REWARD, "status"] == "DRAFT"
    typed = panel.edit.benefits[panel.edit.benefits["name"] == name]
    assert len(typed) == 1 and typed["id"].isna().all()
    assert panel.plan is not None
    assert panel.plan.changes[["call", "key"]].to_numpy().tolist() == [["create_benefit", name]]
    assert panel.plan.unsupported[["key", "column"]].to_numpy().tolist() == [[REWARD, "name"]]
    missed = panel.not_applied_table.frame.set_index("key")
    assert missed.loc[name, "not_applied"] == "failed"
    assert cell(missed, name, "reason").startswith("423 ")
    assert missed.loc[REWARD, "not_applied"] == "unsupported"
    assert (missed.loc[REWARD, "column"], missed.loc[REWARD, "after"]) == (
        "name",
        "Renamed in the grid",
    )
    assert panel.not_applied_table.layout.display == ""
    assert "2 edits not applied (1 failed, 1 unsupported)" in panel.status.value

    # The failed create fixed (an ACTIVE card definition): Apply sends it, and it alone.
    panel.kind_select.value = "benefits"
    type_into(panel, int(typed.index[0]), "card_definition_id", CARD_DEFINITION)
    plan(panel)
    apply(panel)
    second = panel.results
    assert second is not None
    assert second[["call", "target", "outcome"]].to_numpy().tolist() == [
        ["create_benefit", name, "succeeded"]
    ]
    assert len(list(client.benefits.iter(filters={"name": {"$is": name}}))) == 1
    missed = panel.not_applied_table.frame
    assert missed[["key", "not_applied"]].to_numpy().tolist() == [[REWARD, "unsupported"]]
    assert panel.plan is not None and len(panel.plan.changes) == 0  # nothing left to send
    # Only the unsupported rename is left: Apply is not armed, and refuses unsent (before,
    # it sent nothing and then pulled the whole service again).
    assert panel.apply_button.disabled
    sent = client.quota.calls_used
    assert panel.apply() is False
    assert "Nothing to send: the plan holds no change the service can make, only 1 change" in (
        panel.status.value
    )
    assert client.quota.calls_used == sent


def test_edits_of_every_frame_make_one_plan_and_an_edit_makes_it_stale(
    panel: EditPanel,
) -> None:
    _draft_reward(panel)
    panel.kind_select.value = "tier_structures"
    panel.grid.select(row_of(panel, TIER_STRUCTURE), 0)
    panel.delete_button.click()
    panel.kind_select.value = "rewards"
    assert shown(panel).iloc[row_of(panel, REWARD)]["status"] == "DRAFT"  # still edited
    plan(panel)
    assert "0 to create, 1 to change, 1 to delete" in panel.summary.value
    assert not panel.rehearse_button.disabled

    type_into(panel, row_of(panel, REWARD), "status", "ACTIVE")  # back as it was
    assert panel.plan is None and panel.summary.value == ""
    assert panel.apply_button.disabled and panel.rehearse_button.disabled


def test_delete_follows_the_rows_as_the_browser_sorted_them(panel: EditPanel) -> None:
    panel.kind_select.value = "tier_structures"
    frame = panel.frame_of("tier_structures")
    panel.grid._visible_rows = list(reversed(range(len(frame))))  # sorted in the browser
    panel.grid.select(0, 0)  # the first row shown: the frame's last
    assert panel.selected_labels() == [frame.index[-1]]
    panel.delete_button.click()
    assert list(panel.edit.tier_structures.index) == list(frame.index[:-1])

    panel.delete_button.click()  # nothing selected any more
    assert "Select a cell in each row to delete first." in panel.status.value


def test_without_a_client_it_plans_and_rehearses_but_does_not_apply(
    snapshot: ProgramSnapshot, client: LoyaltyClient
) -> None:
    panel = EditPanel(snapshot)
    _draft_reward(panel)
    plan(panel)
    assert "1 to change" in panel.summary.value and panel.budget.value == ""
    assert panel.apply_button.disabled and not panel.rehearse_button.disabled
    assert panel.apply() is False
    assert "Apply needs a client" in panel.status.value
    assert client.rewards.get(REWARD).status == "ACTIVE"


def test_a_client_set_after_the_panel_was_built_arms_apply_at_once(
    snapshot: ProgramSnapshot, client: LoyaltyClient
) -> None:
    """Built first and connected later: setting ``client`` re-arms Apply, no step needed."""
    panel = EditPanel(snapshot)
    _draft_reward(panel)
    plan(panel)
    assert panel.apply_button.disabled  # no client yet
    panel.client = client
    assert not panel.apply_button.disabled
    panel.client = None
    assert panel.apply_button.disabled
    panel.client = client
    apply(panel)
    assert "Applied: succeeded: 1" in panel.status.value
    assert client.rewards.get(REWARD).status == "DRAFT"


def test_bad_arguments_are_refused_with_a_clear_error(snapshot: ProgramSnapshot) -> None:
    with pytest.raises(TypeError, match="snapshot: expected a ProgramSnapshot, not dict"):
        EditPanel({})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind: 'webhooks' is not a frame; choose one of"):
        EditPanel(snapshot, kind="webhooks")
    with pytest.raises(ValueError, match="concurrency: 0 requests in flight; at least 1"):
        EditPanel(snapshot, concurrency=0)


def test_the_panel_plans_what_the_actions_api_plans(panel: EditPanel) -> None:
    """The grid's edits and the same edit in pandas make the same plan."""
    _draft_reward(panel)
    plan(panel)
    by_hand = actions.edit(panel.snapshot)
    by_hand.rewards.loc[by_hand.rewards["id"] == REWARD, "status"] = "DRAFT"
    assert panel.plan is not None
    assert panel.plan.changes.equals(by_hand.plan().changes)


def _browser_repeats(grid: Any, row: int, column: str, value: Any) -> None:
    """The message the browser sends back for a cell set from Python (as for a user's edit)."""
    content = {
        "event_type": "cell-changed",
        "region": "body",
        "row": row,
        "column_index": grid._column_name_to_index(column),
        "value": value,
    }
    grid._handle_custom_msg(content, [])


def test_the_browser_repeating_cells_set_from_python_changes_nothing(panel: EditPanel) -> None:
    """A notebook sets cells and goes on (another frame, a plan); the browser's answers
    arrive once the kernel is idle, and must neither land elsewhere nor stale the plan."""
    row = row_of(panel, REWARD)
    _draft_reward(panel)
    rewards_grid = panel.grid
    panel.kind_select.value = "benefits"
    assert panel.grid is not rewards_grid  # a new grid for each frame shown
    plan(panel)
    benefits = panel.edit.benefits.copy()

    _browser_repeats(rewards_grid, row, "status", "DRAFT")  # the old grid's answer
    assert panel.edit.benefits.equals(benefits)
    panel.kind_select.value = "rewards"
    _browser_repeats(panel.grid, row, "status", "DRAFT")  # the same value: no edit
    assert panel.plan is not None and "1 to change" in panel.summary.value
    _browser_repeats(panel.grid, row, "status", "ACTIVE")  # a real edit
    assert panel.plan is None and panel.edit.rewards.loc[row, "status"] == "ACTIVE"


@pytest.fixture(scope="module")
def budget_sb() -> Iterator[Sandbox]:
    """A demo sandbox whose project allows 20 calls an hour."""
    with Sandbox.start(now="2026-01-15T12:00:00Z", seed=7, plan="20/hour") as sandbox:
        yield sandbox


def test_an_apply_the_budget_cannot_carry_is_refused_before_anything_is_sent(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    budget_sb.set_plan("unlimited")
    with make_client(budget_sb) as client:
        panel = EditPanel(ProgramSnapshot.pull(client, progress=False), client)
        budget_sb.set_plan("20/hour")  # a fresh window
        client.rewards.list(limit=1)  # an answer carrying the limit
        remaining = client.quota.remaining
        active = panel.edit.rewards.index[panel.edit.rewards["status"] == "ACTIVE"]
        assert remaining is not None and len(active) > remaining
        for label in active:
            type_into(panel, int(label), "status", "DRAFT")
        plan(panel)
        assert f"remaining this window: {remaining} of 20" in panel.budget.value
        used = budget_sb.plan()["used"]
        panel.apply_button.click()
        assert not panel.busy
        assert "Refused, nothing was sent: the call budget cannot carry it" in panel.status.value
        again = again_calls(panel.snapshot)
        assert f"calls needed: {len(active) + again}" in panel.status.value
        assert f"count {again} calls of pulling the service again" in panel.status.value
        assert budget_sb.plan()["used"] == used  # not one request


def test_an_apply_whose_pull_again_the_budget_cannot_hold_is_refused_before_anything_is_sent(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """The change fits, a whole pull again does not: the Apply counts both, and sends
    nothing rather than writes whose pull afterwards the budget would refuse."""
    budget_sb.reset()
    budget_sb.set_plan("unlimited")
    try:
        with make_client(budget_sb) as client:
            panel = EditPanel(ProgramSnapshot.pull(client, progress=False), client)
            budget_sb.set_plan("20/hour")
            client.rewards.list(limit=1)  # an answer carrying the limit
            _draft_reward(panel)
            plan(panel)
            used = budget_sb.plan()["used"]
            panel.apply_button.click()
            assert not panel.busy and budget_sb.plan()["used"] == used  # nothing sent
            assert "Refused, nothing was sent" in panel.status.value
            assert "of pulling the service again after the apply" in panel.status.value
            assert client.rewards.get(REWARD).status == "ACTIVE"
    finally:
        budget_sb.set_plan("unlimited")
        budget_sb.reset()


def test_an_apply_whose_pull_again_no_window_holds_is_refused_naming_the_paced_apply_that_ends(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """The pull again (26 calls) needs more than the panel's share of any window (10 of 20),
    as a whole 20,000-member snapshot's 24,229 do of a professional window's 2,500: every
    unpaced Apply is refused, whatever its size. The refusal says so, and that a paced Apply
    sends the plan's own call now, not after a reset, and ends there; it does."""
    budget_sb.reset()
    budget_sb.set_plan("unlimited")
    try:
        with make_client(budget_sb) as client:
            panel = EditPanel(ProgramSnapshot.pull(client, progress=False), client)
            budget_sb.set_plan("20/hour")
            client.rewards.list(limit=1)  # an answer carrying the limit
            _draft_reward(panel)
            plan(panel)
            again = again_calls(panel.snapshot)
            assert again > 10
            assert "a paced Apply goes through, ending with its writes" in panel.budget.value
            used = budget_sb.plan()["used"]
            panel.apply_button.click()
            assert not panel.busy and budget_sb.plan()["used"] == used  # nothing sent
            status = html.unescape(panel.status.value)
            assert "Refused, nothing was sent" in status
            assert (
                f"the calls needed count {again} calls of pulling the service again after the"
                " apply, more than the panel's share of a whole window (10 calls): no window"
                " lets an unpaced Apply go through" in status
            ), status
            assert "waiting for each reset" not in status
            assert "paced = True" in status and "sends the plan's 1 call now" in status

            panel.action_log = tmp_path / "paced.jsonl"
            panel.paced = True
            apply(panel)
            assert budget_sb.plan()["used"] == used + 1  # the write, and no pull again
            assert client.rewards.get(REWARD).status == "DRAFT"
            assert "Applied: succeeded: 1; the service was not pulled again" in panel.status.value
    finally:
        budget_sb.set_plan("unlimited")
        budget_sb.reset()


def _shrinks_after_a_write(sb: Sandbox, plan: str) -> Callable[[httpx.Response], None]:
    """A response hook putting ``plan`` in force once a write is answered: other traffic
    spending the window between an Apply's writes and its pull again."""
    done: list[bool] = []

    def hook(response: httpx.Response) -> None:
        request = response.request
        if not done and request.method != "GET" and request.url.path.startswith("/v2/"):
            done.append(True)
            sb.set_plan(plan)

    return hook


def test_a_sampled_snapshot_is_pulled_again_as_a_sample_for_the_calls_shown(
    start_sandbox: Callable[..., Any],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """A whole pull again of 300 members does not fit the window; the base's sample design
    (join bands and allocation not the defaults) does: the pull again draws the very same
    sample, and the Apply sends exactly the calls its Plan showed. The base is read from its
    folder, so the count is its data's alone, not what its own pull sent."""
    program = generate_program(
        members=300, rewards=12, benefits=6, card_definitions=2, tier_structures=1, seed=5
    )
    asked = Sample(20, seed=2, bands=3, allocation="proportional")
    with start_sandbox(program, now=program["now"]) as sb, make_client(sb) as client:
        sb.set_plan("unlimited")
        ProgramSnapshot.pull(client, progress=False, sample=asked).to_parquet(tmp_path)
        base = read_snapshot(tmp_path)
        assert base.sample is not None and base.calls is None
        sb.set_plan("200/hour")  # half of it: far fewer than a read per member
        client.rewards.list(limit=1)  # an answer carrying the limit
        panel = EditPanel(base, client)
        reward = str(base.rewards["id"].iloc[0])
        status = "DRAFT" if base.rewards["status"].iloc[0] == "ACTIVE" else "ACTIVE"
        type_into(panel, 0, "status", status)
        plan(panel)
        needed = 1 + again_calls(base)
        assert f"calls needed: {needed} (with {needed - 1} of the pull again" in panel.budget.value
        used = sb.plan()["used"]
        apply(panel)
        assert "Applied: succeeded: 1" in panel.status.value, panel.status.value
        assert "could not be pulled again" not in panel.status.value
        assert sb.plan()["used"] - used == needed  # the calls shown, no more
        again = panel.snapshot.sample
        assert again is not None and again.drawn_by == base.sample.drawn_by == asked
        pd.testing.assert_frame_equal(again.strata, base.sample.strata)
        pd.testing.assert_frame_equal(again.units, base.sample.units)
        assert panel.snapshot.rewards.set_index("id").loc[reward, "status"] == status


def test_a_sampled_snapshot_is_not_rehearsed_and_the_calls_line_shows_the_budget(
    start_sandbox: Callable[..., Any],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """On a sampled snapshot Rehearse stays disabled, and asked anyway it says why before any
    sandbox starts (a sample cannot stand for the whole program). A client that has sent
    nothing yet reads the budget when Plan costs the plan, and after the Apply the calls
    line shows the budget left, not the sent plan's cost."""
    program = generate_program(
        members=300, rewards=12, benefits=6, card_definitions=2, tier_structures=1, seed=5
    )
    with start_sandbox(program, now=program["now"]) as sb:
        sb.set_plan("1000/hour")
        with make_client(sb) as puller:
            ProgramSnapshot.pull(puller, progress=False, sample=20).to_parquet(tmp_path)
        base = read_snapshot(tmp_path)
        with make_client(sb) as client:
            panel = EditPanel(base, client)
            status = "DRAFT" if base.rewards["status"].iloc[0] == "ACTIVE" else "ACTIVE"
            type_into(panel, 0, "status", status)
            plan(panel)
            assert "Planned: 1 change" in panel.status.value
            assert panel.rehearse_button.disabled and not panel.apply_button.disabled
            assert not panel.rehearse()
            text = html.unescape(panel.status.value)
            assert "Rehearse is off: snapshot: a stratified sample of 20 of 300 members" in text
            assert "cannot stand for production in a rehearsal" in text and "stopped" not in text
            left = sb.plan()["remaining"]
            assert f"remaining this window: {left} of 1,000" in panel.budget.value
            assert "budget unknown" not in panel.budget.value
            apply(panel)
            assert "Applied: succeeded: 1" in panel.status.value, panel.status.value
            left = sb.plan()["remaining"]
            assert panel.budget.value.startswith(f"after the apply: remaining this window: {left}")


SECOND = "lrew_c0ffee0002"
"""A second reward ACTIVE in the demo program."""


@contextmanager
def _drafts_planned(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient], *others: str
) -> Iterator[tuple[LoyaltyClient, EditPanel]]:
    """A panel on the demo program planning ``REWARD`` and the rewards ``others`` back to
    draft, one write at a time, its client's window put at 20 calls an hour, other
    traffic's, once the first write is answered; the sandbox reset after."""
    budget_sb.reset()
    budget_sb.set_plan("unlimited")
    hook = _shrinks_after_a_write(budget_sb, "20/hour")
    try:
        http = httpx.Client(event_hooks={"response": [hook]}, verify=TLS)
        with make_client(budget_sb, http_client=http) as client:
            panel = EditPanel(ProgramSnapshot.pull(client, progress=False), client, concurrency=1)
            _draft_reward(panel)
            for reward in others:
                type_into(panel, row_of(panel, reward), "status", "DRAFT")
            plan(panel)
            yield client, panel
    finally:
        budget_sb.set_plan("unlimited")
        budget_sb.reset()


def test_an_apply_whose_pull_again_is_refused_says_it_applied_and_is_not_armed_again(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """The writes went through: a pull afterwards that the budget refuses (other traffic
    spent the window meanwhile) neither reports the apply as stopped nor leaves the same
    plan to send again."""
    with _drafts_planned(budget_sb, make_client) as (client, panel):
        apply(panel)
        assert client.rewards.get(REWARD).status == "DRAFT"
        assert panel.results is not None
        assert panel.results["outcome"].tolist() == ["succeeded"]
        assert "Applying stopped" not in panel.status.value
        assert "Applied: succeeded: 1" in panel.status.value
        assert "could not be pulled again" in panel.status.value
        assert panel.plan is None and panel.apply_button.disabled  # not armed again
        used = budget_sb.plan()["used"]
        panel.apply()  # as a second click would
        assert not panel.busy and budget_sb.plan()["used"] == used  # nothing sent


def test_an_apply_after_whose_writes_the_budget_cannot_hold_the_pull_again_does_not_start_it(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Other traffic spends the window during the writes: the second write's answer says so,
    and the pull again, which no longer fits, is not started (not one read sent); the status
    says the writes are done, nothing is verified, and how to go on: the paced pull, as the
    pull again needs more than the share of a whole window."""
    with _drafts_planned(budget_sb, make_client, SECOND) as (client, panel):
        apply(panel)
        assert panel.results is not None
        assert panel.results["outcome"].tolist() == ["succeeded", "succeeded"]
        assert budget_sb.plan()["used"] == 1  # the second write; no read after it
        status = panel.status.value
        assert "Applied: succeeded: 2; the service was not pulled again" in status, status
        # The pull again (26 calls) needs more than half of a whole window of 20: a reset
        # would not let it run, so the way on is the paced pull, not Plan after the reset.
        assert "Press Plan once the window resets" not in status
        assert (
            "A reset will not let it run: it needs more than the panel&#x27;s share of a"
            " whole window (10 calls)" in status
        )
        assert "ProgramSnapshot.pull(client, kinds=[" in status and "checkpoint=" in status
        assert panel.verification is None and panel.plan is None
        assert panel.apply_button.disabled  # not armed again with the plan sent
        assert {client.rewards.get(r).status for r in (REWARD, SECOND)} == {"DRAFT"}


def test_a_rehearsed_apply_whose_pull_again_the_budget_cannot_hold_reads_what_it_changed(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """As above, but rehearsed: instead of nothing, the Apply is verified reading only the two
    rewards the rehearsal changed (one listing by ID), and the status says what was not read."""
    with _drafts_planned(budget_sb, make_client, SECOND) as (_, panel):
        panel.rehearse_button.click()
        panel.wait()
        apply(panel)
        assert budget_sb.plan()["used"] == 2  # the second write, then one listing by ID
        status = panel.status.value
        assert "the service was not pulled again" in status, status
        assert "verified against the rehearsal reading only what the rehearsal changed" in status
        assert "a change production made to any other object is not seen" in status
        assert panel.verification is not None and panel.verification.ok
        assert panel.verification.scope is not None
        assert panel.plan is None and panel.apply_button.disabled


def test_an_apply_whose_pull_again_a_whole_window_holds_says_to_plan_after_the_reset(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """The window is put at 60 calls and other traffic spends 40 of it once the first write
    is answered: the pull again (26 calls) does not fit half of what is left, but fits half
    of a whole window, so the way on is Plan after the reset."""
    budget_sb.reset()
    budget_sb.set_plan("unlimited")
    shrink = _shrinks_after_a_write(budget_sb, "60/hour")

    def hook(response: httpx.Response) -> None:
        if budget_sb.plan()["limit"] is None:
            shrink(response)
            if budget_sb.plan()["limit"] is not None:
                for _ in range(40):
                    other.programs.list(limit=1)

    try:
        with (
            make_client(budget_sb) as other,
            httpx.Client(event_hooks={"response": [hook]}, verify=TLS) as http,
            make_client(budget_sb, http_client=http) as client,
        ):
            panel = EditPanel(ProgramSnapshot.pull(client, progress=False), client, concurrency=1)
            _draft_reward(panel)
            type_into(panel, row_of(panel, SECOND), "status", "DRAFT")
            plan(panel)
            apply(panel)
            status = panel.status.value
            assert "the service was not pulled again" in status, status
            assert "Press Plan once the window resets" in status
            assert "A reset will not let it run" not in status
    finally:
        budget_sb.set_plan("unlimited")
        budget_sb.reset()


def test_after_a_pull_that_failed_plan_pulls_again_first_and_sends_nothing_twice(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """The snapshot lacks the last Apply's writes: planning from it would create the benefit
    again. Plan refuses while the service cannot be pulled, then takes the pull, keeping an
    edit made meanwhile and nothing the Apply sent."""
    budget_sb.reset()
    budget_sb.set_plan("unlimited")
    name = "Edited: Pulled Beans"
    hook = _shrinks_after_a_write(budget_sb, "20/hour")
    try:
        http = httpx.Client(event_hooks={"response": [hook]}, verify=TLS)
        with make_client(budget_sb, http_client=http) as client:
            panel = EditPanel(ProgramSnapshot.pull(client, progress=False), client)
            panel.kind_select.value = "benefits"
            panel.add_button.click()
            new = len(panel.frame_of("benefits")) - 1
            type_benefit(panel, new, name)
            plan(panel)
            apply(panel)
            assert "could not be pulled again" in panel.status.value
            panel.kind_select.value = "rewards"
            _draft_reward(panel)  # edited after the apply

            used = budget_sb.plan()["used"]
            for _ in range(2):  # the service still cannot be pulled: not tried, twice
                plan(panel)
                assert panel.plan is None and panel.apply_button.disabled
                status = panel.status.value
                assert "Cannot plan: the snapshot does not hold the last Apply" in status
                assert "pulling the service again needs" in status
                assert "nothing was sent" in status and "A reset will not let it run" in status
                assert budget_sb.plan()["used"] == used

            budget_sb.set_plan("professional")
            client.rewards.list(limit=1)  # its answer tells the client of the new limit
            plan(panel)
            assert name in set(panel.snapshot.benefits["name"])  # the pull, as the new base
            assert panel.plan is not None
            assert panel.plan.changes[["call", "key"]].to_numpy().tolist() == [
                ["move_reward_to_draft", REWARD]
            ]
            apply(panel)
            assert client.rewards.get(REWARD).status == "DRAFT"
            created = list(client.benefits.iter(filters={"name": {"$is": name}}))
            assert len(created) == 1
    finally:
        budget_sb.set_plan("unlimited")
        budget_sb.reset()


BUCKET = "lcppb_c0ffee0001"  # PENDING, dated after the sandbox's today: the service activates it
SEND_AGAIN = "Send refused writes again"  # the box's label


def _pending(client: LoyaltyClient, bucket: pd.Series) -> bool:
    """Whether the service lists ``bucket`` (a ``pending_buckets`` row) as PENDING still."""
    ids = (bucket["program_id"], bucket["member_id"], bucket["card_id"])
    return BUCKET in {b.id for b in client.pending_buckets.iter(*ids)}


def _calls_needed(panel: EditPanel) -> int:
    match = re.search(r"calls needed: (\d+)", panel.budget.value)
    assert match is not None, panel.budget.value
    return int(match[1])


def _activation_refused(
    fresh: Sandbox, snapshot: ProgramSnapshot, client: LoyaltyClient, log: Path
) -> tuple[EditPanel, Any, str]:
    """A panel with ``log`` whose Apply of BUCKET's activation was refused 423 (its day
    reached, the sandbox's clock left there), the bucket, and the sandbox's today before."""
    panel = EditPanel(snapshot, client, kind="pending_buckets", log=log)
    bucket: Any = snapshot.pending_buckets.set_index("id").loc[BUCKET]
    today = fresh.now()
    fresh.set_clock(f"{bucket['date']:%Y-%m-%d}T12:00:00Z")  # the bucket's day reached: refused 423
    type_into(panel, row_of(panel, BUCKET), "status", "ACTIVATED")
    plan(panel)
    apply(panel)
    return panel, bucket, today


def test_a_write_refused_for_good_is_said_held_and_sent_again_once_send_refused_is_ticked(
    fresh: Sandbox, snapshot: ProgramSnapshot, client: LoyaltyClient, tmp_path: Path
) -> None:
    """With a log, an activation refused 423 (its day reached) is said refused for good and
    not sent again by a plain Apply, which says so with a count (and, holding nothing else,
    sends nothing); once what refused it is put right, ticking Send refused writes again
    counts it in the cost, and Apply reconsiders the log and sends it. The steps' thread
    never reads the box (nor the frame chosen), and unticks it as a load shows its list (it
    read both and wrote the box, earlier)."""
    log = tmp_path / "edits.log.jsonl"
    panel, bucket, today = _activation_refused(fresh, snapshot, client, log)
    seen = off_thread(panel, panel.send_refused, panel.kind_select)

    assert panel.results is not None
    assert panel.results.set_index("target").loc[BUCKET, "status"] == 423
    assert "1 write refused for good" in panel.status.value
    assert f"then tick {SEND_AGAIN} and Apply" in panel.status.value
    missed = panel.not_applied_table.frame.set_index("key")
    assert missed.loc[BUCKET, "not_applied"] == "refused for good"
    assert panel.send_refused.layout.display == "" and not panel.send_refused.value
    assert "1 write refused for good not counted" in panel.budget.value

    fresh.set_clock(today)  # what refused it put right
    # A plain Apply of it alone sends nothing, and says why.
    sent = client.quota.calls_used
    panel.apply_button.click()
    assert (
        "Nothing to send: the plan holds only 1 write refused for good before, not sent again"
        f" (tick {SEND_AGAIN} to send it)"
    ) in html.unescape(panel.status.value)
    assert client.quota.calls_used == sent and _pending(client, bucket)

    # With another change, a plain Apply sends that one alone and counts the one it held.
    panel.kind_select.value = "rewards"
    _draft_reward(panel)
    plan(panel)
    plain = _calls_needed(panel)
    apply(panel)
    assert client.rewards.get(REWARD).status == "DRAFT" and _pending(client, bucket)
    assert "1 write refused for good (1 of them refused before, not sent this time;" in (
        panel.status.value
    )

    # Ticked: the cost counts the write, and Apply reconsiders the log, then sends it.
    assert panel.plan is not None and "1 write refused for good not counted" in panel.budget.value
    unticked = _calls_needed(panel)
    panel.rehearse_button.click()  # unticked, rehearsed as a plain Apply sends: without it
    panel.wait()
    assert panel.rehearsal is not None and len(panel.rehearsal.diff.changes) == 0
    panel.send_refused.value = True
    assert panel.rehearsal is None  # it rehearsed other writes than an Apply now sends
    assert "1 write refused for good sent again" in panel.budget.value
    assert _calls_needed(panel) == unticked + 1 and unticked < plain
    panel.rehearse_button.click()  # rehearsed as Apply will send it: the activation too
    panel.wait()
    assert panel.rehearsal is not None
    assert BUCKET in set(panel.rehearsal.diff.changes["key"])
    needed, sent = _calls_needed(panel), client.quota.calls_used
    apply(panel)
    assert client.quota.calls_used - sent == needed
    assert panel.results is not None
    assert panel.results.set_index("target").loc[BUCKET, "outcome"] == "succeeded"
    assert panel.verification is not None and panel.verification.ok  # as rehearsed
    fresh.settle()
    assert not _pending(client, bucket)
    assert '"lyt-action-reconsidered/1"' in log.read_text()
    assert not panel.send_refused.value and panel.send_refused.layout.display == "none"
    assert "refused for good" not in panel.status.value
    assert seen == []


def test_an_apply_with_send_refused_ticked_that_sends_no_write_leaves_the_refusals_held(
    fresh: Sandbox, snapshot: ProgramSnapshot, client: LoyaltyClient, tmp_path: Path
) -> None:
    """An Apply with Send refused writes again ticked that stops before its first write
    (another writer holds the log) reconsiders nothing: the box stays ticked, the status
    says so, and the user's next plain Apply (the box unticked) does not send the write
    refused for good, only the other change."""
    log = tmp_path / "edits.log.jsonl"
    panel, bucket, today = _activation_refused(fresh, snapshot, client, log)
    assert "1 write refused for good" in panel.status.value
    fresh.set_clock(today)  # what refused it put right
    panel.kind_select.value = "rewards"
    _draft_reward(panel)
    plan(panel)
    panel.send_refused.value = True

    sent = client.quota.calls_used
    with held(log, "is being written"):  # another writer: the Apply stops before any write
        apply(panel)
    assert client.quota.calls_used == sent
    status = html.unescape(panel.status.value)
    assert "Applying stopped" in status and "is being written" in status
    assert f"held still and {SEND_AGAIN} stays ticked" in status
    assert panel.send_refused.value
    assert "lyt-action-reconsidered" not in log.read_text()

    panel.send_refused.value = False  # the user's plain Apply
    assert "1 write refused for good not counted" in panel.budget.value
    apply(panel)
    assert panel.results is not None
    outcomes = panel.results.set_index("target")["outcome"]
    assert outcomes[REWARD] == "succeeded" and outcomes[BUCKET] != "succeeded"
    assert _pending(client, bucket)
    assert "1 of them refused before, not sent this time" in panel.status.value
