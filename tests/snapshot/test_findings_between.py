"""Findings between two audits: what appeared, what was resolved, what stayed."""

from __future__ import annotations

from lyt_toolkit.audit import FINDING_COLUMNS, compare_findings, findings_frame


def _finding(resource_id: str, message: str, rule: str = "start-after-end") -> dict[str, str]:
    return {
        "rule": rule,
        "severity": "error",
        "resource_type": "reward",
        "resource_id": resource_id,
        "resource_name": None,
        "message": message,
    }


def test_findings_that_stay_are_left_out_and_a_new_message_is_both() -> None:
    before = findings_frame([_finding("r1", "old"), _finding("r2", "same"), _finding("r3", "a")])
    after = findings_frame([_finding("r2", "same"), _finding("r3", "b"), _finding("r4", "new")])
    changed = compare_findings(before, after)
    assert list(changed.columns) == ["change", *FINDING_COLUMNS]
    assert list(
        zip(changed["change"], changed["resource_id"], changed["message"], strict=True)
    ) == [
        ("appeared", "r3", "b"),
        ("appeared", "r4", "new"),
        ("resolved", "r1", "old"),
        ("resolved", "r3", "a"),
    ]


def test_no_findings_on_either_side_is_an_empty_frame() -> None:
    changed = compare_findings(findings_frame(), findings_frame())
    assert changed.empty and list(changed.columns) == ["change", *FINDING_COLUMNS]
    assert list(changed["change"].cat.categories) == ["appeared", "resolved"]
