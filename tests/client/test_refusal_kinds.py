"""A 429 that does not say the window's budget is spent (a fault, a proxy, another limit)
is retried and no more, over real HTTP: it neither ends the window in the client's count
nor gives a work's allowance a new share of a window it thinks refilled; a paced work
waits out its ``Retry-After`` before sending the call again."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from interrupting import quiet_then_closed, window_used

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client.allowance import AllowanceSpent
from lyt_toolkit.client.config import RetryConfig
from lyt_toolkit.errors import QuotaExhaustedError, RateLimitError, StoppedError
from lyt_toolkit.sandbox import Sandbox

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

NO_RETRY = RetryConfig(max_attempts=1)


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


def test_a_429_of_no_budget_beyond_max_wait_is_a_rate_limit_not_a_spent_budget(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    fresh.set_plan("100/hour")
    with make_client(fresh, max_wait=1, retry=NO_RETRY) as client:
        client.programs.list(limit=1)
        fresh.set_faults(rate_limit=1.0, retry_after=30, seed=1)
        with pytest.raises(RateLimitError) as refused:
            client.programs.list(limit=1)
        assert not isinstance(refused.value, QuotaExhaustedError), refused.value
        assert refused.value.retry_after == 30
        assert "call budget" not in str(refused.value)
        assert client.quota.remaining == 100 - fresh.plan()["used"]


def test_a_paced_work_waits_out_429s_of_no_budget_beyond_its_retries_and_keeps_its_share(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Each 429 of a fault (``Retry-After: 1``, no retries allowed) is waited out, then the
    call is let start again as any of the work's: the share of the one window holds them all,
    and once it is spent the work waits for the reset, sending nothing, until closed."""
    fresh.set_plan("20/hour")
    with make_client(fresh, retry=NO_RETRY) as client:
        client.programs.list(limit=1)  # a token, then the call: 18 left
        fresh.set_faults(rate_limit=0.3, retry_after=1, seed=2)
        ended: list[BaseException] = []
        held: list[int | None] = []

        def paced() -> None:
            with client.quota.allowance(0.5, paced=True) as allowance:  # half of 18: 9
                try:
                    for _ in range(100):
                        client.programs.list(limit=1)
                except StoppedError as exc:  # closed while it waits for the reset
                    ended.append(exc)
                held.append(allowance.calls)
                held.append(len(allowance.windows))

        used = quiet_then_closed(fresh, client, paced, 2 + 9, quiet=2.5)
        assert used == window_used(fresh) == 2 + 9  # its share, the 429s within it
        assert client.quota.calls_used == used  # every call sent was counted by the sandbox
        assert client.quota.refusals > 0
        assert held == [9, 1] and len(ended) == 1  # one window, its share of it


def test_a_paced_call_refused_by_a_429_of_no_budget_waits_its_retry_after_not_resending(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """A 429 of no budget asking 30 s, beyond the call's retries: the paced call waits them
    out (one call sent, then none), never sent again at once, and a close ends the wait."""
    fresh.set_plan("20/hour")
    with make_client(fresh, retry=NO_RETRY) as client:
        client.programs.list(limit=1)  # a token, then the call: 18 left
        fresh.set_faults(rate_limit=1.0, retry_after=30, seed=1)
        ended: list[BaseException] = []

        def paced() -> None:
            with client.quota.allowance(0.5, paced=True):  # half of 18: 9
                try:
                    client.programs.list(limit=1)
                except StoppedError as exc:  # closed while it waits out the 429
                    ended.append(exc)

        used = quiet_then_closed(fresh, client, paced, 2 + 1, quiet=1.5)
        assert used == window_used(fresh) == 2 + 1  # the one call, refused, not sent again
        assert len(ended) == 1
