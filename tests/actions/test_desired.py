"""Edit the program as a table, over real HTTP: the edited frames become a plan of the
existing actions, shown, refused when it deletes, cannot be made or does not fit the
budget, rehearsed on a sandbox from the base snapshot, applied and verified."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from frame_reads import cell, row_of

from lyt_toolkit import Sample, actions
from lyt_toolkit._text import counted
from lyt_toolkit.actions import ChangePlan, EditError
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import BudgetExceededError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import BUCKET, SECRETS, TIERS, bonus, first_id, four_kinds, four_kinds_plan, pull


def test_an_edit_holds_copies_the_base_never_sees(fresh_pulled: ProgramSnapshot) -> None:
    snapshot = fresh_pulled
    edit = actions.edit(snapshot)
    edit.rewards.loc[:, "name"] = "changed"
    assert not (snapshot.rewards["name"] == "changed").any()
    assert len(edit.plan().unsupported) == len(snapshot.rewards)


def test_each_supported_kind_is_planned_rehearsed_applied_and_verified(
    client: LoyaltyClient, tmp_path: Path, fresh_pulled: ProgramSnapshot
) -> None:
    snapshot = fresh_pulled
    plan, targets = four_kinds_plan(snapshot)

    expected = [
        ("benefits", "Bonus 05", "create", "create_benefit"),
        ("rewards", targets["move_reward_to_draft"], "change", "move_reward_to_draft"),
        ("pending_buckets", BUCKET, "change", "activate_pending_bucket"),
        ("tier_structures", TIERS, "delete", "delete_tier_structure"),
    ]
    got = plan.changes[["kind", "key", "action", "call"]].astype(str)
    assert [tuple(r) for r in got.to_numpy()] == expected
    assert plan.changes["calls"].tolist() == [1, 1, 1, 1]
    assert plan.unsupported.empty
    assert [p.action for p in plan.parts] == [e[3] for e in expected]

    rehearsal = plan.rehearse(progress=False)
    rehearsed = rehearsal.diff.changes.astype(str)

    def rehearsed_rows(kind: str) -> list[list[str]]:
        rows = rehearsed[rehearsed["kind"] == kind]
        return rows[["key", "change", "column", "after"]].to_numpy().tolist()

    reward = targets["move_reward_to_draft"]
    assert rehearsed_rows("rewards") == [[reward, "changed", "status", "DRAFT"]]
    assert rehearsed_rows("tier_structures") == [[TIERS, "changed", "status", "DELETED"]]
    # activated, the bucket leaves its card's list (the service lists PENDING buckets only)
    assert [r[:2] for r in rehearsed_rows("pending_buckets")] == [[BUCKET, "removed"]]
    [(_, change, _, row)] = rehearsed_rows("benefits")
    assert change == "added" and '"name":"Bonus 05"' in row

    results = plan.apply(client, log=tmp_path / "edit.jsonl", allow_destroy=True, progress=False)
    assert results["call"].tolist() == [e[3] for e in expected]
    assert (results["outcome"] == "succeeded").all()

    after = pull(client)
    reward = row_of(after.rewards.set_index("id"), targets["move_reward_to_draft"])
    assert reward["status"] == "DRAFT"
    assert BUCKET not in set(after.pending_buckets["id"])
    assert after.tier_structures.set_index("id").loc[TIERS, "status"] == "DELETED"
    bonus = after.benefits.set_index("name").loc["Bonus 05"]
    assert (bonus["points_value"], bonus["card_definition_id"]) == (50, targets["card"])
    verification = rehearsal.verify(after, results=results)
    assert verification.ok, verification.problems

    again = plan.apply(client, log=tmp_path / "edit.jsonl", allow_destroy=True, progress=False)
    assert (again["outcome"] == "skipped_already_done").all()


def test_a_tier_structure_set_to_deleted_is_a_delete(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    snapshot = fresh_pulled
    edit = actions.edit(snapshot)
    edit.tier_structures.loc[edit.tier_structures["id"] == TIERS, "status"] = "DELETED"
    plan = edit.plan()
    assert plan.changes[["key", "action", "call"]].astype(str).to_numpy().tolist() == [
        [TIERS, "delete", "delete_tier_structure"]
    ]
    plan.apply(client, allow_destroy=True, progress=False)
    assert pull(client).tier_structures.set_index("id").loc[TIERS, "status"] == "DELETED"


def test_print_shows_the_summary_then_one_line_per_change(fresh_pulled: ProgramSnapshot) -> None:
    snapshot = fresh_pulled
    edit, targets = four_kinds(snapshot)
    renamed = first_id(snapshot.rewards, status="DRAFT")
    old_name = cell(snapshot.rewards.set_index("id"), renamed, "name")
    edit.rewards.loc[edit.rewards["id"] == renamed, "name"] = "Renamed"
    text = str(edit.plan())
    assert text.splitlines() == [
        "Plan: 1 to create, 2 to change, 1 to delete; 1 change the service cannot make; 4 calls",
        f'+ benefit "Bonus 05" points 50 on {targets["card"]}',
        f"~ reward {targets['move_reward_to_draft']} status ACTIVE -> DRAFT",
        f"~ pending bucket {BUCKET} status PENDING -> ACTIVATED",
        f"- tier structure {TIERS}",
        f"! reward {renamed} name {old_name} -> Renamed:"
        " the service has no call to change a reward's name",
    ]


def test_changes_the_service_cannot_make_are_listed_and_refused(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    snapshot = fresh_pulled
    edit = actions.edit(snapshot)
    reward = first_id(snapshot.rewards, status="ACTIVE")
    benefit = str(snapshot.benefits["id"].iloc[0])
    other = "DRAFT" if snapshot.benefits["status"].iloc[0] != "DRAFT" else "ACTIVE"
    edit.rewards.loc[edit.rewards["id"] == reward, "name"] = "New name"
    edit.rewards.loc[edit.rewards["id"] == reward, "created_at"] = pd.Timestamp(
        "2020-01-01", tz="UTC"
    )
    edit.benefits.loc[edit.benefits["id"] == benefit, "status"] = other
    edit.rewards = pd.concat(
        [edit.rewards, pd.DataFrame([{"name": "Brand new", "status": "ACTIVE"}])],
        ignore_index=True,
    )
    edit.card_definitions = pd.concat(
        [edit.card_definitions, pd.DataFrame([{"name": "New card"}])], ignore_index=True
    )
    edit.benefits = pd.concat([edit.benefits, bonus("lcdef_0000000099")], ignore_index=True)
    plan = edit.plan()

    new_reward = f"new row {len(snapshot.rewards)}"
    new_card = f"new row {len(snapshot.card_definitions)}"
    listed = plan.unsupported[["kind", "key", "column"]].fillna("").astype(str)
    assert sorted(map(tuple, listed.to_numpy())) == sorted(
        [
            ("rewards", reward, "name"),
            ("rewards", reward, "created_at"),
            ("benefits", benefit, "status"),
            ("rewards", new_reward, ""),
            ("card_definitions", new_card, ""),
            ("benefits", "Bonus 05", "card_definition_id"),
        ]
    )
    reasons = dict(
        zip(
            plan.unsupported["column"].fillna(plan.unsupported["key"]),
            plan.unsupported["reason"],
            strict=True,
        )
    )
    assert reasons["created_at"] == "created_at is set by the service"
    assert (
        reasons["status"] == "the service has no call to change a benefit's status after creation"
    )
    assert reasons[new_reward] == "the service has no call to create a reward"
    assert reasons["card_definition_id"].startswith("card definition lcdef_0000000099 is not in")
    assert plan.changes.empty

    with pytest.raises(EditError, match="6 changes the service cannot make") as refused:
        plan.apply(client, progress=False)
    assert reward in str(refused.value) and "ignore_unsupported=True" in str(refused.value)
    assert not pull(client).diff(snapshot)


def test_unsupported_rows_are_left_out_when_told(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    snapshot = fresh_pulled
    edit = actions.edit(snapshot)
    reward = first_id(snapshot.rewards, status="ACTIVE")
    edit.rewards.loc[edit.rewards["id"] == reward, ["status", "name"]] = ["DRAFT", "Other"]
    plan = edit.plan()
    assert len(plan.changes) == 1 and len(plan.unsupported) == 1
    plan.apply(client, ignore_unsupported=True, progress=False)
    changed = snapshot.diff(pull(client)).changes
    changed = changed[changed["kind"] == "rewards"]  # reward_costs repeat the reward's status
    assert changed[["key", "column", "after"]].astype(str).to_numpy().tolist() == [
        [reward, "status", "DRAFT"]
    ]


def test_deletes_are_refused_without_allow_destroy_naming_each_row(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    snapshot = fresh_pulled
    edit = actions.edit(snapshot)
    doomed = edit.tier_structures["id"].iloc[:2].tolist()
    edit.tier_structures = edit.tier_structures.iloc[2:]
    with pytest.raises(EditError, match="deletes 2 rows") as refused:
        edit.plan().apply(client, progress=False)
    for tiers in doomed:
        assert f"tier structure {tiers}" in str(refused.value)
    assert not pull(client).diff(snapshot)


def test_one_of_a_thing_is_said_in_the_singular(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    """A count of one reads ``1 row``, ``1 call``, ``1 change``: in the summary, the
    refusals and the budget's refusal."""
    snapshot = fresh_pulled
    edit = actions.edit(snapshot)
    edit.tier_structures = edit.tier_structures[edit.tier_structures["id"] != TIERS]
    edit.rewards.loc[edit.rewards.index[0], "name"] = "Renamed"  # unsupported
    plan = edit.plan()
    assert plan.summary() == (
        "Plan: 0 to create, 0 to change, 1 to delete; 1 change the service cannot make; 1 call"
    )
    with pytest.raises(EditError, match=r"the plan deletes 1 row \(tier structure"):
        plan.apply(client, progress=False)
    with pytest.raises(EditError, match=r"the plan holds 1 change the service cannot make \("):
        plan.apply(client, allow_destroy=True, progress=False)
    assert "1 item," in repr(plan.parts[0]) and "items" not in repr(plan.parts[0])
    assert counted(1, "call") == "1 call" and counted(0, "call") == "0 calls"
    assert counted(2, "entry", "entries") == "2 entries"


def test_a_plan_over_the_budget_is_refused_before_anything_is_sent(
    client: LoyaltyClient, fresh: Sandbox, fresh_pulled: ProgramSnapshot
) -> None:
    snapshot = fresh_pulled
    plan, _ = four_kinds_plan(snapshot)
    # Each part alone (one call) would fit; the four together do not.
    fresh.set_plan(f"{len(plan.changes)}/hour")
    client.programs.list(limit=1)  # reads the budget (and may bring a token)
    remaining = client.quota.remaining
    assert remaining is not None and 1 <= remaining < len(plan.changes)
    assert plan.cost(client).needed == len(plan.changes)
    with pytest.raises(BudgetExceededError) as refused:
        plan.apply(client, allow_destroy=True, progress=False)
    # apply takes no allow_partial: the refusal does not name it (issue 33, item 3)
    assert "allow_partial" not in str(refused.value)
    assert str(refused.value).endswith(
        "No window's share holds it either (2 of 4 at 0.5). Pass paced=True to send its share"
        " of every window, waiting for each reset, until it is done (resumable from its log)"
    )
    fresh.set_plan("10000/hour")  # a new window, which the client reads from the next answer
    assert not pull(client).diff(snapshot)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            "dtype",
            r"^benefits row 0, column 'points_value': 'lots' is not a whole number$",
        ),
        ("category", r"^rewards row 2, column 'status': 'PAUSED' is not one of \['ACTIVE', "),
        ("repeated", r"^rewards row (\d+), column 'id': the key '\S+' repeats a row$"),
        (
            "repeated cost",
            r"^reward_costs row (\d+), column 'reward_id/cost_id/spending_index':"
            r" the key '\S+/\S+/\d+' repeats a row$",
        ),
        ("unknown id", r"^benefits row (\d+), column 'id': 'lben_0000000099' is not in the base"),
        ("missing column", r"^rewards: column 'name' is missing from the edited frame$"),
    ],
)
def test_bad_input_is_refused_on_one_line_naming_frame_row_and_column(
    change: str, message: str, fresh_pulled: ProgramSnapshot
) -> None:
    edit = actions.edit(fresh_pulled)
    if change == "dtype":
        edit.benefits["points_value"] = edit.benefits["points_value"].astype(object)
        edit.benefits.loc[0, "points_value"] = "lots"
    elif change == "category":
        edit.rewards["status"] = edit.rewards["status"].astype(object)
        edit.rewards.loc[2, "status"] = "PAUSED"
    elif change == "repeated":
        edit.rewards = pd.concat([edit.rewards, edit.rewards.iloc[[1]]], ignore_index=True)
    elif change == "repeated cost":
        costs = edit.reward_costs
        edit.reward_costs = pd.concat([costs, costs.iloc[[0]]], ignore_index=True)
    elif change == "unknown id":
        extra = bonus("lcdef_c0ffee0001").assign(id="lben_0000000099")
        edit.benefits = pd.concat([edit.benefits, extra], ignore_index=True)
    else:
        edit.rewards = edit.rewards.drop(columns=["name"])
    with pytest.raises(EditError) as refused:
        edit.plan()
    text = str(refused.value)
    assert "\n" not in text
    found = re.match(message, text)
    assert found, text
    if change == "repeated":
        assert int(found.group(1)) == len(edit.rewards) - 1
    if change == "repeated cost":
        assert int(found.group(1)) == len(edit.reward_costs) - 1
    if change == "unknown id":
        assert int(found.group(1)) == len(edit.benefits) - 1


_ODD_VALUES: list[tuple[str, Any, str]] = [
    ("points_value", "lots", r"'lots' is not a whole number$"),
    ("points_value", "5.5", r"'5\.5' is not a whole number$"),
    ("proportional_value", "2,5", r"'2,5' is not a number$"),
    ("card_definition_found", "1", r"'1' is not True or False$"),
    ("points_value", True, r"True is not a whole number$"),
    ("points_value", 1.5, r"1\.5 is not a whole number$"),
    ("stock_quantity", [50], r"\[50\] is a list, not one value$"),
    ("name", {"en": "Bonus"}, r"\{'en': 'Bonus'\} is a dict, not one value$"),
    ("created_at", "soon", r"'soon' is not an ISO 8601 instant \(2026-01-15T12:00:00Z\)$"),
]


def test_odd_cell_values_are_refused_naming_frame_row_and_column(
    fresh_pulled: ProgramSnapshot,
) -> None:
    """A cell that is not a value of its column, in an object column, is an ``EditError`` on
    one line with the message of every typed value (``frames.parse``), never a plan."""
    snapshot = fresh_pulled
    for column, value, message in _ODD_VALUES:
        benefits = snapshot.benefits.copy()
        benefits[column] = benefits[column].astype(object)
        benefits.at[3, column] = value
        with pytest.raises(EditError) as refused:
            ChangePlan.from_frames(snapshot, {"benefits": benefits})
        text = str(refused.value)
        assert text.startswith(f"benefits row 3, column {column!r}: "), text
        assert re.search(message, text) and "\n" not in text, text


def test_plain_values_in_an_object_column_still_plan(fresh_pulled: ProgramSnapshot) -> None:
    """A number (50.0 is 50), its text, ISO text in a date column and a flag's text in an
    object column are read as the grid and an edited CSV read them, and plan as changes
    (unsupported: the service has no call for them)."""
    snapshot = fresh_pulled
    columns = ("points_value", "stock_quantity", "created_at")
    benefits = snapshot.benefits.copy().astype(dict.fromkeys(columns, object))
    benefits.at[3, "points_value"] = 50.0
    benefits.at[3, "stock_quantity"] = " 1234567890123456789 "
    benefits.at[3, "created_at"] = "2026-01-01T00:00:00Z"
    plan = ChangePlan.from_frames(snapshot, {"benefits": benefits})
    assert sorted(plan.unsupported["column"].astype(str)) == sorted(columns)
    after = plan.unsupported["after"].astype(str).tolist()
    assert "50" in after and "1234567890123456789" in after


def test_from_frames_takes_the_edited_frames_as_a_mapping(fresh_pulled: ProgramSnapshot) -> None:
    snapshot = fresh_pulled
    rewards = snapshot.rewards.copy()
    reward = first_id(rewards, status="ACTIVE")
    rewards.loc[rewards["id"] == reward, "status"] = "DRAFT"
    plan = ChangePlan.from_frames(snapshot, {"rewards": rewards})
    assert plan.changes[["key", "call"]].astype(str).to_numpy().tolist() == [
        [reward, "move_reward_to_draft"]
    ]


def test_the_preview_shows_why_a_pending_bucket_cannot_activate(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot
) -> None:
    snapshot = fresh_pulled
    buckets = snapshot.pending_buckets
    today = snapshot.pulled_at.normalize()
    past = str(
        buckets.loc[(buckets["status"] == "PENDING") & (buckets["date"] < today), "id"].iloc[0]
    )
    edit = actions.edit(snapshot)
    chosen = edit.pending_buckets["id"].isin([past, BUCKET])
    edit.pending_buckets.loc[chosen, "status"] = "ACTIVATED"
    preview = edit.plan().preview(client, progress=False).set_index("target")
    assert preview.loc[BUCKET, "call"] == "activate_pending_bucket"
    assert bool(preview.loc[BUCKET, "activatable"]) and pd.isna(
        cell(preview, BUCKET, "blocked_reason")
    )
    assert not bool(preview.loc[past, "activatable"])
    assert "date" in str(preview.loc[past, "blocked_reason"])


def test_a_blocked_activation_shows_its_reason_before_any_call(
    client: LoyaltyClient, fresh: Sandbox, tmp_path: Path, fresh_pulled: ProgramSnapshot
) -> None:
    """From the base alone (its pulled_at date, statuses and card definitions), each
    pending-bucket activation carries the ``blocked_reason`` the preview computes from the
    live service, ``print(plan)`` shows it, and apply still sends it: the service's 423 is
    its result row."""
    snapshot = fresh_pulled
    buckets = snapshot.pending_buckets
    pending = buckets["status"] == "PENDING"
    past = str(
        buckets.loc[pending & (buckets["date"] < snapshot.pulled_at.normalize()), "id"].iloc[0]
    )
    inactive = str(buckets.loc[pending & (buckets["program_status"] == "INACTIVE"), "id"].iloc[0])
    edit = actions.edit(snapshot)
    chosen = edit.pending_buckets["id"].isin([past, inactive, BUCKET])
    edit.pending_buckets.loc[chosen, "status"] = "ACTIVATED"
    used = fresh.plan()["used"]
    plan = edit.plan()
    assert fresh.plan()["used"] == used  # planned from the base: nothing read
    assert list(plan.changes.columns)[-1] == "blocked_reason"
    blocked = plan.changes.set_index("key")["blocked_reason"]
    assert pd.isna(blocked[BUCKET])
    assert blocked[past].startswith("its date ") and " is not after 2026-01-15" in blocked[past]
    assert "is INACTIVE" in blocked[inactive]

    preview = plan.preview(client, progress=False).set_index("target")
    for key in (past, inactive):
        assert preview.loc[key, "blocked_reason"] == blocked[key]  # the same words, read live
    text = str(plan)
    assert (
        f"~ pending bucket {past} status PENDING -> ACTIVATED (the service will refuse: its date"
        in text
    )
    assert f"~ pending bucket {BUCKET} status PENDING -> ACTIVATED\n" in text + "\n"
    assert "the service will refuse: its date" in escape_free(plan._repr_html_())

    saved = ChangePlan.load(plan.save(tmp_path / "plan.json"))
    assert saved.changes.set_index("key")["blocked_reason"].equals(blocked.astype("string"))

    results = plan.apply(client, progress=False).set_index("target")
    assert results.loc[BUCKET, "outcome"] == "succeeded"
    for key in (past, inactive):
        assert results.loc[key, "outcome"] == "failed" and results.loc[key, "status"] == 423


def escape_free(html_text: str) -> str:
    return html_text.replace("&#x27;", "'").replace("&quot;", '"')


def test_the_summary_ends_with_the_budget_the_client_read(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    plan = four_kinds_plan(pull(client))[0]
    made = "Plan: 1 to create, 2 to change, 1 to delete; 0 changes the service cannot make; 4 calls"
    assert plan.summary() == made  # never costed with a client: no budget part
    assert client.quota.remaining is None  # the demo's plan is unlimited: no limit headers
    assert plan.summary(client) == f"{made}, budget unknown"

    fresh.set_plan("100/hour")
    client.programs.list(limit=1)
    remaining = client.quota.remaining
    assert remaining is not None and remaining < 100
    assert plan.summary(client) == f"{made}, {_left(remaining)}"
    client.programs.list(limit=1)
    assert plan.summary() == f"{made}, {_left(remaining)}"  # remembered
    assert str(plan).splitlines()[0] == plan.summary()
    assert repr(plan) == f"<ChangePlan {plan.summary()}>"

    plan.preview(client, progress=False)  # reads the service: the budget it left is kept
    assert client.quota.remaining is not None and client.quota.remaining < remaining - 1
    assert plan.summary() == f"{made}, {_left(client.quota.remaining)}"
    fresh.set_plan("7/hour")
    client.programs.list(limit=1)  # 6 left, 3 at the plan's share: its 4 calls do not fit
    assert plan.summary(client) == f"{made}, {_left(6)}; 1 call short"


def _left(remaining: int) -> str:
    """The summary's budget part at the default share."""
    return f"{remaining} left in this window ({remaining // 2} at the plan's share, 0.5)"


def test_jupyter_shows_the_plan_as_a_table_grouped_by_action_every_value_escaped(
    fresh_pulled: ProgramSnapshot,
) -> None:
    snapshot = fresh_pulled
    edit, targets = four_kinds(snapshot)
    script = "<script>alert('x')</script>"
    edit.benefits = pd.concat(
        [edit.benefits, bonus(targets["card"]).assign(name=script)], ignore_index=True
    )
    renamed = first_id(snapshot.rewards, status="DRAFT")
    edit.rewards.loc[edit.rewards["id"] == renamed, "name"] = "<b>Renamed</b>"
    plan = edit.plan()
    html = plan._repr_html_()

    assert "<script>" not in html and "<b>Renamed</b>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "&lt;b&gt;Renamed&lt;/b&gt;" in html
    headers = re.findall(r"<th colspan=\"6\"[^>]*>([^<]*)</th>", html)
    assert headers == ["create (2)", "change (2)", "delete (1)", "cannot make (1)"]
    groups = html.split("<tbody>")[1:]
    assert "Bonus 05" in groups[0] and "create_benefit" in groups[0]
    assert targets["move_reward_to_draft"] in groups[1] and BUCKET in groups[1]
    assert TIERS in groups[2] and "delete_tier_structure" in groups[2]
    assert renamed in groups[3] and "no call to change a reward&#x27;s name" in groups[3]
    assert escape(plan.summary()) in html
    assert not any(secret in html for secret in SECRETS)
    assert "No changes." in actions.edit(snapshot).plan()._repr_html_()


def test_a_sampled_base_plans_the_edits_of_its_sampled_members_cards_and_buckets(
    client: LoyaltyClient, tmp_path: Path, fresh_pulled: ProgramSnapshot
) -> None:
    full = fresh_pulled
    sampled = full.sampled(Sample(len(full.members), seed=0))  # every member, as a sample
    assert BUCKET in set(sampled.pending_buckets["id"])
    edit = actions.edit(sampled)
    edit.pending_buckets.loc[edit.pending_buckets["id"] == BUCKET, "status"] = "ACTIVATED"
    card = edit.cards["id"].iloc[0]
    edit.cards = edit.cards[edit.cards["id"] != card]

    plan = edit.plan()

    changes = plan.changes[["kind", "key", "call"]].astype(str).to_numpy().tolist()
    assert changes == [["pending_buckets", BUCKET, "activate_pending_bucket"]]
    unsupported = plan.unsupported[["kind", "reason"]].astype(str).to_numpy().tolist()
    assert unsupported == [["cards", "the service has no call to delete a card"]]
    # the bucket's sample weight is the design's, not the bucket's: the re-read finds it fresh
    saved = ChangePlan.load(plan.save(tmp_path / "plan.json"))
    results = saved.apply(
        client, log=tmp_path / "plan.jsonl", ignore_unsupported=True, progress=False
    )
    assert results["outcome"].tolist() == ["succeeded"]
