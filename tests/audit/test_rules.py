"""Every audit rule against the demo program and a clean program, both served over HTTP."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pandas as pd
import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.audit import FINDING_COLUMNS, RULES, SEVERITIES, findings_frame, run
from lyt_toolkit.audit.registry import Rule
from lyt_toolkit.frames import SCHEMAS
from lyt_toolkit.sandbox import ProgramDataWarning, Sandbox

from .programs import CARD_DEFINITION, NOW, clean_program

EXPECTED: dict[str, set[str]] = {
    "benefit-card-definition-missing": {"lben_c0ffee0004"},
    "benefit-card-definition-not-active": {"lben_c0ffee0005"},
    "active-benefit-card-definition-not-active": {"lben_c0ffee0003"},
    "benefit-stock-exhausted": {"lben_c0ffee0010"},
    "duplicate-benefit-name": {
        "lben_c0ffee0001",
        "lben_c0ffee001a",
        "lben_c0ffee0010",
        "lben_c0ffee0011",
    },
    "reward-cost-card-definition-missing": {"lrew_c0ffee0014"},
    "reward-cost-card-definition-not-active": {"lrew_c0ffee0015", "lrew_c0ffee0016"},
    "active-reward-without-costs": {"lrew_c0ffee0011"},
    "active-reward-expired": {"lrew_c0ffee000f"},
    "start-after-end": {"lrew_c0ffee0010"},
    "daily-validity-invalid": {"lrew_c0ffee000d", "lrew_c0ffee000e"},
    "duplicate-reward-name": {
        "lrew_c0ffee0001",
        "lrew_c0ffee0012",
        "lrew_c0ffee0002",
        "lrew_c0ffee0013",
    },
    "tier-structure-card-definition-missing": {"lts_c0ffee0004"},
    "tier-structure-card-definition-not-active": {"lts_c0ffee0003", "lts_c0ffee0005"},
    "card-definition-negative-balance": {"lcdef_c0ffee0002"},
    "card-definition-no-earning-limit": {
        "lcdef_c0ffee0002",
        "lcdef_c0ffee0003",
        "lcdef_c0ffee0006",
    },
    "pending-bucket-not-activatable": {
        "lcppb_c0ffee0003",
        "lcppb_c0ffee0004",
        "lcppb_c0ffee000d",
        "lcppb_c0ffee0008",
        "lcppb_c0ffee0009",
        "lcppb_c0ffee000a",
        "lcppb_c0ffee000b",
    },
    "reward-mispriced": {"lrew_c0ffee0022", "lrew_c0ffee0023"},
    "points-without-way-out": {"lcdef_c0ffee0003"},
    "effective-return-above-cap": {"lcdef_c0ffee0002"},
}
"""Resources of the demo program that break each rule (see data/README.md)."""

NOT_IN_DEMO = {"odd-value-in-answer", "card-pending-points-mismatch"}
"""Rules the demo cannot trigger: its answers hold no odd values (see test_odd_flags), and
its pending totals agree with its buckets (see test_a_pending_total_that_disagrees...)."""

DEMO_RULES = [r for r in RULES if r not in NOT_IN_DEMO]


def _ids(findings: pd.DataFrame, rule: str) -> set[str]:
    return set(findings.loc[findings["rule"] == rule, "resource_id"])


def _message(findings: pd.DataFrame, rule: str, resource_id: str) -> str:
    hit = findings[(findings["rule"] == rule) & (findings["resource_id"] == resource_id)]
    assert len(hit) == 1, hit
    return hit["message"].iloc[0]


def test_every_rule_has_a_demo_expectation() -> None:
    assert set(EXPECTED) == set(DEMO_RULES)
    assert set(RULES) >= NOT_IN_DEMO


@pytest.mark.parametrize("rule", DEMO_RULES)
def test_demo_triggers_rule_on_the_expected_resources(
    demo_findings: pd.DataFrame, rule: str
) -> None:
    assert EXPECTED[rule] <= _ids(demo_findings, rule)


@pytest.mark.parametrize("rule", DEMO_RULES)
def test_demo_findings_carry_the_rule_severity(demo_findings: pd.DataFrame, rule: str) -> None:
    severities = set(demo_findings.loc[demo_findings["rule"] == rule, "severity"])
    assert severities == {RULES[rule].severity.value}


def test_demo_flags_nothing_healthy(demo_findings: pd.DataFrame) -> None:
    flagged = set(demo_findings["resource_id"])
    healthy = {"lrew_c0ffee0003", "lrew_c0ffee001d", "lrew_c0ffee0017", "lrew_c0ffee0018"}
    healthy |= {"lben_c0ffee0002", "lben_c0ffee0012", "lts_c0ffee0001", "lts_c0ffee0002"}
    healthy |= {"lcdef_c0ffee0001", "lcppb_c0ffee0001", "lcppb_c0ffee0005", "lcppb_c0ffee000c"}
    assert not flagged & healthy


def test_deleted_resources_are_not_audited(demo_findings: pd.DataFrame) -> None:
    # lrew_c0ffee001b is DELETED with a cost on the DELETED card definition.
    assert "lrew_c0ffee001b" not in set(demo_findings["resource_id"])


def test_messages_name_the_reference_and_its_status(demo_findings: pd.DataFrame) -> None:
    message = _message(
        demo_findings, "active-benefit-card-definition-not-active", "lben_c0ffee0003"
    )
    assert "lcdef_c0ffee0004" in message and "DRAFT" in message
    message = _message(demo_findings, "benefit-card-definition-missing", "lben_c0ffee0004")
    assert "lcdef_deadbeef0000" in message and "does not exist" in message
    message = _message(demo_findings, "reward-cost-card-definition-not-active", "lrew_c0ffee0016")
    assert "lcdef_c0ffee0005" in message and "DELETED" in message
    message = _message(demo_findings, "tier-structure-card-definition-missing", "lts_c0ffee0004")
    assert "lcdef_deadbeef0000" in message
    message = _message(demo_findings, "daily-validity-invalid", "lrew_c0ffee000e")
    assert "[9]" in message
    message = _message(demo_findings, "duplicate-reward-name", "lrew_c0ffee0013")
    assert "lrew_c0ffee0002" in message


def test_now_is_the_service_clock(demo_snapshot: Any, demo_findings: pd.DataFrame) -> None:
    assert abs(demo_snapshot.pulled_at - pd.Timestamp(NOW)) < pd.Timedelta(minutes=1)
    message = _message(demo_findings, "active-reward-expired", "lrew_c0ffee000f")
    assert "ended 2025-12-26 12:00 UTC, 20 days before 2026-01-15 12:00 UTC" in message
    message = _message(demo_findings, "pending-bucket-not-activatable", "lcppb_c0ffee0003")
    assert "its date 2026-01-12 is not after 2026-01-15" in message


def test_points_and_days_in_messages_have_separators_from_1000(
    demo_findings: pd.DataFrame, audit_program: Callable[[dict[str, Any]], pd.DataFrame]
) -> None:
    """Points, pending points and days in a finding's message are written as the toolkit's
    other counts: ``5,000 points``, ``1,500,000`` (a bucket's read ``1.5e+06``), ``1 day``
    (it read ``1 days``)."""
    message = _message(demo_findings, "reward-cost-card-definition-missing", "lrew_c0ffee0014")
    assert "asks 5,000 points of card definition lcdef_deadbeef0000" in message
    program = clean_program()
    limit = program["card_definitions"][0]["earning_limits"]["global"]["limits"][0]
    limit["max"] = 10_000_000
    program["cards"][0]["balance"] = {"points": 500, "pending_points": 1_500_001}
    bucket = program["pending_buckets"][0]
    bucket["points"], bucket["date"] = {"total": 1_500_000}, "now-3d"
    program["rewards"][1]["end_date"] = "now-90000s"  # 25 hours before the load
    with pytest.warns(ProgramDataWarning, match="pending points total 1500001"):
        findings = audit_program(program)  # loaded as written
    message = _message(findings, "pending-bucket-not-activatable", "lcppb_a0d17001")
    assert message.startswith("PENDING bucket of 1,500,000 points on card lcrd_a0d17001 "), message
    message = _message(findings, "card-pending-points-mismatch", "lcrd_a0d17001")
    assert "shows 1,500,001 pending points, but its PENDING buckets hold 1,500,000 (1 bucket)" in (
        message
    )
    message = _message(findings, "active-reward-expired", "lrew_a0d17002")
    assert re.search(r", 1 day before \d{4}-", message), message


def test_pending_bucket_messages_give_every_reason(demo_findings: pd.DataFrame) -> None:
    rule = "pending-bucket-not-activatable"
    both = _message(demo_findings, rule, "lcppb_c0ffee000b")
    assert "program lprg_c0ffee0002 is INACTIVE" in both
    assert "member lmbr_c0ffee0006 is INACTIVE" in both
    assert "lcdef_c0ffee0003" in _message(demo_findings, rule, "lcppb_c0ffee0008")
    assert "not after" in _message(demo_findings, rule, "lcppb_c0ffee0004")


def test_findings_are_sorted_and_reproducible(
    demo_snapshot: Any, demo_findings: pd.DataFrame
) -> None:
    again = run(demo_snapshot)
    pd.testing.assert_frame_equal(again, demo_findings)
    ranks = demo_findings["severity"].cat.codes.tolist()
    assert ranks == sorted(ranks)


def test_findings_schema(demo_findings: pd.DataFrame) -> None:
    assert tuple(demo_findings.columns) == FINDING_COLUMNS
    assert list(demo_findings["severity"].cat.categories) == list(SEVERITIES)
    assert demo_findings["severity"].cat.ordered
    for column in FINDING_COLUMNS:
        if column != "severity":
            assert demo_findings[column].dtype == "string"
    assert (
        demo_findings[["rule", "severity", "resource_type", "resource_id", "message"]]
        .notna()
        .all()
        .all()
    )


def test_clean_program_has_no_findings(
    audit_program: Callable[[dict[str, Any]], pd.DataFrame], clean: dict[str, Any]
) -> None:
    findings = audit_program(clean)
    assert findings.empty, findings.to_string()
    pd.testing.assert_frame_equal(findings, findings_frame())


def test_zero_findings_keep_the_schema() -> None:
    empty = findings_frame()
    assert tuple(empty.columns) == FINDING_COLUMNS
    assert isinstance(empty["severity"].dtype, pd.CategoricalDtype)
    assert list(empty["severity"].cat.categories) == list(SEVERITIES)
    assert (empty.dtypes.drop("severity") == "string").all()


def test_run_selected_rules_only(demo_snapshot: Any) -> None:
    findings = run(demo_snapshot, rules=["start-after-end"])
    assert set(findings["rule"]) == {"start-after-end"}
    with pytest.raises(KeyError, match="no audit rule"):
        run(demo_snapshot, rules=["no-such-rule"])


def test_daily_window_that_ends_before_it_starts(
    audit_program: Callable[[dict[str, Any]], pd.DataFrame], clean: dict[str, Any]
) -> None:
    window = clean["rewards"][1]["validity_hours"]["daily"][0]
    window.update(start_time="18:00", end_time="09:00")
    clean["programs"][0]["validity_hours"] = {
        "type": "DAILY",
        "daily": [{"days_of_week": [], "start_time": "08:00", "end_time": "20:00"}],
    }
    findings = audit_program(clean)
    assert set(findings["rule"]) == {"daily-validity-invalid"}
    by_id = dict(zip(findings["resource_id"], findings["message"], strict=True))
    assert "starts at or after it ends" in by_id["lrew_a0d17002"]
    assert "names no weekday" in by_id["lprg_a0d17001"]


def test_broken_copy_of_the_clean_program(
    audit_program: Callable[[dict[str, Any]], pd.DataFrame], clean: dict[str, Any]
) -> None:
    """Each rule, broken once on purpose in an otherwise clean program, fires once."""
    clean["card_definitions"][0]["balance_settings"] = {"allow_negative": True}
    clean["benefits"][0]["stock"] = {"type": "LIMITED", "limited": {"quantity": 0}}
    clean["rewards"][1]["name"] = "  FREE   coffee "
    clean["rewards"][0]["end_date"] = "now-1d"
    clean["pending_buckets"][0]["date"] = "now-1d"
    findings = audit_program(clean)
    assert _ids(findings, "card-definition-negative-balance") == {CARD_DEFINITION}
    assert _ids(findings, "benefit-stock-exhausted") == {"lben_a0d17001"}
    assert _ids(findings, "duplicate-reward-name") == {"lrew_a0d17001", "lrew_a0d17002"}
    assert _ids(findings, "active-reward-expired") == {"lrew_a0d17001"}
    assert _ids(findings, "pending-bucket-not-activatable") == {"lcppb_a0d17001"}
    assert len(findings) == 6


def test_a_pending_total_that_disagrees_with_the_buckets(
    start_sandbox: StartSandbox, pull_snapshot: Callable[[Sandbox], Any], clean: dict[str, Any]
) -> None:
    clean["cards"][0]["balance"]["pending_points"] = 100  # its one PENDING bucket holds 120
    with pytest.warns(ProgramDataWarning, match="lcrd_a0d17001"), start_sandbox(clean) as sb:
        snapshot = pull_snapshot(sb)
    findings = run(snapshot)
    assert findings[["rule", "resource_type", "resource_id"]].values.tolist() == [
        ["card-pending-points-mismatch", "card", "lcrd_a0d17001"]
    ]
    assert findings["message"].iloc[0] == (
        "card of member lmbr_a0d17001 shows 100 pending points, "
        "but its PENDING buckets hold 120 (1 bucket)"
    )
    # pulled without its buckets, a snapshot cannot tell: the rule stays silent
    partial = replace(snapshot, pending_buckets=SCHEMAS["pending_buckets"].empty())
    assert run(partial, rules=["card-pending-points-mismatch"]).empty


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_rules_are_documented(rule: Rule) -> None:
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.id)
    assert rule.description.endswith(".") and len(rule.description) < 200
    assert rule.check.__doc__, f"{rule.id} has no docstring"


def test_a_partial_snapshot_is_judged_only_by_the_rules_it_holds_the_kinds_of(
    demo_snapshot: Any, demo_findings: pd.DataFrame
) -> None:
    """Pulled with ``kinds=["rewards", "benefits"]``, the demo has no reward costs and no card
    definitions: it is not audited as if they were missing."""
    partial = ProgramSnapshot.from_frames(
        {"rewards": demo_snapshot.rewards, "benefits": demo_snapshot.benefits},
        source=demo_snapshot.source,
        pulled_at=demo_snapshot.pulled_at,
    )
    findings = run(partial)
    needing = {r.id for r in RULES.values() if not r.needs <= {"rewards", "benefits"}}
    assert needing >= {"active-reward-without-costs"}
    assert findings.attrs["left_out"] == [r for r in RULES if r in needing]
    assert not findings["rule"].isin(needing).any()
    assert not findings["message"].str.contains("has no cost|does not exist").any()
    kept = demo_findings[~demo_findings["rule"].isin(needing)]
    assert set(findings["rule"]) <= set(kept["rule"])
    assert "left_out" not in run(demo_snapshot).attrs
    with pytest.raises(
        ValueError, match=r"^rules: .*active-reward-without-costs needs reward_costs"
    ):
        run(partial, rules=["active-reward-without-costs"])
