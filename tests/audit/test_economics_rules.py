"""The audit rules from economics, each on small programs served by a sandbox: it fires where
the program breaks it and stays silent where it does not (the clean program included)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from economics.priced_program import gift_card, returning, with_gift_cards
from fixture_types import StartSandbox
from frame_reads import cell

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.audit import effective_return_cap, run
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .programs import CARD_DEFINITION

Audit = Callable[[dict[str, Any]], pd.DataFrame]


def _hits(findings: pd.DataFrame, rule: str) -> pd.DataFrame:
    return findings[findings["rule"] == rule]


# --- reward-mispriced ---------------------------------------------------------------


def test_clean_program_has_no_economics_findings(
    audit_program: Audit, clean: dict[str, Any]
) -> None:
    findings = audit_program(clean)
    rules = {"reward-mispriced", "points-without-way-out", "effective-return-above-cap"}
    assert not set(findings["rule"]) & rules


def test_a_reward_far_either_way_from_the_median_is_mispriced(
    audit_program: Audit, clean: dict[str, Any]
) -> None:
    # Values per point: 500/1000 = 0.5, 1000/2000 = 0.5, 500/100 = 5 (10x the median),
    # 100/2000 = 0.05 (a tenth of it), 600/1000 = 0.6 (1.2x). Median of the five: 0.5.
    with_gift_cards(
        clean,
        gift_card("lrew_0a1", 500, 1000),
        gift_card("lrew_0a2", 1000, 2000),
        gift_card("lrew_0a3", 500, 100),
        gift_card("lrew_0a4", 100, 2000),
        gift_card("lrew_0a5", 600, 1000),
    )
    hits = _hits(audit_program(clean), "reward-mispriced").set_index("resource_id")
    assert set(hits.index) == {"lrew_0a3", "lrew_0a4"}
    generous, stingy = cell(hits, "lrew_0a3", "message"), cell(hits, "lrew_0a4", "message")
    assert "100 points buy 500 minor units (5 per point), 10.0x the median 0.5" in generous
    assert "2,000 points buy 100 minor units (0.05 per point), 1/10.0 of the median 0.5" in stingy
    assert "Clean Points" in generous


@pytest.mark.parametrize(
    "cards",
    [
        # 0.5, 0.5 and 1500/1000 = 1.5: exactly 3x the median, not more.
        pytest.param(
            [("lrew_0a1", 500, 1000), ("lrew_0a2", 1000, 2000), ("lrew_0a3", 1500, 1000)],
            id="three-times-the-median",
        ),
        # Two observations are too few to call one mispriced.
        pytest.param([("lrew_0a1", 500, 1000), ("lrew_0a3", 500, 100)], id="two-observations"),
    ],
)
def test_no_reward_is_yet_mispriced(
    audit_program: Audit, clean: dict[str, Any], cards: list[tuple[str, int, int]]
) -> None:
    with_gift_cards(clean, *(gift_card(*card) for card in cards))
    assert _hits(audit_program(clean), "reward-mispriced").empty


# --- points-without-way-out -------------------------------------------------------------


def test_points_nothing_spends_have_no_way_out(audit_program: Audit, clean: dict[str, Any]) -> None:
    for reward in clean["rewards"]:
        reward["status"] = "INACTIVE"
    (hit,) = _hits(audit_program(clean), "points-without-way-out").to_dict("records")
    assert (hit["resource_type"], hit["resource_id"]) == ("card_definition", CARD_DEFINITION)
    assert "credited by 1 ACTIVE benefit (lben_a0d17001)" in hit["message"]


def test_an_expired_reward_is_no_way_out(audit_program: Audit, clean: dict[str, Any]) -> None:
    for reward in clean["rewards"]:
        reward["start_date"], reward["end_date"] = "now-20d", "now-1d"
    hits = _hits(audit_program(clean), "points-without-way-out")
    assert set(hits["resource_id"]) == {CARD_DEFINITION}


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda p: p["card_definitions"][0].update(
                pay_with_points={
                    "type": "EXCHANGE_RATIO",
                    "exchange_ratio": {"formula": "POINTS / 10"},
                }
            ),
            id="points-pay-for-orders",
        ),
        pytest.param(lambda p: p["benefits"][0].update(status="DRAFT"), id="no-active-benefit"),
        pytest.param(
            lambda p: p["card_definitions"][0].update(status="DRAFT"), id="draft-definition"
        ),
    ],
)
def test_no_finding_when_points_can_go_out_or_are_not_earned(
    audit_program: Audit, clean: dict[str, Any], change: Callable[[dict[str, Any]], object]
) -> None:
    for reward in clean["rewards"]:
        reward["status"] = "INACTIVE"
    change(clean)
    assert _hits(audit_program(clean), "points-without-way-out").empty


# --- effective-return-above-cap ------------------------------------------------------------


def test_a_return_above_the_default_cap_is_flagged(
    audit_program: Audit, clean: dict[str, Any]
) -> None:
    # 30 points per 100 minor units = 0.3 a unit, x 0.5 per point = 15 % of spend.
    (hit,) = _hits(audit_program(returning(clean, 30)), "effective-return-above-cap").to_dict(
        "records"
    )
    assert hit["resource_id"] == CARD_DEFINITION
    assert "returns 15.0% of spend" in hit["message"] and "cap of 10%" in hit["message"]


def test_a_return_below_the_cap_is_not(audit_program: Audit, clean: dict[str, Any]) -> None:
    # 5 per 100 x 0.5 = 2.5 %.
    assert _hits(audit_program(returning(clean, 5)), "effective-return-above-cap").empty


def test_the_cap_is_configurable(
    start_sandbox: StartSandbox, pull_snapshot: Callable[[Sandbox], Any], clean: dict[str, Any]
) -> None:
    with start_sandbox(returning(clean, 5), now=None) as sb:
        snapshot = pull_snapshot(sb)
    with effective_return_cap(0.02):
        findings = run(snapshot, ["effective-return-above-cap"])
    (message,) = findings["message"]
    assert "returns 2.5% of spend" in message and "cap of 2%" in message
    assert run(snapshot, ["effective-return-above-cap"]).empty  # the default is back


@pytest.mark.parametrize("cap", [0, -0.1, float("inf"), float("nan"), True, "10%"])
def test_a_cap_that_is_not_a_positive_share_is_refused(cap: object) -> None:
    with (
        pytest.raises(ValueError, match="effective_return_cap must be a positive share"),
        effective_return_cap(cap),  # type: ignore[arg-type]  # some not even a number
    ):
        pass


def test_a_snapshot_without_rewards_cannot_tell_a_way_out(
    start_sandbox: StartSandbox, make_client: Callable[..., LoyaltyClient], clean: dict[str, Any]
) -> None:
    for reward in clean["rewards"]:
        reward["status"] = "INACTIVE"
    kinds = ["benefits", "card_definitions"]
    with start_sandbox(clean, now=None) as sb, make_client(sb) as client:
        partial = ProgramSnapshot.pull(client, kinds=kinds, progress=False)
        full = ProgramSnapshot.pull(client, progress=False)
    assert run(partial, ["points-without-way-out"]).empty
    assert len(run(full, ["points-without-way-out"])) == 1


def test_the_demo_breaks_the_economics_rules_exactly_where_declared(
    demo_findings: pd.DataFrame,
) -> None:
    # data/README.md "declared economic defects": two mispriced Beans gift cards, Perks
    # points with no way out, Gold Stars returning 15 % of spend.
    found = {
        rule: set(_hits(demo_findings, rule)["resource_id"])
        for rule in ("reward-mispriced", "points-without-way-out", "effective-return-above-cap")
    }
    assert found == {
        "reward-mispriced": {"lrew_c0ffee0022", "lrew_c0ffee0023"},
        "points-without-way-out": {"lcdef_c0ffee0003"},
        "effective-return-above-cap": {"lcdef_c0ffee0002"},
    }
