"""An unpaced apply at the whole window (``budget_share=1.0``) whose window falls between its
parts, over real HTTP: the part no longer fitting is refused as the apply's, saying the
window fell and how to resume with the same log, not offering ``allow_partial=True`` (which
an apply does not take); run again with the log after the reset, it sends exactly the rest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from other_traffic import spend
from shared_tls import TLS

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import BudgetExceededError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import bonuses_then_drafts

BONUSES = 3
LEFT = 10
"""What the lowered window (100 calls) leaves the apply: fewer than its drafts' writes."""


def test_an_apply_at_the_whole_window_fallen_between_parts_says_how_to_resume(
    fresh_pulled: ProgramSnapshot,
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """Earlier: "the move_reward_to_draft plan (25 items) not started: ... Run it after the
    reset, or pass allow_partial=True to send what fits and resume from the log after the
    reset": an apply takes no ``allow_partial``, and the creates made went unsaid."""
    log = tmp_path / "plan.log.jsonl"
    plan, drafts = bonuses_then_drafts(fresh_pulled, BONUSES, "Fell")
    assert len(drafts) > LEFT
    fresh.set_plan("1000/hour")
    creates = 0

    def window_fell_at_the_last_create(request: httpx.Request) -> None:
        nonlocal creates
        if request.method == "POST" and request.url.path.endswith("/benefits"):
            creates += 1
            if creates == BONUSES:
                fresh.set_plan("100/hour")
                spend(other, 100 - LEFT)

    with (
        make_client(fresh) as other,
        httpx.Client(event_hooks={"request": [window_fell_at_the_last_create]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        other.programs.list(limit=1)  # its token: spent before the apply starts
        with pytest.raises(BudgetExceededError) as caught:
            plan.apply(client, log=log, budget_share=1.0, concurrency=1, progress=False)
    said = str(caught.value)
    assert "allow_partial" not in said, said
    assert said.startswith("The window fell since the apply's check"), said
    assert f"{BONUSES} writes of its parts before are made, in its log: run the apply" in said
    assert "again with the same log after the reset" in said
    assert f"its move_reward_to_draft part ({len(drafts)} items) is not started" in said, said

    fresh.set_plan("1000/hour")  # a new window
    posts: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [posts.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as later,
    ):
        again = plan.apply(later, log=log, budget_share=1.0, progress=False)
    writes = [r for r in posts if r.method == "POST" and "oauth" not in r.url.path]
    assert len(writes) == len(drafts)  # the rest, no create again
    assert (again["outcome"] == "skipped_already_done").sum() == BONUSES
    fresh.set_plan("unlimited")
