"""The call budget over real HTTP: read from every answer, waited out, never overspent.

The server (``budgeted.py``) keeps a budget in windows of a second or two and
counts every request, so "the refused call was not sent" is checked where it
would have arrived.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.client.allowance import AllowanceSpent
from lyt_toolkit.errors import QuotaExhaustedError, RateLimitError

from .budgeted import BudgetedServer, in_threads
from .helpers import APP_TOKEN, MANAGEMENT_TOKEN
from .misbehaving import BEARER, REWARD_IDS

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

SECRETS = (APP_TOKEN, MANAGEMENT_TOKEN, BEARER)
REWARD = "lrew_c0ffee0020"


@pytest.fixture
def budgeted(request: pytest.FixtureRequest) -> Iterator[BudgetedServer]:
    options = getattr(request, "param", {})
    with BudgetedServer.running(**options) as running:
        yield running


def settings(server: BudgetedServer, **extra: Any) -> dict[str, Any]:
    return {
        "base_url": server.base_url,
        "env_file": None,
        "app_id": "budget-app",
        "app_token": APP_TOKEN,
        "management_id": "budget-management",
        "management_token": MANAGEMENT_TOKEN,
        "timeout": 10,
        **extra,
    }


@pytest.mark.parametrize("budgeted", [{"limit": 50, "window": 60}], indirect=True)
def test_the_quota_is_read_from_every_answer(budgeted: BudgetedServer) -> None:
    with LoyaltyClient(**settings(budgeted)) as client:
        quota = client.quota
        assert (quota.limit, quota.remaining, quota.resets_at, quota.type) == (None,) * 4
        assert quota.calls_used == 0
        client.rewards.get(REWARD)  # a token request, then the call
        assert quota.limit == 50
        assert quota.remaining == 48 == 50 - len(budgeted.received)
        assert quota.calls_used == 2
        assert quota.type is None
        left = quota.seconds_to_reset()
        assert left is not None and 50 < left <= 61
        assert quota.resets_at is not None
        assert "remaining=48" in repr(quota) and "calls_used=2" in repr(quota)


@pytest.mark.parametrize("budgeted", [{"limit": 50, "window": 60}], indirect=True)
def test_threads_share_one_quota(budgeted: BudgetedServer) -> None:
    with LoyaltyClient(**settings(budgeted)) as client:

        def work() -> None:
            for _ in range(3):
                client.rewards.get(REWARD)

        errors = in_threads(work, 4)
        assert not errors
        assert client.quota.calls_used == len(budgeted.received) == 13  # 12 calls, 1 token
        client.rewards.get(REWARD)  # one answer after all the others: the count is exact
        assert client.quota.remaining == 50 - 14


@pytest.mark.parametrize("budgeted", [{"limit": 50, "window": 60}], indirect=True)
def test_async_tasks_share_one_quota(budgeted: BudgetedServer) -> None:
    async def pull() -> tuple[int, int | None]:
        async with AsyncLoyaltyClient(**settings(budgeted)) as client:
            await asyncio.gather(*(client.rewards.get(REWARD) for _ in range(6)))
            used = client.quota.calls_used
            await client.rewards.get(REWARD)
            return used, client.quota.remaining

    used, remaining = asyncio.run(pull())
    assert used == 7 and len(budgeted.received) == 8
    assert remaining == 50 - 8


@pytest.mark.parametrize("budgeted", [{"limit": None}], indirect=True)
def test_without_headers_the_quota_stays_unknown_and_nothing_waits(
    budgeted: BudgetedServer,
) -> None:
    with LoyaltyClient(**settings(budgeted, max_wait=0)) as client:
        for _ in range(5):
            client.rewards.get(REWARD)
        assert (client.quota.limit, client.quota.remaining, client.quota.resets_at) == (None,) * 3
        assert client.quota.calls_used == 6


@pytest.mark.parametrize("budgeted", [{"limit": 3, "window": 1.0}], indirect=True)
def test_a_spent_budget_is_waited_out_within_max_wait(budgeted: BudgetedServer) -> None:
    with LoyaltyClient(**settings(budgeted, max_wait=5)) as client:
        for _ in range(7):
            client.rewards.get(REWARD)
        assert client.quota.calls_used == 8
    assert budgeted.refused == 0
    assert len(budgeted.received) == 8
    span = budgeted.received[-1][0] - budgeted.received[0][0]
    assert span >= 2 * 0.9  # eight calls at three per second need at least two resets


@pytest.mark.parametrize("budgeted", [{"limit": 3, "window": 1.0}], indirect=True)
def test_async_tasks_wait_out_a_spent_budget_together(budgeted: BudgetedServer) -> None:
    async def pull() -> int:
        async with AsyncLoyaltyClient(**settings(budgeted, max_wait=5)) as client:
            await client.rewards.get(REWARD)
            await asyncio.gather(*(client.rewards.get(REWARD) for _ in range(5)))
            return client.quota.calls_used

    assert asyncio.run(pull()) == len(budgeted.received) == 7
    assert budgeted.refused == 0


@pytest.mark.parametrize("budgeted", [{"limit": 3, "window": 30}], indirect=True)
def test_past_max_wait_the_call_is_not_sent(budgeted: BudgetedServer) -> None:
    with LoyaltyClient(**settings(budgeted, max_wait=0.5)) as client:
        client.rewards.get(REWARD)
        client.rewards.get(REWARD)
        started = time.monotonic()
        with pytest.raises(QuotaExhaustedError) as info:
            client.rewards.get(REWARD)
        assert time.monotonic() - started < 5  # raised at once, not after the window
    error = info.value
    assert len(budgeted.received) == 3 and budgeted.refused == 0
    assert error.sent is False and error.calls_used == 3
    assert error.retry_after is not None and 20 < error.retry_after <= 31  # Date: whole s
    assert error.retry_at is not None
    text = str(error)
    assert "this client has sent 3 calls" in text
    assert f"at {error.retry_at:%Y-%m-%d %H:%M}" in text
    assert "max_wait (0.5 s)" in text and "GET /v2/loyalties/rewards" in text
    for secret in SECRETS:
        assert secret not in text and secret not in repr(error) and secret not in repr(vars(error))
    assert isinstance(error, RateLimitError)  # who catches rate limits catches this too


@pytest.mark.parametrize("budgeted", [{"limit": 3, "window": 1.0, "skew": 3600}], indirect=True)
def test_a_server_clock_an_hour_ahead_does_not_stretch_the_wait(
    budgeted: BudgetedServer,
) -> None:
    """The reset epoch is read against the answer's Date, not this machine's clock."""
    with LoyaltyClient(**settings(budgeted, max_wait=5)) as client:
        for _ in range(4):
            client.rewards.get(REWARD)
        assert client.quota.seconds_to_reset() is not None
        assert client.quota.seconds_to_reset() <= 3  # type: ignore[operator]
    assert budgeted.refused == 0


@pytest.mark.parametrize("budgeted", [{"limit": 4, "window": 2.0}], indirect=True)
def test_an_unforeseen_429_within_max_wait_is_waited_out(budgeted: BudgetedServer) -> None:
    """Another client of the project spends the budget; this one learns it from the 429."""
    with LoyaltyClient(**settings(budgeted, max_wait=5)) as client:
        client.rewards.get(REWARD)  # a token and one call: two left, as far as it knows
        budgeted.spend(2)
        assert client.rewards.get(REWARD).id == REWARD
        assert client.quota.calls_used == 4  # the refused one included
    assert budgeted.refused == 1


@pytest.mark.parametrize("budgeted", [{"limit": 2, "window": 1.5}], indirect=True)
def test_waiting_before_a_call_does_not_count_against_its_timeout(
    budgeted: BudgetedServer,
) -> None:
    with LoyaltyClient(**settings(budgeted, max_wait=5, timeout=0.5)) as client:
        client.rewards.get(REWARD)
        assert client.quota.remaining == 0
        assert client.rewards.get(REWARD).id == REWARD  # waited past the reset first
    assert budgeted.refused == 0


@pytest.mark.parametrize("budgeted", [{"limit": 4, "window": 2.0}], indirect=True)
def test_a_429_longer_than_the_timeout_raises_then_the_next_call_waits(
    budgeted: BudgetedServer,
) -> None:
    with LoyaltyClient(**settings(budgeted, max_wait=5, timeout=0.5)) as client:
        client.rewards.get(REWARD)
        budgeted.spend(2)
        with pytest.raises(RateLimitError) as info:
            client.rewards.get(REWARD)
        assert not isinstance(info.value, QuotaExhaustedError)  # within max_wait
        assert client.quota.remaining == 0
        assert client.rewards.get(REWARD).id == REWARD  # waits for the reset, then sends
    assert budgeted.refused == 1


def test_retry_after_beyond_max_wait_raises_at_once() -> None:
    with BudgetedServer.running(limit=None) as server:
        with LoyaltyClient(**settings(server, max_wait=60)) as client:
            started = time.monotonic()
            with pytest.raises(QuotaExhaustedError) as info:
                client.rewards.get(REWARD_IDS["budget_spent"])  # Retry-After: 86400
            assert time.monotonic() - started < 5
        assert server.hits[f"/v2/loyalties/rewards/{REWARD_IDS['budget_spent']}"] == 1
    error = info.value
    assert error.sent is True and error.status == 429 and error.retry_after == 86400
    assert "max_wait (60 s)" in str(error) and "this client has sent 2 calls" in str(error)
    for secret in SECRETS:
        assert secret not in str(error) and secret not in repr(vars(error))


@pytest.mark.parametrize("budgeted", [{"limit": 1000, "window": 60}], indirect=True)
def test_rate_spreads_call_starts(budgeted: BudgetedServer) -> None:
    interval = 60 / 240
    calls = 6
    with LoyaltyClient(**settings(budgeted, rate="240/minute")) as client:
        client.rewards.get(REWARD)  # the token is in hand before the count starts
        first = len(budgeted.calls("GET", f"/v2/loyalties/rewards/{REWARD}"))

        def work() -> None:
            for _ in range(calls // 2):
                client.rewards.get(REWARD)

        errors = in_threads(work, 2)
    assert not errors
    arrivals = sorted(budgeted.calls("GET", f"/v2/loyalties/rewards/{REWARD}")[first:])
    assert len(arrivals) == calls
    # Evenly spaced starts: n calls span at least n - 1 intervals (one spared for
    # the time between a start and its arrival); only lower bounds, never upper.
    assert arrivals[-1] - arrivals[0] >= (calls - 2) * interval


@pytest.mark.parametrize("budgeted", [{"limit": 50, "window": 60}], indirect=True)
def test_an_allowance_refuses_the_call_beyond_its_share_unsent(budgeted: BudgetedServer) -> None:
    with LoyaltyClient(**settings(budgeted)) as client:
        client.rewards.get(REWARD)  # a token, then the call: 48 left
        with client.quota.allowance(0.25) as allowance:  # a quarter of 48: 12 calls
            assert (allowance.calls, allowance.left, allowance.window_left) == (12, 12, 48)
            for _ in range(12):
                client.rewards.get(REWARD)
            sent = len(budgeted.received)
            with pytest.raises(AllowanceSpent, match=r"share \(0.25\).*12 calls, is used up"):
                client.rewards.get(REWARD)
            assert len(budgeted.received) == sent and allowance.left == 0
        client.rewards.get(REWARD)  # the allowance is gone with its block
        assert client.quota.remaining == 48 - 13


@pytest.mark.parametrize("budgeted", [{"limit": 50, "window": 60}], indirect=True)
def test_an_allowance_taken_before_the_budget_is_known_is_set_by_the_first_answer(
    budgeted: BudgetedServer,
) -> None:
    budgeted.spend(10)  # another client of the project: 40 left
    with LoyaltyClient(**settings(budgeted)) as client, client.quota.allowance(0.5) as allowance:
        assert allowance.calls is None and allowance.left is None
        client.rewards.get(REWARD)  # a token request, then the call
        # Half of what the window held when the work began: 38 left after its 2 calls.
        assert allowance.window_left == 40 and allowance.calls == 20 and allowance.spent == 2


@pytest.mark.parametrize("budgeted", [{"limit": 300, "window": 60}], indirect=True)
def test_an_allowance_shrinks_to_its_share_of_what_other_traffic_leaves(
    budgeted: BudgetedServer,
) -> None:
    """The client last read 298 left; another client of the project then spent 113, and 40
    more while the work ran: the work keeps to half of what the window really held for it."""
    with LoyaltyClient(**settings(budgeted)) as client:
        client.rewards.get(REWARD)  # a token, then the call: 298 left, as this client reads
        budgeted.spend(113)  # 185 really left
        with client.quota.allowance(0.5) as allowance:
            assert (allowance.calls, allowance.others) == (149, 0)  # of the stale 298
            client.rewards.get(REWARD)  # its answer tells: 184 left
            assert (allowance.window_left, allowance.others) == (298, 113)
            assert allowance.available == 185 and allowance.calls == 92  # half of 185
            for _ in range(19):
                client.rewards.get(REWARD)
            budgeted.spend(40)  # the work has sent 20; 125 left, 145 for the work in all
            sent = allowance.spent
            with pytest.raises(AllowanceSpent) as refused:
                while True:
                    client.rewards.get(REWARD)
                    sent += 1
            assert sent == allowance.spent == allowance.calls == 72  # half of 145, not 149
            assert "other traffic has spent at least 153 calls of the window" in str(refused.value)
            assert "share (0.5) of the call budget, 72 calls, is used up" in str(refused.value)
    assert budgeted.used[0] == 2 + 113 + 40 + 72 and budgeted.refused == 0  # 73 left for others


@pytest.mark.parametrize("budgeted", [{"limit": None}], indirect=True)
def test_an_allowance_without_rate_headers_refuses_nothing(budgeted: BudgetedServer) -> None:
    with LoyaltyClient(**settings(budgeted)) as client, client.quota.allowance(0.5) as allowance:
        for _ in range(30):
            client.rewards.get(REWARD)
        assert (allowance.calls, allowance.left, allowance.others) == (None, None, 0)
        assert allowance.spent == 31  # the token and the 30 reads, none refused


@pytest.mark.parametrize("share", [0, 1.01, -1, float("nan"), "1"])
def test_an_allowance_share_is_checked(share: Any) -> None:
    with (
        LoyaltyClient(base_url="http://127.0.0.1:9", env_file=None) as client,
        pytest.raises(ValueError, match="budget_share"),
        client.quota.allowance(share),
    ):
        pass
