"""Shared fixtures: one sandbox per test session, reached only over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from lyt_toolkit.sandbox import Sandbox

NOW = "2026-01-15T12:00:00Z"
"""The clock the shared sandbox starts at (the demo program's own default)."""


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """The demo program on a fixed clock; tests that change it ask for ``restore``."""
    with Sandbox.start(now=NOW, seed=7) as sb:
        yield sb


@pytest.fixture
def restore(sandbox: Sandbox) -> Iterator[Sandbox]:
    """The shared sandbox, put back to the demo data, clock and no faults afterwards."""
    yield sandbox
    sandbox.clear_faults()
    sandbox.set_clock(NOW)
    sandbox.reset()


@pytest.fixture(scope="session")
def key_headers(sandbox: Sandbox) -> dict[str, str]:
    """The application key pair."""
    creds = sandbox.credentials
    return {"X-App-Id": creds.app_id, "X-App-Token": creds.app_token}


@pytest.fixture(scope="session")
def management_headers(sandbox: Sandbox) -> dict[str, str]:
    creds = sandbox.credentials
    return {"X-Management-Id": creds.management_id, "X-Management-Token": creds.management_token}


@pytest.fixture(scope="session")
def issue_token(sandbox: Sandbox, key_headers: dict[str, str]) -> Callable[..., dict[str, Any]]:
    """``issue_token(scope="loyalties")`` -> the access token object."""

    def issue(scope: str = "loyalties") -> dict[str, Any]:
        response = httpx.post(
            f"{sandbox.base_url}/oauth/token",
            data={"grant_type": "client_credentials", "scope": scope},
            headers=key_headers,
        )
        assert response.status_code == 200, response.text
        return response.json()

    return issue


@pytest.fixture
def v2_headers(key_headers: dict[str, str], issue_token: Callable[..., Any]) -> dict[str, str]:
    """Key pair plus a fresh loyalties bearer token: what every ``/v2`` request needs."""
    return {**key_headers, "Authorization": f"Bearer {issue_token()['access_token']}"}


@pytest.fixture
def api(sandbox: Sandbox, v2_headers: dict[str, str]) -> Iterator[httpx.Client]:
    """An HTTP client on the sandbox carrying ``/v2`` credentials."""
    with httpx.Client(base_url=sandbox.base_url, headers=v2_headers, timeout=10) as client:
        yield client
