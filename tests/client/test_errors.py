"""Every error status the service answers surfaces as its own exception class."""

from __future__ import annotations

import pytest
from shared_tls import TLS

from lyt_toolkit.client import LoyaltyClient, RetryConfig
from lyt_toolkit.errors import (
    APIConnectionError,
    APIError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    DuplicateFoundError,
    LytError,
    MissingRequiredFeatureError,
    NotFoundError,
    RateLimitError,
    RequestValidationError,
    ResourceLockedError,
    ServerError,
    UnauthorizedError,
)
from lyt_toolkit.sandbox import Sandbox

from .helpers import Recorder, client_kwargs

NO_RETRY = RetryConfig(max_attempts=1)


def test_unauthorized_with_wrong_app_token(fresh: Sandbox) -> None:
    kwargs = client_kwargs(fresh) | {"app_token": "wrong-token"}
    with LoyaltyClient(**kwargs) as client, pytest.raises(UnauthorizedError) as info:
        client.rewards.list()
    assert info.value.status == 401 and info.value.key == "unauthorized"
    assert info.value.request_id


def test_unauthorized_with_wrong_management_token(fresh: Sandbox) -> None:
    kwargs = client_kwargs(fresh) | {"management_token": "wrong-token"}
    with LoyaltyClient(**kwargs) as client, pytest.raises(UnauthorizedError):
        client.projects.list()


def test_payment_required_for_webhooks_on_a_plan_without_them(client: LoyaltyClient) -> None:
    with pytest.raises(MissingRequiredFeatureError) as info:
        client.webhooks.delete("proj_NwStarter01", "wh_NwStarterLegacy01")
    assert info.value.status == 402 and info.value.key == "missing_required_feature"


def test_not_found_carries_the_resource(client: LoyaltyClient) -> None:
    with pytest.raises(NotFoundError) as info:
        client.webhooks.delete("proj_NwMain01", "wh_doesNotExist")
    assert info.value.resource_id == "wh_doesNotExist"
    assert info.value.resource_type == "webhook"


def test_unknown_reward_is_not_found(client: LoyaltyClient) -> None:
    with pytest.raises(NotFoundError):
        client.rewards.get("lrew_0000000000")


def test_duplicate_benefit_name(client: LoyaltyClient) -> None:
    body = {
        "name": "Welcome Bonus 100 Beans",
        "type": "POINTS",
        "points": {"value": 1, "card_definition_id": "lcdef_c0ffee0001"},
    }
    with pytest.raises(DuplicateFoundError) as info:
        client.benefits.create(body)
    assert isinstance(info.value, ConflictError) and info.value.key == "duplicate_found"


def test_reward_draft_from_a_status_other_than_active(client: LoyaltyClient) -> None:
    with pytest.raises(ConflictError) as info:
        client.rewards.draft("lrew_c0ffee0006")  # already DRAFT
    assert info.value.status == 409
    assert not isinstance(info.value, DuplicateFoundError)


def test_active_benefit_on_a_draft_card_definition_is_locked(client: LoyaltyClient) -> None:
    body = {
        "name": "Locked bonus",
        "type": "POINTS",
        "status": "ACTIVE",
        "points": {"value": 1, "card_definition_id": "lcdef_c0ffee0004"},
    }
    with pytest.raises(ResourceLockedError) as info:
        client.benefits.create(body)
    assert info.value.status == 423 and info.value.key == "resource_locked"


def test_activating_a_bucket_dated_in_the_past_is_locked(client: LoyaltyClient) -> None:
    with pytest.raises(ResourceLockedError):
        client.pending_buckets.activate(
            "lprg_c0ffee0001", "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_c0ffee0003"
        )


def test_a_bad_filter_is_refused_locally(client: LoyaltyClient) -> None:
    with pytest.raises(RequestValidationError):
        client.rewards.list(filters={"name": {"$before": "2026-01-01T00:00:00Z"}})


def test_server_rejects_a_bad_filter_when_local_checks_are_bypassed(client: LoyaltyClient) -> None:
    with pytest.raises(BadRequestError) as info:
        client.request(
            "GET",
            "/v2/loyalties/rewards",
            params={"filters[name][conditions][$before]": "2026-01-01T00:00:00Z"},
        )
    assert info.value.status == 400 and "name" in str(info.value)


def test_rate_limit_after_retries_are_exhausted(fresh: Sandbox, recorder: Recorder) -> None:
    import httpx

    fresh.set_faults(rate_limit=1.0, retry_after=0, seed=1)
    retry = RetryConfig(max_attempts=3, backoff_base=0.01, backoff_max=0.02)
    with httpx.Client(event_hooks={"request": [recorder]}, verify=TLS) as http:
        client = LoyaltyClient(**client_kwargs(fresh), retry=retry, http_client=http)
        with client, pytest.raises(RateLimitError) as info:
            client.projects.list()
    assert info.value.status == 429
    assert recorder.count("GET", "/management/v1/projects") == 3


def test_unavailable_after_retries_are_exhausted(fresh: Sandbox) -> None:
    fresh.set_faults(unavailable=1.0, retry_after=0, seed=1)
    retry = RetryConfig(max_attempts=2, backoff_base=0.01, backoff_max=0.02)
    client = LoyaltyClient(**client_kwargs(fresh), retry=retry)
    with client, pytest.raises(ServerError) as info:
        client.projects.list()
    assert info.value.status == 503


def test_connection_refused_is_a_connection_error() -> None:
    retry = RetryConfig(max_attempts=2, backoff_base=0.01, backoff_max=0.02)
    client = LoyaltyClient(
        base_url="http://127.0.0.1:9", app_id="a", app_token="b", env_file=None, retry=retry
    )
    with client, pytest.raises(APIConnectionError):
        client.oauth.token()


LOCAL_CHECKS = {
    "empty name": (lambda c: c.benefits.create({"name": "", "type": "POINTS"}), "name"),
    "points missing": (lambda c: c.benefits.create({"name": "x", "type": "POINTS"}), "points"),
    "malformed cursor": (lambda c: c.rewards.list(cursor="abc"), "cursor"),
    "malformed reward id": (lambda c: c.rewards.get("not-a-reward-id"), "reward_id"),
    "customer not an object": (
        lambda c: c.promotion_tiers.validate("promo_x", customer=42, order={"amount": 100}),
        "customer",
    ),
}


@pytest.mark.parametrize("case", LOCAL_CHECKS)
def test_local_checks_name_the_field(client: LoyaltyClient, case: str) -> None:
    action, field = LOCAL_CHECKS[case]
    with pytest.raises(RequestValidationError) as info:
        action(client)
    assert info.value.field is not None and info.value.field.startswith(field)


def test_local_check_message_names_field_and_rule(client: LoyaltyClient) -> None:
    with pytest.raises(RequestValidationError) as info:
        client.benefits.create({"name": "x", "type": "POINTS"})
    assert str(info.value) == "benefit: points: required when type is POINTS"


def test_unknown_scope_is_named(client: LoyaltyClient) -> None:
    with pytest.raises(RequestValidationError) as info:
        client.oauth.token(scopes=["loyalty"])
    assert str(info.value) == "scopes: unknown scope(s): loyalty"


def test_malformed_cursor_names_the_prefix_as_text(client: LoyaltyClient) -> None:
    with pytest.raises(RequestValidationError) as info:
        client.rewards.list(cursor="abc")
    assert "'lcrsrew_'" in str(info.value)
    assert "CursorPrefix" not in str(info.value)


def test_local_check_is_also_a_value_error(client: LoyaltyClient) -> None:
    with pytest.raises(ValueError):
        client.rewards.list(limit=0)


def test_missing_credentials_are_a_configuration_error(
    fresh: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("LYT_APP_ID", "LYT_APP_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    client = LoyaltyClient(base_url=fresh.base_url, env_file=None)
    with client, pytest.raises(ConfigurationError, match="LYT_APP_ID"):
        client.rewards.list()


def test_hierarchy() -> None:
    for cls in (BadRequestError, UnauthorizedError, MissingRequiredFeatureError, NotFoundError):
        assert issubclass(cls, APIError) and issubclass(cls, LytError)
    assert issubclass(DuplicateFoundError, ConflictError)
    assert issubclass(RequestValidationError, LytError)
    assert issubclass(RequestValidationError, ValueError)
