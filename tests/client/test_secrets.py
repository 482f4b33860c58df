"""No credential or bearer token ever shows in a repr, str, exception or log line."""

from __future__ import annotations

import logging

import httpx
import pytest

from lyt_toolkit.client import ClientConfig, LoyaltyClient, RetryConfig
from lyt_toolkit.errors import LytError
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
    text = repr(projects) + str(projects)
    assert not any(p.webhook_token in text for p in projects)
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

    http = httpx.Client(event_hooks={"response": [keep_token]})
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
