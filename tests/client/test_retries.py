"""Transient failures: retried for safe calls, bounded, and invisible in the result."""

from __future__ import annotations

import httpx
import pytest
from interrupting import HANG
from shared_tls import TLS

from lyt_toolkit.client import LoyaltyClient, RetryConfig
from lyt_toolkit.client._core import Call, backoff_delay, next_delay, parse_retry_after
from lyt_toolkit.errors import ServerError
from lyt_toolkit.sandbox import Sandbox

from .helpers import FAST_RETRY, Recorder, client_kwargs

PATIENT = RetryConfig(max_attempts=12, backoff_base=0.005, backoff_max=0.02, total_timeout=30)


def _pull(client: LoyaltyClient) -> dict[str, list[dict]]:
    return {
        "rewards": [r.wire() for r in client.rewards.iter(limit=7)],
        "benefits": [b.wire() for b in client.benefits.iter(limit=7)],
        "card_definitions": [c.wire() for c in client.card_definitions.iter(limit=2)],
        "tier_structures": [t.wire() for t in client.tier_structures.iter(limit=2)],
    }


def test_pull_under_faults_equals_a_clean_pull(fresh: Sandbox) -> None:
    def pull(faults: dict[str, float]) -> tuple[dict[str, list[dict]], int]:
        recorder = Recorder()
        fresh.set_faults(**faults)
        http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
        with LoyaltyClient(**client_kwargs(fresh), retry=PATIENT, http_client=http) as client:
            result = _pull(client)
        http.close()
        fresh.clear_faults()
        return result, sum(1 for method, _ in recorder.calls if method == "GET")

    clean, clean_requests = pull({})
    faulty, faulty_requests = pull(
        {"rate_limit": 0.25, "unavailable": 0.15, "retry_after": 0, "seed": 3}
    )
    assert faulty == clean
    assert faulty_requests > clean_requests  # some pages really were refused and resent


def test_slow_responses_within_the_timeout_are_fine(fresh: Sandbox) -> None:
    fresh.set_faults(delay_seconds=0.2, delay_fraction=1.0, seed=1)
    with LoyaltyClient(**client_kwargs(fresh), timeout=HANG) as client:
        assert client.rewards.list(limit=2).data


def test_timeouts_become_api_timeout_errors(fresh: Sandbox) -> None:
    from lyt_toolkit.errors import APITimeoutError

    fresh.set_faults(delay_seconds=1.0, delay_fraction=1.0, seed=1)
    retry = RetryConfig(max_attempts=2, backoff_base=0.01, backoff_max=0.01)
    client = LoyaltyClient(**client_kwargs(fresh), timeout=0.2, retry=retry)
    with client, pytest.raises(APITimeoutError):
        client.projects.list()


def test_a_post_is_not_resent_after_a_503(fresh: Sandbox, recorder: Recorder) -> None:
    http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
    with LoyaltyClient(**client_kwargs(fresh), retry=FAST_RETRY, http_client=http) as client:
        client.rewards.list(limit=1)  # token in hand before the faults start
        fresh.set_faults(unavailable=1.0, retry_after=0, seed=1)
        with pytest.raises(ServerError):
            client.rewards.draft("lrew_c0ffee0002")
    http.close()
    assert recorder.count("POST", "/v2/loyalties/rewards/lrew_c0ffee0002/draft") == 1


def test_a_post_is_resent_after_a_429(fresh: Sandbox, recorder: Recorder) -> None:
    """A 429 means the service did no work, so even a create may be sent again."""
    http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
    with LoyaltyClient(**client_kwargs(fresh), retry=PATIENT, http_client=http) as client:
        client.rewards.list(limit=1)
        fresh.set_faults(rate_limit=0.5, retry_after=0, seed=2)
        drafted = client.rewards.draft("lrew_c0ffee0002")
        fresh.clear_faults()
        assert drafted.status == "DRAFT"
    http.close()


def test_max_attempts_one_disables_retries(fresh: Sandbox, recorder: Recorder) -> None:
    from lyt_toolkit.errors import RateLimitError

    fresh.set_faults(rate_limit=1.0, retry_after=0, seed=1)
    http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
    retry = RetryConfig(max_attempts=1)
    client = LoyaltyClient(**client_kwargs(fresh), retry=retry, http_client=http)
    with client, pytest.raises(RateLimitError):
        client.projects.list()
    http.close()
    assert recorder.count("GET", "/management/v1/projects") == 1


def test_retry_after_longer_than_the_budget_gives_up_at_once(fresh: Sandbox) -> None:
    from lyt_toolkit.errors import RateLimitError

    fresh.set_faults(rate_limit=1.0, retry_after=120, seed=1)
    client = LoyaltyClient(**client_kwargs(fresh), retry=RetryConfig(total_timeout=5))
    with client, pytest.raises(RateLimitError):
        client.projects.list()


# -- the policy itself ---------------------------------------------------------


def test_parse_retry_after() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("-1") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0


def test_backoff_is_exponential_with_full_jitter() -> None:
    retry = RetryConfig(backoff_base=0.25, backoff_max=8)
    assert [backoff_delay(n, retry, rand=lambda: 1.0) for n in (1, 2, 3, 6, 10)] == [
        0.25,
        0.5,
        1.0,
        8.0,
        8.0,
    ]
    assert backoff_delay(4, retry, rand=lambda: 0.0) == 0.0


def test_next_delay_respects_attempts_and_total_time() -> None:
    retry = RetryConfig(max_attempts=3, total_timeout=10)
    assert next_delay(1, 0.0, retry, "2") == 2.0
    assert next_delay(3, 0.0, retry, "2") is None  # attempts spent
    assert next_delay(1, 9.0, retry, "2") is None  # would cross the deadline


def test_which_calls_may_be_resent() -> None:
    assert Call("GET", "/v2/loyalties/rewards").idempotent
    assert Call("DELETE", "/v2/loyalties/tier-structures/lts_1").idempotent
    assert Call("POST", "/oauth/token").idempotent
    assert not Call("POST", "/v2/loyalties/benefits").idempotent
    assert not Call("POST", "/v1/promotions/tiers/x/validation").idempotent
