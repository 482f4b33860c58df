"""Previews read what the interface lists many a call by listing.

A preview of reward moves read each reward on its own (670 rewards at 20,000 members cost
about 1,045 calls against a 2,500 share), and one of benefit creates each name on its own,
where the interface lists rewards by ID, 99 a call, and benefits by name, 10 a call.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from lyt_toolkit import actions
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .helpers import benefit_rows

PROGRAM = generate_program(members=2, rewards=150, benefits=1, seed=5)
REWARDS = [r["id"] for r in PROGRAM["rewards"]]
ACTIVE = sum(1 for r in PROGRAM["rewards"] if r["status"] == "ACTIVE")
LIMIT = "20/hour"
"""A window whose share (half of the 19 left after the token request) holds 9 reads."""


def test_a_reward_preview_lists_the_rewards_by_id_99_a_call(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    plan = actions.move_rewards_to_draft(REWARDS)
    with start_sandbox(PROGRAM) as sb, make_client(sb) as client:
        sb.set_plan(LIMIT)
        preview = plan.preview(client, progress=False)
        assert sb.plan()["used"] == 1 + 2  # the token request, then two listings
    assert plan.preview_reads(plan.valid_items) == 2  # 150 rewards: 99, then 51
    assert (preview["will"] == "move to DRAFT").sum() == ACTIVE
    assert (preview["will"] == "nothing (already DRAFT)").sum() > 0


def test_a_benefit_preview_lists_the_names_10_a_call(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    taken = PROGRAM["benefits"][0]["name"]
    rows = [*benefit_rows("Fresh", 24), {**benefit_rows("x", 1)[0], "name": taken}]
    plan = actions.create_benefits(rows)
    with start_sandbox(PROGRAM) as sb, make_client(sb) as client:
        sb.set_plan(LIMIT)
        preview = plan.preview(client, progress=False)
        assert sb.plan()["used"] == 1 + 3
    assert plan.preview_reads(plan.valid_items) == 3  # 25 names: 10, 10, then 5
    assert (preview["will"] == "create POINTS benefit (DRAFT)").sum() == 24
    assert preview["will"].iloc[-1].startswith("fails: the name is taken by ")
