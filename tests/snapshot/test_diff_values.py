"""``ProgramSnapshot.diff`` on frames built here: equality rules, keys, empty frames, CSV."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from frame_reads import row_of

from lyt_toolkit.snapshot import CHANGES, ProgramSnapshot, SnapshotDiff
from lyt_toolkit.snapshot.diff import align, compare

from .helpers import frame, snapshot

REWARD = {
    "id": "lrew_1",
    "name": "Free Latte",
    "type": "DIGITAL",
    "status": "ACTIVE",
    "validity_hours_type": "ANY_TIME",
    "refunds_type": "NONE",
    "cost_count": 1,
    "created_at": "2026-01-01T00:00:00Z",
}


def _changes(before: ProgramSnapshot, after: ProgramSnapshot, **kwargs: Any) -> pd.DataFrame:
    return before.diff(after, **kwargs).changes


def _rows(diff: SnapshotDiff) -> list[tuple]:
    """The change rows as tuples, NA as None."""
    c = diff.changes.astype(object).where(diff.changes.notna(), None)
    return list(c.itertuples(index=False, name=None))


def test_identical_snapshots_have_no_changes() -> None:
    a = snapshot(rewards=frame("rewards", REWARD, {**REWARD, "id": "lrew_2"}))
    d = a.diff(snapshot(rewards=frame("rewards", REWARD, {**REWARD, "id": "lrew_2"})))
    assert len(d) == 0 and not d
    pd.testing.assert_frame_equal(d.changes, CHANGES.empty())


def test_empty_snapshots_give_the_declared_empty_frame() -> None:
    d = snapshot().diff(snapshot())
    assert list(d.changes.columns) == CHANGES.names
    assert dict(d.changes.dtypes) == CHANGES.dtypes
    assert d.summary().loc["total"].sum() == 0


def test_na_equals_na_in_every_dtype() -> None:
    gaps = {
        "start_date": None,
        "digital_points": None,
        "digital_gift_voucher_balance": None,
        "digital_campaign_id": None,
        "material_type": None,
    }
    a = snapshot(rewards=frame("rewards", {**REWARD, **gaps}))
    b = snapshot(rewards=frame("rewards", {**REWARD, **gaps}))
    assert not a.diff(b)
    c = snapshot(rewards=frame("rewards", {**REWARD, "digital_points": 5}))
    assert _rows(a.diff(c)) == [("rewards", "lrew_1", "changed", "digital_points", None, "5")]


def test_each_dtype_is_written_as_text() -> None:
    a = snapshot(rewards=frame("rewards", REWARD))
    b = snapshot(
        rewards=frame(
            "rewards",
            {
                **REWARD,
                "status": "DRAFT",
                "start_date": "2026-02-01T10:30:00Z",
                "digital_gift_voucher_balance": 2.5,
                "cost_count": 3,
            },
        )
    )
    assert _rows(a.diff(b)) == [
        ("rewards", "lrew_1", "changed", "status", "ACTIVE", "DRAFT"),
        ("rewards", "lrew_1", "changed", "start_date", None, "2026-02-01T10:30:00.000000Z"),
        ("rewards", "lrew_1", "changed", "digital_gift_voucher_balance", None, "2.5"),
        ("rewards", "lrew_1", "changed", "cost_count", "1", "3"),
    ]


def test_categoricals_compare_by_value_whatever_their_categories() -> None:
    a = snapshot(rewards=frame("rewards", REWARD, {**REWARD, "id": "lrew_2", "status": "DRAFT"}))
    other = a.rewards.copy()
    other["status"] = other["status"].cat.set_categories(["DRAFT", "ACTIVE", "NEW_STATUS"])
    assert not a.diff(snapshot(rewards=other))
    other.loc[1, "status"] = "NEW_STATUS"
    rows = _rows(a.diff(snapshot(rewards=other)))
    assert rows == [("rewards", "lrew_2", "changed", "status", "DRAFT", "NEW_STATUS")]


def test_json_text_compares_as_parsed_json() -> None:
    a = snapshot(rewards=frame("rewards", {**REWARD, "metadata": '{"a":1,"b":[1,2]}'}))
    reordered = snapshot(
        rewards=frame("rewards", {**REWARD, "metadata": '{ "b": [1, 2], "a": 1 }'})
    )
    assert not a.diff(reordered)
    changed = snapshot(rewards=frame("rewards", {**REWARD, "metadata": '{"a":1,"b":[2,1]}'}))
    assert _rows(a.diff(changed)) == [
        ("rewards", "lrew_1", "changed", "metadata", '{"a":1,"b":[1,2]}', '{"a":1,"b":[2,1]}')
    ]


def test_added_and_removed_rows_carry_the_row_as_json() -> None:
    a = snapshot(rewards=frame("rewards", REWARD))
    b = snapshot(rewards=frame("rewards", {**REWARD, "id": "lrew_9", "name": "=HYPERLINK(1)"}))
    rows = _rows(a.diff(b))
    assert [r[:4] for r in rows] == [
        ("rewards", "lrew_1", "removed", None),
        ("rewards", "lrew_9", "added", None),
    ]
    assert json.loads(rows[0][4])["name"] == "Free Latte" and rows[0][5] is None
    added = json.loads(rows[1][5])
    assert added["name"] == "=HYPERLINK(1)" and added["created_at"] == "2026-01-01T00:00:00.000000Z"
    assert "updated_at" not in added  # ignored columns are left out of the row too


def test_reward_costs_are_keyed_by_reward_cost_and_spending_entry() -> None:
    cost = {"reward_id": "lrew_1", "reward_status": "ACTIVE", "cost_id": "lrcst_1"}
    a = snapshot(
        reward_costs=frame(
            "reward_costs",
            {**cost, "spending_index": 0, "points": 100, "card_definition_id": "lcdef_1"},
            {**cost, "spending_index": 1, "points": 5, "card_definition_id": "lcdef_2"},
            {**cost, "cost_id": "lrcst_2"},  # a cost without spending entries
        )
    )
    b_rows = a.reward_costs.copy()
    b_rows = b_rows.iloc[[1, 0, 2]].reset_index(drop=True)  # order does not matter
    b_rows.loc[b_rows["spending_index"] == 1, "points"] = 7
    b_rows.loc[2, "cost_rules_logic"] = "1"
    d = a.diff(snapshot(reward_costs=b_rows))
    assert _rows(d) == [
        ("reward_costs", "lrew_1/lrcst_1/1", "changed", "points", "5", "7"),
        ("reward_costs", "lrew_1/lrcst_2/-", "changed", "cost_rules_logic", None, "1"),
    ]


def test_a_shared_card_is_one_row_per_member() -> None:
    card = {"id": "lcrd_1", "program_id": "lprg_1", "balance_points": 10}
    a = snapshot(cards=frame("cards", {**card, "member_id": "m1"}, {**card, "member_id": "m2"}))
    b = snapshot(cards=frame("cards", {**card, "member_id": "m2", "balance_points": 12}))
    assert [r[:4] for r in _rows(a.diff(b))] == [
        ("cards", "m1/lcrd_1", "removed", None),
        ("cards", "m2/lcrd_1", "changed", "balance_points"),
    ]


def test_repeated_ids_are_told_apart_by_their_order() -> None:
    a = snapshot(rewards=frame("rewards", REWARD, REWARD))
    b = snapshot(rewards=frame("rewards", REWARD, {**REWARD, "name": "Twin"}))
    assert _rows(a.diff(b)) == [("rewards", "lrew_1#2", "changed", "name", "Free Latte", "Twin")]


def test_align_lines_rows_up_by_key_and_the_diff_reuses_it() -> None:
    one, two, three = REWARD, {**REWARD, "id": "lrew_2"}, {**REWARD, "id": "lrew_3"}
    before = frame("rewards", one, two)
    after = frame("rewards", three, {**two, "name": "Twin"}, three)
    rows = align("rewards", before, after)
    assert rows.after_keys.tolist() == ["lrew_3", "lrew_2", "lrew_3#2"]
    assert rows.at_after.tolist() == [-1, 1]  # lrew_1 removed
    assert rows.at_before.tolist() == [-1, 1, -1]  # lrew_3 (twice) added
    assert rows.repeated_after.tolist() == [False, False, True]
    assert rows.before_index.get_indexer(pd.Index(["lrew_2"])).tolist() == [1]
    a, b = snapshot(rewards=before), snapshot(rewards=after)
    given = compare(a, b, aligned={"rewards": rows}).changes
    pd.testing.assert_frame_equal(given, a.diff(b).changes)


def test_ignore_leaves_columns_out_and_checks_their_names() -> None:
    a = snapshot(rewards=frame("rewards", REWARD))
    b = snapshot(rewards=frame("rewards", {**REWARD, "updated_at": "2026-01-02T00:00:00Z"}))
    assert not a.diff(b)
    assert [r[3] for r in _rows(a.diff(b, ignore=()))] == ["updated_at"]
    with pytest.raises(ValueError, match=r"ignore: no frame has the columns \['nmae'\]"):
        a.diff(b, ignore=("nmae",))
    with pytest.raises(ValueError, match=r"ignore: \['id'\] identify rows"):
        compare(a, b, ignore=("id",))


def test_summary_counts_rows_per_kind_and_change() -> None:
    a = snapshot(rewards=frame("rewards", REWARD, {**REWARD, "id": "lrew_2"}))
    b = snapshot(
        rewards=frame(
            "rewards",
            {**REWARD, "name": "New", "status": "DRAFT"},
            {**REWARD, "id": "lrew_3"},
        )
    )
    s = a.diff(b).summary()
    assert list(s.columns) == ["added", "removed", "changed", "changed_values"]
    assert row_of(s, "rewards").tolist() == [1, 1, 1, 2]
    assert row_of(s, "total").tolist() == [1, 1, 1, 2]
    assert row_of(s, "benefits").tolist() == [0, 0, 0, 0]


def test_to_csv_is_spreadsheet_safe_and_reads_back(tmp_path: Path) -> None:
    a = snapshot(rewards=frame("rewards", REWARD))
    b = snapshot(rewards=frame("rewards", {**REWARD, "name": "=cmd|' /C calc'!A0"}))
    d = a.diff(b)
    path = d.to_csv(tmp_path / "changes.csv")
    text = path.read_bytes().decode("utf-8")
    assert text.splitlines()[0] == "kind,key,change,column,before,after"
    assert "'=cmd" in text and "\r\n" in text
    back = pd.read_csv(path, dtype="str")
    assert back["after"].tolist() == ["'=cmd|' /C calc'!A0"]


def test_row_json_keeps_text_as_written() -> None:
    a = snapshot(rewards=frame("rewards", REWARD))
    name = "Café/Crème \\/ back\\slash"
    b = snapshot(rewards=frame("rewards", REWARD, {**REWARD, "id": "lrew_2", "name": name}))
    (after,) = a.diff(b).changes["after"]
    assert '"name":"Café/Crème \\\\/ back\\\\slash"' in after
    assert json.loads(after)["name"] == name


def test_a_frame_without_its_key_columns_is_named() -> None:
    a = snapshot(rewards=frame("rewards", REWARD))
    b = snapshot(rewards=frame("rewards", REWARD).drop(columns=["id"]))
    with pytest.raises(ValueError, match=r"rewards: the frame lacks its key columns \['id'\]"):
        a.diff(b)


def test_a_kind_only_one_side_holds_is_left_out_not_added() -> None:
    rewards = frame("rewards", REWARD)
    partial = snapshot(rewards=rewards)
    wider = snapshot(rewards=rewards, benefits=frame("benefits", {"id": "lben_1", "name": "B"}))
    for d in (partial.diff(wider), wider.diff(partial)):
        assert d.changes.empty and d.left_out == ("benefits",)
        assert d.note is not None and "benefits not compared: only one of" in d.note
        assert d.summary().loc["benefits"].isna().all()
