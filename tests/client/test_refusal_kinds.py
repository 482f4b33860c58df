"""A 429 that does not say the window's budget is spent (a fault, a proxy, another limit)
is retried and no more, over real HTTP: it neither ends the window in the client's count
nor gives a work's allowance a new share of a window it thinks refilled."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client.allowance import AllowanceSpent
from lyt_toolkit.errors import RateLimitError
from lyt_toolkit.sandbox import Sandbox


def test_a_429_of_no_budget_keeps_an_allowance_to_its_share_of_the_window(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    fresh.set_plan("100/hour")
    with make_client(fresh) as client:
        client.programs.list(limit=1)  # a token, then the call: 98 left
        with client.quota.allowance(0.5) as allowance:  # half of 98: 49 calls
            for _ in range(10):
                client.programs.list(limit=1)
            # A fault answered 429 with `Retry-After: 0` and no budget headers, every attempt.
            fresh.set_faults(rate_limit=1.0, retry_after=0, seed=1)
            with pytest.raises(RateLimitError):
                client.programs.list(limit=1)
            fresh.clear_faults()
            assert client.quota.remaining == 100 - fresh.plan()["used"]  # not a refilled 100
            with pytest.raises(AllowanceSpent):
                for _ in range(100):
                    client.programs.list(limit=1)
            assert allowance.calls == 49
    assert fresh.plan()["used"] - 2 == 49  # the attempts answered 429 counted in the share
