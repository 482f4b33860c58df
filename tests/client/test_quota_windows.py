"""The client's budget against the sandbox's windows, over real HTTP: an answer for the
current window lowers the count, a new limit replaces it at once, the reset reads on the
sandbox clock, and past the reset the budget is refilled, never stale."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import QuotaExhaustedError
from lyt_toolkit.sandbox import Sandbox

from .helpers import FAST_RETRY, Recorder

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`


@pytest.fixture
def impatient(
    fresh: Sandbox, recorder: Recorder, make_client: Callable[..., LoyaltyClient]
) -> Iterator[LoyaltyClient]:
    """A client that never waits for a reset: a call it knows is refused raises unsent."""
    with (
        httpx.Client(event_hooks={"request": [recorder]}, verify=TLS) as http,
        make_client(fresh, retry=FAST_RETRY, http_client=http, max_wait=0) as client,
    ):
        yield client


def test_an_answer_late_in_the_window_lowers_the_count(
    impatient: LoyaltyClient, fresh: Sandbox, recorder: Recorder
) -> None:
    client = impatient
    fresh.set_plan("3/minute")
    client.programs.list(limit=1)  # a token and one read: one call left
    assert client.quota.remaining == 1
    fresh.advance_clock(57)  # the same window, 3 s before its end on the sandbox clock
    client.programs.list(limit=1)
    assert client.quota.remaining == 0
    sent = len(recorder.calls)
    with pytest.raises(QuotaExhaustedError) as raised:
        client.programs.list(limit=1)
    assert raised.value.sent is False and len(recorder.calls) == sent
    assert fresh.plan()["used"] == 3


def test_a_new_limit_replaces_the_count_at_once(client: LoyaltyClient, fresh: Sandbox) -> None:
    fresh.set_plan("professional")
    client.programs.list(limit=1)
    assert (client.quota.limit, client.quota.remaining) == (5000, 4998)
    fresh.set_plan("30/minute")
    client.programs.list(limit=1)
    assert (client.quota.limit, client.quota.remaining) == (30, 29)


def test_the_reset_reads_on_the_sandbox_clock(impatient: LoyaltyClient, fresh: Sandbox) -> None:
    client = impatient
    fresh.set_clock("2026-01-15T12:00:45Z")  # the sandbox's fixed clock, far from this machine's
    fresh.set_plan("5/minute")
    client.programs.list(limit=1)
    assert client.quota.resets_at == datetime(2026, 1, 15, 12, 1, tzinfo=UTC)
    assert "resets_at=2026-01-15 12:01:00 UTC" in repr(client.quota)
    for _ in range(3):
        client.programs.list(limit=1)
    with pytest.raises(QuotaExhaustedError) as raised:
        client.programs.list(limit=1)
    assert raised.value.retry_at == datetime(2026, 1, 15, 12, 1, tzinfo=UTC)
    assert "resets at 2026-01-15 12:01:00 UTC" in str(raised.value)


def test_past_the_reset_the_budget_is_refilled(client: LoyaltyClient, fresh: Sandbox) -> None:
    fresh.set_clock("2026-01-15T12:00:58Z")  # the window ends 2 s away on the sandbox clock
    fresh.set_plan("3/minute")
    client.programs.list(limit=1)
    client.programs.list(limit=1)
    assert client.quota.remaining == 0
    left = client.quota.seconds_to_reset()
    assert left is not None
    fresh.advance_clock(2)  # the sandbox's fixed clock reaches the window's end
    time.sleep(left)  # and so does this machine's
    assert client.quota.remaining == 3
    assert client.quota.resets_at is None  # the new window's end is not known yet
    client.programs.list(limit=1)
    assert client.quota.remaining == 2
    assert client.quota.resets_at == datetime(2026, 1, 15, 12, 2, tzinfo=UTC)


@pytest.mark.parametrize("patient", [False, True], ids=["max_wait=0", "max_wait=60"])
def test_past_resets_at_a_one_item_plan_is_not_refused(
    impatient: LoyaltyClient, client: LoyaltyClient, fresh: Sandbox, patient: bool
) -> None:
    """``Date`` is to the second: the window's end read against it may be up to a second
    late on this machine. Once ``resets_at`` has passed on the service's clock the budget
    is unknown, read afresh with the next call, never a stale 0 (issue 33, item 10)."""
    from lyt_toolkit import actions

    user = client if patient else impatient
    fresh.set_clock("2026-01-15T12:00:58.700Z")  # its Date says 12:00:58
    fresh.set_plan("3/minute")
    user.programs.list(limit=1)  # a token and one read
    user.programs.list(limit=1)
    assert user.quota.remaining == 0
    assert user.quota.resets_at == datetime(2026, 1, 15, 12, 1, tzinfo=UTC)
    fresh.advance_clock(1.3)  # the service's clock reaches resets_at
    time.sleep(1.35)  # and so does this machine's
    assert user.quota.remaining in (None, 3)
    results = actions.move_rewards_to_draft(["lrew_c0ffee0001"]).execute(user, progress=False)
    assert list(results["outcome"]) == ["succeeded"]
    assert user.quota.remaining == 2
    assert fresh.plan()["used"] == 1
