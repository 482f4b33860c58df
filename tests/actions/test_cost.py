"""A plan's call cost: one write per valid item not done, against the client's known budget."""

from __future__ import annotations

from pathlib import Path

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog, PlanCost
from lyt_toolkit.client import LoyaltyClient

from .helpers import benefit_rows


def test_cost_counts_valid_items_not_done(client: LoyaltyClient, tmp_path: Path) -> None:
    rows = [*benefit_rows("Cost", 5), {"name": ""}]
    plan = actions.create_benefits(rows)
    assert len(plan.invalid_items) == 1
    assert plan.cost().needed == 5

    log = tmp_path / "cost.jsonl"
    first_two = actions.create_benefits(rows[:2])
    first_two.execute(client, log=log, progress=False)
    assert plan.cost(log=log).needed == 3

    with ActionLog(log) as action_log:  # an item sent but never answered: read, then write
        action_log.record(plan.action, plan.items[2].target, "attempted")
    assert plan.cost(log=log).needed == 4


def test_budget_unknown_then_read_from_answers(client: LoyaltyClient) -> None:
    plan = actions.create_benefits(benefit_rows("Budget", 3))
    cost = plan.cost(client)
    assert cost.fits and cost.remaining is None  # the demo sandbox runs unlimited
    assert "budget unknown" in str(cost)


def test_shortfall_and_summary() -> None:
    short = PlanCost(needed=10, remaining=7, limit=100)
    assert not short.fits and short.shortfall == 3
    assert "remaining this window: 7 of 100" in str(short) and "3 calls short" in str(short)
    assert PlanCost(needed=7, remaining=7, limit=100).fits
