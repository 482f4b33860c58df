"""One token per client: a long pull, sync or async, asks for it once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient

from .budgeted import BudgetedServer
from .test_quota import settings

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

PAGES = 30


@pytest.fixture
def server() -> Iterator[BudgetedServer]:
    with BudgetedServer.running(limit=1000, window=60, pages=PAGES) as running:
        yield running


def test_a_multi_page_pull_asks_for_one_token(server: BudgetedServer) -> None:
    with LoyaltyClient(**settings(server)) as client:
        rewards = list(client.rewards.iter(limit=100))
        again = list(client.rewards.iter(limit=100))
        assert client.quota.calls_used == 2 * PAGES + 1
    assert len(rewards) == len(again) == PAGES
    assert server.tokens == 1


def test_an_async_pull_asks_for_one_token(server: BudgetedServer) -> None:
    async def pull() -> list[int]:
        async with AsyncLoyaltyClient(**settings(server)) as client:
            first = await _count(client)  # the token is fetched here
            return [first, *await asyncio.gather(*(_count(client) for _ in range(3)))]

    assert asyncio.run(pull()) == [PAGES] * 4
    assert server.tokens == 1


async def _count(client: AsyncLoyaltyClient) -> int:
    return len([r async for r in client.rewards.iter(limit=100)])


def test_a_paced_share_counts_the_token_request_a_v2_call_needs_before_either_goes() -> None:
    """A ``/v2`` call of a paced work made while no token is held sends the token request
    first: both count against the window's share before they go. With one call of the share
    left, the token request takes it and the call waits for the next window (it went too,
    one call beyond the share: 3 calls in the first window)."""
    with (
        BudgetedServer.running(limit=4, window=3, pages=1) as server,
        LoyaltyClient(**settings(server)) as client,
    ):
        client.request("GET", "/v1/landed")  # the window told (3 calls left), no token held
        with client.quota.allowance(0.5, paced=True) as allowance:
            assert allowance.calls == 1
            assert len(list(client.rewards.iter(limit=100))) == 1
    assert server.tokens == 1
    assert server.used == {0: 2, 1: 1}  # the call and the token in the first, the page next
