"""A tier what-if keeps to its share of the call budget, as a pull does.

It sends one validation per order: ten thousand example orders are two windows of a
professional plan. Sent blindly, they spent the whole window and then failed with a 429 and
nothing returned, and every other integration of the project was refused until the reset.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.errors import BudgetExceededError
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_kwargs

TIER = "promo_NwTier0001"


def orders(count: int) -> list[dict[str, int]]:
    return [{"amount": 2500 + number} for number in range(count)]


def test_a_what_if_beyond_its_share_is_refused_after_the_one_call_that_tells_the_budget(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    fresh.set_plan("40/hour")
    with make_client(fresh) as client, pytest.raises(BudgetExceededError) as refused:
        client.promotion_tiers.what_if(TIER, orders=orders(30))
    assert fresh.plan()["used"] == 1  # the first order's, which tells the budget
    text = str(refused.value)
    assert refused.value.needed == 29 and refused.value.share == 0.5
    assert "share (0.5) of the call budget left this window is 19 (39 of 40 left" in text
    # 29 calls do not fit half of a whole window (20) either: waiting would not help
    assert "Run it after the reset" not in text
    assert "split it into parts of at most 20 calls, one a window (19 fit now)" in text
    assert "Pass budget_share=1.0" in text  # the 39 left hold the 29


def test_a_what_if_refused_names_the_whole_window_when_it_fits_there(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    fresh.set_plan("40/hour")
    with make_client(fresh) as client:
        client.promotion_tiers.what_if(TIER, orders=orders(15))  # within 20 of 40
        assert fresh.plan()["used"] == 15
        with pytest.raises(BudgetExceededError) as refused:
            client.promotion_tiers.what_if(TIER, orders=orders(15))
        assert fresh.plan()["used"] == 15  # nothing sent: the budget was known
        text = str(refused.value)
        assert "Run it after the reset" in text and "budget_share=1.0" in text
        frame = client.promotion_tiers.what_if(TIER, orders=orders(15), budget_share=1.0)
    assert len(frame) == 15 and fresh.plan()["remaining"] == 10


def test_the_async_what_if_keeps_to_its_share_too(fresh: Sandbox) -> None:
    fresh.set_plan("40/hour")

    async def run() -> None:
        async with AsyncLoyaltyClient(**client_kwargs(fresh)) as client:
            await client.promotion_tiers.what_if(TIER, orders=orders(30))

    with pytest.raises(BudgetExceededError):
        asyncio.run(run())
    assert fresh.plan()["used"] == 1


def test_a_what_if_takes_no_share_out_of_range(client: LoyaltyClient) -> None:
    with pytest.raises(ValueError, match="budget_share"):
        client.promotion_tiers.what_if(TIER, orders=orders(1), budget_share=0)
