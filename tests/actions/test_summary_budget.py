"""A plan's summary given a client learns the budget as a cost's callers do.

``summary(client)`` of a client that had sent nothing said "budget unknown", though one token
request (``learn_budget``) tells it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .helpers import pull

PROGRAM = generate_program(members=2, rewards=20, benefits=1, seed=5)


def test_a_summary_given_a_fresh_client_learns_its_budget(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    with start_sandbox(PROGRAM) as sb:
        with make_client(sb) as client:
            edit = actions.edit(pull(client))
        edit.rewards.loc[edit.rewards["status"] == "ACTIVE", "status"] = "DRAFT"
        plan = edit.plan()
        saved = ChangePlan.load(plan.save(tmp_path / "plan.json"))
        for shown in (plan, saved):
            sb.set_plan("20/hour")
            with make_client(sb) as client:
                summary = shown.summary(client)
                assert "budget unknown" not in summary
                assert "19 left in this window (9 at the plan's share, 0.5)" in summary
                assert shown.cost(client).remaining == 19  # remembered: nothing more sent
            assert sb.plan()["used"] == 1  # the token request alone
