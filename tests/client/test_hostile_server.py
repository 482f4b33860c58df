"""The client against a server that misbehaves on purpose (``misbehaving.py``), over real HTTP.

Every call here is bounded: small client timeouts, and the server ends each
misbehaviour on its own (a drip of a few seconds, a few dozen pages).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient, RetryConfig
from lyt_toolkit.errors import (
    APIResponseValidationError,
    APITimeoutError,
    LytError,
    NotFoundError,
    OddValueWarning,
    PaginationError,
    RateLimitError,
    RedirectError,
    ServerError,
    UnauthorizedError,
)
from lyt_toolkit.frames import rewards_frame

from .helpers import APP_TOKEN, MANAGEMENT_TOKEN
from .misbehaving import BEARER, DRIP_BYTES, REWARD_IDS, MisbehavingServer

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

SECRETS = (APP_TOKEN, MANAGEMENT_TOKEN, BEARER)


@pytest.fixture(scope="module")
def server() -> Iterator[MisbehavingServer]:
    with MisbehavingServer.running() as running:
        yield running


def settings(server: MisbehavingServer, **extra: Any) -> dict[str, Any]:
    return {
        "base_url": server.base_url,
        "env_file": None,
        "app_id": "hostile-app",
        "app_token": APP_TOKEN,
        "management_id": "hostile-management",
        "management_token": MANAGEMENT_TOKEN,
        **extra,
    }


@pytest.fixture
def client(server: MisbehavingServer) -> Iterator[LoyaltyClient]:
    with LoyaltyClient(**settings(server, timeout=5)) as c:
        yield c


def test_a_dripping_body_is_cut_at_the_call_deadline(server: MisbehavingServer) -> None:
    with (
        LoyaltyClient(**settings(server, timeout=1)) as client,
        pytest.raises(APITimeoutError, match="within its 1 s timeout"),
    ):
        client.rewards.get(REWARD_IDS["drip"])


def test_a_dripping_body_is_cut_at_the_call_deadline_in_async(server: MisbehavingServer) -> None:
    async def fetch() -> None:
        async with AsyncLoyaltyClient(**settings(server, timeout=1)) as client:
            await client.rewards.get(REWARD_IDS["drip"])

    with pytest.raises(APITimeoutError, match="within its 1 s timeout"):
        asyncio.run(fetch())


@pytest.mark.parametrize("behaviour", ["drip", "drip_headers"])
def test_a_dripping_answer_is_cut_at_the_call_deadline_in_both_clients(
    server: MisbehavingServer, behaviour: str
) -> None:
    """The status line and headers are bounded too, not only the body: the drip lasts
    ``DRIP_BYTES`` x 0.25 s = 10 s, the call ends soon after its 1 s deadline."""

    async def fetch() -> None:
        async with AsyncLoyaltyClient(**settings(server, timeout=1)) as client:
            await client.rewards.get(REWARD_IDS[behaviour])

    started = time.monotonic()
    with (
        LoyaltyClient(**settings(server, timeout=1)) as client,
        pytest.raises(APITimeoutError, match="within its 1 s timeout"),
    ):
        client.rewards.get(REWARD_IDS[behaviour])
    assert time.monotonic() - started < DRIP_BYTES * server.drip_interval / 2
    started = time.monotonic()
    with pytest.raises(APITimeoutError, match="within its 1 s timeout"):
        asyncio.run(fetch())
    assert time.monotonic() - started < DRIP_BYTES * server.drip_interval / 2


def test_retries_and_their_waits_stop_at_the_call_deadline(server: MisbehavingServer) -> None:
    retry = RetryConfig(max_attempts=50, total_timeout=60)
    with (
        LoyaltyClient(**settings(server, timeout=1, retry=retry)) as client,
        pytest.raises((ServerError, APITimeoutError)),  # the last 503, or the deadline itself
    ):
        client.rewards.get(REWARD_IDS["unavailable"])
    assert server.hits[f"/v2/loyalties/rewards/{REWARD_IDS['unavailable']}"] <= 5


def test_endless_new_cursors_stop_at_the_page_bound(server: MisbehavingServer) -> None:
    with (
        LoyaltyClient(**settings(server, timeout=5, max_pages=5)) as client,
        pytest.raises(PaginationError, match="after 5 pages"),
    ):
        list(client.rewards.iter())


def test_a_repeated_cursor_stops_the_walk(client: LoyaltyClient) -> None:
    with pytest.raises(PaginationError, match="a second time"):
        list(client.rewards.pages(limit=2))


def test_a_day_long_retry_after_says_when_to_come_back(
    server: MisbehavingServer, client: LoyaltyClient
) -> None:
    with pytest.raises(RateLimitError) as info:
        client.rewards.get(REWARD_IDS["rate_limited"])
    assert info.value.retry_after == 86400 and info.value.retry_at is not None
    assert "wait 86400 s" in str(info.value)
    assert f"come back after {info.value.retry_at:%Y-%m-%d %H:%M:%S} UTC" in str(info.value)
    assert server.hits[f"/v2/loyalties/rewards/{REWARD_IDS['rate_limited']}"] == 1


def test_a_redirect_names_its_target(server: MisbehavingServer, client: LoyaltyClient) -> None:
    with pytest.raises(RedirectError) as info:
        client.request("GET", "/v1/redirect")
    assert info.value.location == f"http://localhost:{server.port}/v1/landed"
    assert info.value.location in str(info.value)


def test_a_redirect_to_another_host_is_never_followed(server: MisbehavingServer) -> None:
    following = httpx.Client(follow_redirects=True, verify=TLS)
    with (
        LoyaltyClient(**settings(server, timeout=5), http_client=following) as client,
        pytest.raises(RedirectError),
    ):
        client.request("GET", "/v1/redirect")
    following.close()
    assert server.hits["/v1/landed"] == 0


@pytest.mark.parametrize("path", ["/v1/echo", "/v2/echo", "/management/v1/echo"])
def test_credentials_echoed_by_the_server_are_scrubbed(client: LoyaltyClient, path: str) -> None:
    with pytest.raises(LytError) as info:
        client.request("GET", path)
    texts = "\n".join([str(info.value), repr(info.value), repr(vars(info.value))])
    assert "***" in str(info.value)  # the echo is there, masked
    assert not [secret for secret in SECRETS if secret in texts]


@pytest.mark.parametrize("path", ["/v1/echo", "/v2/echo", "/management/v1/echo"])
def test_credentials_echoed_in_the_request_id_are_masked_in_the_debug_log(
    client: LoyaltyClient, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lyt_toolkit.client")
    with pytest.raises(LytError):
        client.request("GET", path)
    line = next(r.getMessage() for r in caplog.records if f"GET {path} -> 400" in r.getMessage())
    assert "request_id=" in line and "***" in line  # the echo is there, masked
    assert not [secret for secret in SECRETS if secret in caplog.text]


def test_credentials_echoed_by_the_server_are_scrubbed_in_async(
    server: MisbehavingServer,
) -> None:
    async def call() -> None:
        async with AsyncLoyaltyClient(**settings(server, timeout=5)) as client:
            await client.request("GET", "/v2/echo")

    with pytest.raises(LytError) as info:
        asyncio.run(call())
    texts = "\n".join([str(info.value), repr(info.value), repr(vars(info.value))])
    assert "***" in str(info.value)
    assert not [secret for secret in SECRETS if secret in texts]


def test_a_success_body_that_is_not_json_raises_a_toolkit_error(client: LoyaltyClient) -> None:
    with pytest.raises(APIResponseValidationError, match="cannot read"):
        client.request("GET", f"/v2/loyalties/rewards/{REWARD_IDS['garbage']}")


def test_a_body_that_is_not_its_content_encoding_raises_a_toolkit_error(
    client: LoyaltyClient,
) -> None:
    with pytest.raises(APIResponseValidationError, match="could not be decoded"):
        client.rewards.get(REWARD_IDS["bad_gzip"])


def test_a_year_one_timestamp_is_kept_as_sent_and_is_an_odd_value_in_a_frame(
    client: LoyaltyClient,
) -> None:
    """``0001-01-01T00:00:00+01:00`` is valid RFC 3339 but falls in year 0 in UTC: the model
    keeps it at its own offset and a frame sets it to NA with a warning naming it."""
    reward = client.rewards.get(REWARD_IDS["year_one"])
    assert reward.created_at == datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1)))
    with pytest.warns(OddValueWarning, match=r"rewards id lrew_\w+: field 'created_at'"):
        frame = rewards_frame([reward])
    assert frame["created_at"].isna().all()


def test_a_lone_surrogate_in_an_answer_is_replaced_with_a_warning_naming_its_field(
    client: LoyaltyClient,
) -> None:
    """JSON may escape a lone surrogate; Python would hold it as text no export can encode.
    The answer is kept, that text mended (a paired surrogate is an emoji, left alone)."""
    reward_id = REWARD_IDS["surrogate"]
    with pytest.warns(OddValueWarning, match=rf"rewards/{reward_id}: name, metadata.\\udfff:"):
        reward = client.rewards.get(reward_id)
    assert reward.name == "Miles \ufffd Beans"
    assert reward.metadata == {"\ufffd": "\U0001f600"}
    rewards_frame([reward]).to_csv().encode()  # no UnicodeEncodeError far from the cause
    with pytest.warns(OddValueWarning, match="lone surrogate"):
        raw = client.request("GET", f"/v2/loyalties/rewards/{reward_id}")
    assert raw["name"].encode() == "Miles \ufffd Beans".encode()


def test_an_error_answer_with_a_lone_surrogate_too_deep_to_decode_is_still_its_api_error(
    client: LoyaltyClient,
) -> None:
    """Mending the surrogate of an error answer nested deeper than Python decodes raises no
    ``RecursionError``: the error is the answer's, its body unknown, as without the surrogate."""
    with (
        pytest.warns(OddValueWarning, match="lone surrogate"),
        pytest.raises(NotFoundError) as caught,
    ):
        client.rewards.get(REWARD_IDS["deep_surrogate"])
    assert caught.value.status == 404


def test_a_refused_application_key_pair_names_its_settings(client: LoyaltyClient) -> None:
    with pytest.raises(UnauthorizedError, match=r"application key pair.*LYT_APP_ID, LYT_APP_TOKEN"):
        client.request("GET", "/v1/denied")


def test_a_refused_management_key_pair_names_its_settings(client: LoyaltyClient) -> None:
    with pytest.raises(UnauthorizedError, match=r"management key pair.*LYT_MANAGEMENT_ID"):
        client.request("GET", "/management/v1/denied")


def test_a_fresh_token_refused_says_its_scopes_may_not_cover_the_call(
    client: LoyaltyClient,
) -> None:
    with pytest.raises(UnauthorizedError, match=r"freshly issued bearer token.*'loyalties'"):
        client.request("GET", "/v2/denied")
