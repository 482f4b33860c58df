"""Findings between two audits: what appeared, what was resolved, what stayed."""

from __future__ import annotations

from typing import Any

import pandas as pd

from lyt_toolkit.audit import FINDING_COLUMNS, compare_findings, findings_frame


def _finding(
    resource_id: str, message: str, rule: str = "start-after-end"
) -> dict[str, str | None]:
    return {
        "rule": rule,
        "severity": "error",
        "resource_type": "reward",
        "resource_id": resource_id,
        "resource_name": None,
        "message": message,
    }


def _changes(changed: pd.DataFrame) -> list[tuple[Any, ...]]:
    columns = ["change", "resource_id", "message", "previous_message"]
    return [tuple(None if pd.isna(v) else v for v in row) for row in changed[columns].values]


def test_findings_that_stay_are_left_out_and_a_new_message_is_a_change() -> None:
    before = findings_frame([_finding("r1", "old"), _finding("r2", "same"), _finding("r3", "a")])
    after = findings_frame([_finding("r2", "same"), _finding("r3", "b"), _finding("r4", "new")])
    changed = compare_findings(before, after)
    assert list(changed.columns) == ["change", *FINDING_COLUMNS, "previous_message"]
    assert _changes(changed) == [
        ("appeared", "r4", "new", None),
        ("changed", "r3", "b", "a"),
        ("resolved", "r1", "old", None),
    ]


def test_findings_match_by_rule_and_resource_and_only_unmatched_ones_pair_up() -> None:
    before = findings_frame(
        [
            _finding("r1", "window 1 bad"),
            _finding("r1", "window 2 bad"),
            _finding("r1", "x", "other"),
        ]
    )
    after = findings_frame(
        [_finding("r1", "window 2 bad"), _finding("r1", "window 1 worse"), _finding("r1", "y")]
    )
    assert _changes(compare_findings(before, after)) == [
        ("appeared", "r1", "y", None),
        ("changed", "r1", "window 1 worse", "window 1 bad"),
        ("resolved", "r1", "x", None),
    ]


def test_no_findings_on_either_side_is_an_empty_frame() -> None:
    changed = compare_findings(findings_frame(), findings_frame())
    assert changed.empty and list(changed.columns) == [
        "change",
        *FINDING_COLUMNS,
        "previous_message",
    ]
    assert list(changed["change"].cat.categories) == ["appeared", "changed", "resolved"]
