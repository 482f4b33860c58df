"""No credential or bearer token ever shows in a repr, str, exception or log line."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.client import ClientConfig, LoyaltyClient, RetryConfig
from lyt_toolkit.errors import APIResponseValidationError, ConfigurationError, LytError
from lyt_toolkit.sandbox import Sandbox

from .helpers import SECRETS, client_kwargs


def _clean(text: str, tokens: list[str]) -> None:
    for secret in (*SECRETS, *tokens):
        assert secret not in text


def test_reprs_hide_secrets(client: LoyaltyClient) -> None:
    token = client.oauth.token()
    client.rewards.list(limit=1)
    texts = [
        repr(client),
        str(client),
        repr(client.config),
        repr(client.rewards),
        repr(client._transport.tokens),
        repr(token),
        str(token),
    ]
    _clean("\n".join(texts), [token.access_token])
    assert "client-tests-app" in repr(client)  # the public app id may show


def test_project_repr_hides_the_webhook_token(client: LoyaltyClient) -> None:
    projects = client.projects.list()
    assert projects and all(p.webhook_token for p in projects)  # still readable on purpose
    tokens = [str(p.webhook_token) for p in projects]
    text = repr(projects) + str(projects)
    assert not any(token in text for token in tokens)
    assert projects[0].wire()["webhook_token"] == projects[0].webhook_token


def test_exceptions_and_debug_logs_hold_no_secret(
    fresh: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx and httpcore included
    issued: list[str] = []

    def keep_token(response: httpx.Response) -> None:
        if response.request.url.path == "/oauth/token":
            response.read()
            issued.append(response.json()["access_token"])

    http = httpx.Client(event_hooks={"response": [keep_token]}, verify=TLS)
    messages: list[str] = []
    retry = RetryConfig(max_attempts=2, backoff_base=0.01, backoff_max=0.01)
    with LoyaltyClient(**client_kwargs(fresh), retry=retry, http_client=http) as client:
        client.rewards.list(limit=1)
        client.projects.list()
        for action in (
            lambda: client.rewards.get("lrew_0000000000"),
            lambda: client.rewards.draft("lrew_c0ffee0006"),
            lambda: client.webhooks.delete("proj_NwStarter01", "wh_NwStarterLegacy01"),
            lambda: client.benefits.create({"name": "", "type": "POINTS"}),
        ):
            with pytest.raises(LytError) as info:
                action()
            messages += [str(info.value), repr(info.value), repr(info.value.__dict__)]
        fresh.set_faults(rate_limit=1.0, retry_after=0, seed=1)
        with pytest.raises(LytError) as info:
            client.rewards.list(limit=1)
        messages += [str(info.value), repr(info.value)]
    http.close()
    assert issued
    assert any(r.name == "lyt_toolkit.client" for r in caplog.records)
    _clean("\n".join(messages) + "\n" + caplog.text, issued)


def test_wrong_credentials_are_not_echoed(fresh: Sandbox) -> None:
    wrong = "wrong-SECRET-value-0042"
    client = LoyaltyClient(**(client_kwargs(fresh) | {"app_token": wrong}))
    with client, pytest.raises(LytError) as info:
        client.rewards.list()
    assert wrong not in str(info.value) and wrong not in repr(client)


def test_config_repr_masks_tokens() -> None:
    config = ClientConfig.resolve(
        base_url="https://{cluster}.example.com",
        app_id="id",
        app_token="app-SECRET",
        management_id="mid",
        management_token="mgmt-SECRET",
        env={},
        env_file=None,
    )
    assert "SECRET" not in repr(config) and "SECRET" not in str(config)


@pytest.mark.parametrize(
    "token",
    [
        "tok-SECRET\n",
        " tok-SECRET",
        "tok-SECRET\t",
        "tok\x01SECRET",
        "tök-SECRET",
        "tok-SECRET\x7f",
    ],
)
@pytest.mark.parametrize("field", ["app_token", "management_token"])
def test_a_token_no_header_can_carry_is_refused_without_showing_it(
    token: str, field: str, tmp_path: Path
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f'LYT_{field.upper()}="{token}"\n', encoding="utf-8")
    base: dict[str, Any] = {"base_url": "http://127.0.0.1:9"}
    refusals = [
        lambda: LoyaltyClient(**base, env_file=None, **{field: token}),  # type: ignore[arg-type]
        lambda: ClientConfig.resolve(**base, env={}, env_file=env_file),
        lambda: ClientConfig.resolve(**base, env={f"LYT_{field.upper()}": token}, env_file=None),
    ]
    for refuse in refusals:
        with pytest.raises(ConfigurationError, match=field) as info:
            refuse()
        assert "SECRET" not in str(info.value) + repr(info.value)


class _IssuesToken(httpx.BaseTransport):
    """Answers ``/oauth/token`` with ``token``; sends every other request to the server."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.server = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != "/oauth/token":
            return self.server.handle_request(request)
        issued = {
            "access_token": self.token,
            "client_id": "client-tests-app",
            "expires_at": 4_000_000_000,
            "expires_in": 3600,
            "scope": "loyalties",
            "token_type": "Bearer",
        }
        return httpx.Response(200, json=issued)

    def close(self) -> None:
        self.server.close()


@pytest.mark.parametrize("bearer", ["bearer-SECRET-0451\n", " bearer-SECRET-0451", "bé-SECRET"])
def test_a_bearer_token_no_header_can_carry_is_not_sent(
    sb: Sandbox, bearer: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # httpcore's log would quote h11's refusal of the header
    http = httpx.Client(transport=_IssuesToken(bearer))
    with (
        LoyaltyClient(**client_kwargs(sb), http_client=http) as client,
        pytest.raises(APIResponseValidationError, match="cannot be sent") as info,
    ):
        client.rewards.list(limit=1)
    http.close()
    shown = str(info.value) + repr(info.value) + repr(vars(info.value))
    assert "SECRET" not in shown + caplog.text
    assert "/v2/loyalties/rewards" not in caplog.text  # refused before it was sent
