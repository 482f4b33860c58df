"""Who may call what: key pair, bearer tokens with scopes, management keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox

from .helpers import assert_bad_request, assert_error

REWARDS = "/v2/loyalties/rewards"
PROJECTS = "/management/v1/projects"
WRONG_KEYS = {"X-App-Id": "sandbox-app-id-x", "X-App-Token": "not-the-token"}


def bearer(token: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {token['access_token']}"}


def test_v2_with_key_pair_and_loyalty_token_is_allowed(
    sandbox: Sandbox, key_headers: dict[str, str], issue_token: Callable[..., Any]
) -> None:
    for scope in ("loyalties", "api", "vouchers loyalties"):
        headers = {**key_headers, **bearer(issue_token(scope))}
        assert httpx.get(sandbox.base_url + REWARDS, headers=headers, verify=TLS).status_code == 200


def test_no_credentials_anywhere_is_401(sandbox: Sandbox) -> None:
    base = sandbox.base_url
    assert_error(httpx.get(base + REWARDS, verify=TLS), 401, "unauthorized")
    assert_error(httpx.get(base + PROJECTS, verify=TLS), 401, "unauthorized")
    assert_error(httpx.get(base + "/_sandbox/clock", verify=TLS), 401, "unauthorized")
    token_request = {"grant_type": "client_credentials", "scope": "loyalties"}
    assert_error(
        httpx.post(base + "/oauth/token", data=token_request, verify=TLS), 401, "unauthorized"
    )


def test_wrong_key_pair_is_401(
    sandbox: Sandbox, issue_token: Callable[..., Any], key_headers: dict[str, str]
) -> None:
    base = sandbox.base_url
    token = issue_token()
    response = httpx.get(base + REWARDS, headers={**WRONG_KEYS, **bearer(token)}, verify=TLS)
    assert assert_error(response, 401)["message"] == "Unauthorized"
    half = {**key_headers, "X-App-Token": "wrong"}
    assert_error(httpx.get(base + REWARDS, headers={**half, **bearer(token)}, verify=TLS), 401)
    token_request = {"grant_type": "client_credentials", "scope": "loyalties"}
    assert_error(
        httpx.post(base + "/oauth/token", data=token_request, headers=WRONG_KEYS, verify=TLS), 401
    )


def test_bearer_without_key_pair_is_401(sandbox: Sandbox, issue_token: Callable[..., Any]) -> None:
    assert_error(
        httpx.get(sandbox.base_url + REWARDS, headers=bearer(issue_token()), verify=TLS), 401
    )


def test_key_pair_without_bearer_is_401_on_v2(
    sandbox: Sandbox, key_headers: dict[str, str]
) -> None:
    assert_error(httpx.get(sandbox.base_url + REWARDS, headers=key_headers, verify=TLS), 401)


@pytest.mark.parametrize(
    "authorization", ["Bearer", "Bearer not-a-token", "bearer  x", "Basic abc", "token"]
)
def test_malformed_or_unknown_bearer_is_401(
    sandbox: Sandbox, key_headers: dict[str, str], authorization: str
) -> None:
    headers = {**key_headers, "Authorization": authorization}
    assert_error(httpx.get(sandbox.base_url + REWARDS, headers=headers, verify=TLS), 401)


def test_token_without_loyalties_scope_is_401(
    sandbox: Sandbox, key_headers: dict[str, str], issue_token: Callable[..., Any]
) -> None:
    headers = {**key_headers, **bearer(issue_token("vouchers customers"))}
    assert_error(httpx.get(sandbox.base_url + REWARDS, headers=headers, verify=TLS), 401)


def test_token_expires_with_the_clock(
    restore: Sandbox, key_headers: dict[str, str], issue_token: Callable[..., Any]
) -> None:
    token = issue_token()
    headers = {**key_headers, **bearer(token)}
    url = restore.base_url + REWARDS
    assert httpx.get(url, headers=headers, verify=TLS).status_code == 200
    restore.advance_clock(token["expires_in"] - 1)
    assert httpx.get(url, headers=headers, verify=TLS).status_code == 200
    restore.advance_clock(1)
    assert_error(httpx.get(url, headers=headers, verify=TLS), 401)
    fresh = issue_token()
    assert fresh["expires_at"] == token["expires_at"] + token["expires_in"]
    assert httpx.get(url, headers={**key_headers, **bearer(fresh)}, verify=TLS).status_code == 200


def test_reset_drops_tokens(
    restore: Sandbox, key_headers: dict[str, str], issue_token: Callable[..., Any]
) -> None:
    headers = {**key_headers, **bearer(issue_token())}
    restore.reset()
    assert_error(httpx.get(restore.base_url + REWARDS, headers=headers, verify=TLS), 401)


def test_management_keys_do_not_open_v2(
    sandbox: Sandbox, management_headers: dict[str, str], issue_token: Callable[..., Any]
) -> None:
    headers = {**management_headers, **bearer(issue_token())}
    assert_error(httpx.get(sandbox.base_url + REWARDS, headers=headers, verify=TLS), 401)


def test_app_keys_do_not_open_management(
    sandbox: Sandbox, key_headers: dict[str, str], issue_token: Callable[..., Any]
) -> None:
    headers = {**key_headers, **bearer(issue_token("api"))}
    assert_error(httpx.get(sandbox.base_url + PROJECTS, headers=headers, verify=TLS), 401)
    mixed = {
        "X-Management-Id": sandbox.credentials.management_id,
        "X-Management-Token": sandbox.credentials.app_token,
    }
    assert_error(httpx.get(sandbox.base_url + PROJECTS, headers=mixed, verify=TLS), 401)


def test_management_keys_open_management(
    sandbox: Sandbox, management_headers: dict[str, str]
) -> None:
    assert (
        httpx.get(sandbox.base_url + PROJECTS, headers=management_headers, verify=TLS).status_code
        == 200
    )


# -- token request errors -----------------------------------------------------------


def post_token(sb: Sandbox, headers: dict[str, str], **kwargs: Any) -> httpx.Response:
    return httpx.post(f"{sb.base_url}/oauth/token", headers=headers, **kwargs)


def test_token_request_as_json_is_400(sandbox: Sandbox, key_headers: dict[str, str]) -> None:
    body = {"grant_type": "client_credentials", "scope": "loyalties"}
    assert_bad_request(post_token(sandbox, key_headers, json=body), "content-type")


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"grant_type": "client_credentials", "scope": "loyalties,api"}, "scope"),
        ({"grant_type": "client_credentials", "scope": "loyalties, api"}, "scope"),
        ({"grant_type": "client_credentials", "scope": "loyalties everything"}, "everything"),
        ({"grant_type": "client_credentials", "scope": ""}, "scope"),
        ({"grant_type": "client_credentials"}, "scope"),
        ({"grant_type": "password", "scope": "loyalties"}, "grant_type"),
        ({"scope": "loyalties"}, "grant_type"),
    ],
    ids=["commas", "comma-space", "unknown", "empty", "no-scope", "password", "no-grant"],
)
def test_bad_token_requests_are_400(
    sandbox: Sandbox, key_headers: dict[str, str], form: dict[str, str], field: str
) -> None:
    assert_bad_request(post_token(sandbox, key_headers, data=form), field)


def test_repeated_scopes_are_collapsed(sandbox: Sandbox, key_headers: dict[str, str]) -> None:
    form = {"grant_type": "client_credentials", "scope": "loyalties  api loyalties"}
    response = post_token(sandbox, key_headers, data=form)
    assert response.status_code == 200 and response.json()["scope"] == "loyalties api"
