"""The toolkit's clients share one TLS context, verifying as a plain ``httpx.Client()`` does."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from typing import Any

import certifi
import pytest

from lyt_toolkit import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.client import _tls

KEYS: dict[str, Any] = {
    "app_id": "app",
    "app_token": "token",
    "base_url": "https://api.example.com",
}


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Each ``ssl.create_default_context`` call from here on (its keyword arguments)."""
    calls: list[dict[str, Any]] = []
    original: Callable[..., ssl.SSLContext] = ssl.create_default_context

    def counted(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counted)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    _tls._context.cache_clear()
    return calls


def test_clients_share_one_context(made: list[dict[str, Any]]) -> None:
    async def open_and_close() -> None:
        await AsyncLoyaltyClient(env_file=None, **KEYS).aclose()

    for _ in range(3):
        LoyaltyClient(env_file=None, **KEYS).close()
    for _ in range(2):
        asyncio.run(open_and_close())
    assert made == [{"cafile": certifi.where()}]  # httpx's default, made once


def test_the_context_verifies(made: list[dict[str, Any]]) -> None:
    context = _tls.default_tls()
    assert context.verify_mode is ssl.CERT_REQUIRED
    assert context.check_hostname


def test_a_new_certificate_setting_makes_a_new_context(
    made: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _tls.default_tls()
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    assert _tls.default_tls() is not first
    assert made[-1] == {"cafile": certifi.where()}
    monkeypatch.delenv("SSL_CERT_FILE")
    assert _tls.default_tls() is first
