"""Assertions and clients shared by the sandbox tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
from interrupting import HANG
from shared_tls import TLS

from lyt_toolkit.models import ErrorObject
from lyt_toolkit.sandbox import Sandbox

from . import reference

P1, P2 = "lprg_c0ffee0001", "lprg_c0ffee0002"
"""The demo's ACTIVE and INACTIVE programs."""


def assert_error(response: httpx.Response, status: int, key: str | None = None) -> dict[str, Any]:
    """The spec's error object: ``code`` equals the status, key, message, request_id."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == status
    assert isinstance(body["key"], str) and body["key"]
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["request_id"], str) and body["request_id"]
    if key is not None:
        assert body["key"] == key, body
    assert ErrorObject.model_validate(body).wire() == body
    assert reference.errors_for("loyalties", "#/components/schemas/ErrorResponse", body) == []
    return body


def assert_bad_request(response: httpx.Response, *names: str) -> dict[str, Any]:
    """A 400 whose details name every one of ``names`` (fields, parameters, conditions)."""
    body = assert_error(response, 400)
    for name in names:
        assert name in body.get("details", ""), (name, body)
    return body


def walk(
    client: httpx.Client,
    path: str,
    params: list[tuple[str, Any]] | None = None,
    between: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """Every item of a list, following ``cursor.next`` with the same query."""
    params = list(params or [])
    items: list[dict[str, Any]] = []
    cursor = None
    pages = 0
    while True:
        response = client.get(path, params=params + ([("cursor", cursor)] if cursor else []))
        assert response.status_code == 200, response.text
        body = response.json()
        items.extend(body["data"])
        pages += 1
        if body["cursor"] is None:
            return items
        cursor = body["cursor"]["next"]
        if between is not None:
            between(pages)


def eventually(check: Callable[[], bool], timeout: float = HANG) -> bool:
    """Poll ``check`` until it holds or ``timeout`` seconds pass (by default only a hang)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def v2_client(sb: Sandbox, timeout: float = 10) -> httpx.Client:
    """An HTTP client on ``sb`` carrying the key pair and a fresh loyalties token."""
    return httpx.Client(base_url=sb.base_url, headers=sb.v2_headers(), timeout=timeout, verify=TLS)
