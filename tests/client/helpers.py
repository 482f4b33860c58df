"""Helpers for the client tests: distinctive secrets, fast retries, a request recorder."""

from __future__ import annotations

import httpx

from lyt_toolkit.client import RetryConfig
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import ClientKeys, SandboxCredentials

APP_TOKEN = "apptok-SECRET-5e1f0c9a7d"
MANAGEMENT_TOKEN = "mgmttok-SECRET-83b2e6d4f1"
CREDENTIALS = SandboxCredentials(
    app_id="client-tests-app",
    app_token=APP_TOKEN,
    management_id="client-tests-management",
    management_token=MANAGEMENT_TOKEN,
)
SECRETS = (APP_TOKEN, MANAGEMENT_TOKEN)
FAST_RETRY = RetryConfig(max_attempts=6, backoff_base=0.01, backoff_max=0.05, total_timeout=20)


class ClientKwargs(ClientKeys):
    """A client's keyword arguments: a sandbox's address and keys, no ``.env`` file."""

    base_url: str
    env_file: None


def client_kwargs(sb: Sandbox) -> ClientKwargs:
    """The keyword arguments of a client for ``sb`` that ignores any ``.env`` file."""
    return {"base_url": sb.base_url, "env_file": None, **sb.credentials.as_client_kwargs()}


class Recorder:
    """Collects (method, path) of every request an injected httpx client sends."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, request: httpx.Request) -> None:
        self.calls.append((request.method, request.url.path))

    def count(self, method: str, path: str) -> int:
        return sum(1 for c in self.calls if c == (method, path))

    @property
    def token_requests(self) -> int:
        return self.count("POST", "/oauth/token")
