"""Every resource's ``frame()`` keeps to its share of the call budget, as a pull does.

A frame walks the whole list in one call of the user's: 20,000 members are 200 pages, and in
a window other traffic has mostly spent that walk took what the project's other integrations
needed. It now holds ``budget_share`` of the window (half by default): refused, nothing sent,
when not one page fits, and stopped where the share runs out, naming the paced pull of the
same frame. The demo's first program has 5 members; ``limit=1`` makes each a page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.errors import PullBudgetError
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_kwargs

PROGRAM = "lprg_c0ffee0001"
PACED = "ProgramSnapshot.pull(client, kinds=['members'], checkpoint='pull-checkpoint')"


def test_a_list_frame_stops_where_its_share_of_the_window_runs_out(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    fresh.set_plan("8/hour")  # half is 4: the token and 3 of the 5 pages
    with make_client(fresh) as client, pytest.raises(PullBudgetError) as stopped:
        client.members.frame(PROGRAM, limit=1, progress=False)
    assert fresh.plan()["used"] == 4 and fresh.plan()["remaining"] == 4
    refusal = stopped.value
    assert (refusal.stage, refusal.during, refusal.sent, refusal.share) == (
        "members list",
        True,
        4,
        0.5,
    )
    text = str(refusal)
    assert "pull stopped during its members list" in text and "sent 4 calls" in text
    (way,) = refusal.ways
    assert way.how == f"{PACED}, then its rows of {PROGRAM}"  # limit= sizes pages only


def test_a_list_frame_in_a_spent_window_is_refused_with_nothing_sent(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    fresh.set_plan("8/hour")
    with make_client(fresh) as client:
        while fresh.plan()["remaining"] > 1:  # other traffic, the budget known to the client
            client.programs.list(limit=1)
        with pytest.raises(PullBudgetError) as refused:
            client.members.frame(PROGRAM, progress=False)
    assert fresh.plan()["used"] == 7  # not one more
    assert (refused.value.stage, refused.value.during) == ("members list", False)
    assert str(refused.value.ways[0]).endswith(f"({PACED}, then its rows of {PROGRAM})")


def test_a_list_frame_takes_the_share_it_is_given(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    fresh.set_plan("8/hour")
    with make_client(fresh) as client:
        with pytest.raises(ValueError, match="budget_share"):
            client.members.frame(PROGRAM, progress=False, budget_share=0)
        assert fresh.plan()["used"] == 0
        frame = client.members.frame(PROGRAM, limit=1, progress=False, budget_share=1)
    assert len(frame) == 5 and fresh.plan()["used"] == 6


def test_the_async_list_frame_keeps_to_its_share_too(fresh: Sandbox) -> None:
    fresh.set_plan("8/hour")

    async def run() -> None:
        async with AsyncLoyaltyClient(**client_kwargs(fresh)) as client:
            await client.members.frame(PROGRAM, limit=1, progress=False)

    with pytest.raises(PullBudgetError, match="members list"):
        asyncio.run(run())
    assert fresh.plan()["used"] == 4


def test_the_promotion_tier_frame_keeps_to_its_share_too(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Tiers come in numbered pages, walked by ``iter``: the frame holds the same share."""
    fresh.set_plan("4/hour")  # half is 2: the token and one page of one tier
    with make_client(fresh) as client, pytest.raises(PullBudgetError) as stopped:
        client.promotion_tiers.frame(limit=1)
    assert fresh.plan()["used"] == 2
    assert (stopped.value.stage, stopped.value.during) == ("promotion_tiers list", True)
    (way,) = stopped.value.ways
    assert way.how == "client.promotion_tiers.frame(...) after the reset"
