"""Who may call what: key pairs, OAuth bearer tokens and management keys.

Each rule is a FastAPI dependency so a router states its auth in its signature; each takes
the request alone (``state_of``), no dependency of its own for FastAPI to solve per call.
Tokens are kept only as SHA-256 hashes; comparisons are constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable

from fastapi import Request

from .deps import state_of
from .errors import unauthorized
from .state import SandboxState
from .store_reads import read_store

LOYALTY_SCOPES = frozenset({"loyalties", "api"})
"""A token carrying any of these scopes may call the ``/v2/loyalties`` endpoints."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def has_key_pair(request: Request, state: SandboxState) -> bool:
    creds = state.config.credentials
    return _same(request.headers.get("x-app-id"), creds.app_id) and _same(
        request.headers.get("x-app-token"), creds.app_token
    )


def bearer_scopes(request: Request, state: SandboxState) -> frozenset[str] | None:
    """The scopes of a valid, unexpired bearer token, or ``None`` when there is none."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    row = state.store.get_token(hash_token(token.strip()))
    if row is None or row["expires_at"] <= state.clock.now().timestamp():
        return None
    if row["client_id"] != state.config.credentials.app_id:
        return None
    return frozenset(row["scope"].split())


async def require_key_pair(request: Request) -> None:
    """``X-App-Id`` and ``X-App-Token`` must be the sandbox's application keys (``async``:
    no store read, so no thread hop)."""
    if not has_key_pair(request, state_of(request)):
        raise unauthorized()


async def require_loyalty_access(request: Request) -> None:
    """``/v2``: a bearer token whose scopes allow loyalties, together with the key pair
    (``async``, its token read by ``read_store``: no thread hop unless the store is busy)."""
    state = state_of(request)
    scopes = await read_store(state.store, bearer_scopes, request, state)
    if scopes is None or not scopes & LOYALTY_SCOPES or not has_key_pair(request, state):
        raise unauthorized()


def key_pair_or_token(*needed: str) -> Callable[..., Awaitable[None]]:
    """``/v1``: the key pair, or a bearer token holding every scope in ``needed``."""

    async def dependency(request: Request) -> None:
        state = state_of(request)
        if has_key_pair(request, state):
            return
        scopes = await read_store(state.store, bearer_scopes, request, state)
        if scopes is None or not set(needed) <= scopes:
            raise unauthorized()

    return dependency


async def require_management(request: Request) -> None:
    """``/management``: only the management key pair; application keys are refused
    (``async``: no store read, so no thread hop)."""
    creds = state_of(request).config.credentials
    if not (
        _same(request.headers.get("x-management-id"), creds.management_id)
        and _same(request.headers.get("x-management-token"), creds.management_token)
    ):
        raise unauthorized()
