"""Bearer tokens for /v2: fetched once, reused, renewed before expiry and after a 401."""

from __future__ import annotations

import threading

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import UnauthorizedError
from lyt_toolkit.sandbox import Sandbox

from .helpers import Recorder, client_kwargs

REWARDS = ("GET", "/v2/loyalties/rewards")


def test_one_token_serves_many_calls(client: LoyaltyClient, recorder: Recorder) -> None:
    for _ in range(3):
        client.rewards.list(limit=1)
    client.benefits.list(limit=1)
    assert recorder.token_requests == 1


def test_token_refreshed_after_the_server_clock_passes_its_expiry(
    client: LoyaltyClient, fresh: Sandbox, recorder: Recorder
) -> None:
    token = client.oauth.token()  # learn the lifetime the sandbox grants
    client.rewards.list(limit=1)
    before = recorder.token_requests
    fresh.advance_clock(token.expires_in + 60)
    page = client.rewards.list(limit=1)
    assert page.data
    assert recorder.token_requests == before + 1
    # the first try was refused with 401 and retried once with the new token
    assert recorder.count(*REWARDS) == 3


def test_a_401_renews_the_token_once(fresh: Sandbox, recorder: Recorder) -> None:
    http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
    with LoyaltyClient(**client_kwargs(fresh), http_client=http) as client:
        client.rewards.list(limit=1)
        fresh.reset()  # the sandbox forgets every token it issued
        assert client.rewards.list(limit=1).data  # 401 -> new token -> success
    assert recorder.token_requests == 2
    assert recorder.count(*REWARDS) == 3
    http.close()


def test_a_401_after_renewal_surfaces(fresh: Sandbox, recorder: Recorder) -> None:
    """A token whose scope does not allow loyalties is refused even when fresh."""
    http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
    client = LoyaltyClient(**client_kwargs(fresh), scopes=["customers"], http_client=http)
    with client, pytest.raises(UnauthorizedError):
        client.rewards.list(limit=1)
    assert recorder.token_requests == 2
    assert recorder.count(*REWARDS) == 2
    http.close()


def test_token_renewed_before_expiry_on_the_client_clock(
    client: LoyaltyClient, recorder: Recorder
) -> None:
    now = [1000.0]
    client._transport.tokens.clock = lambda: now[0]
    client.rewards.list(limit=1)
    token = client.oauth.token()
    now[0] += token.expires_in - client.config.token_refresh_skew - 1
    client.rewards.list(limit=1)
    assert recorder.token_requests == 2  # the first fetch and the explicit oauth.token()
    now[0] += 2  # now inside the renewal margin
    client.rewards.list(limit=1)
    assert recorder.token_requests == 3
    assert recorder.count(*REWARDS) == 3  # no request was refused


def test_threads_share_one_token_fetch(client: LoyaltyClient, recorder: Recorder) -> None:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            client.rewards.list(limit=1)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert recorder.token_requests == 1
