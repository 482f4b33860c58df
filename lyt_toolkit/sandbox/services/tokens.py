"""OAuth tokens: the client-credentials grant, for scopes the service knows."""

from __future__ import annotations

from typing import Any

from ...models.enums import SCOPES, GrantType
from ..auth import hash_token
from ..errors import bad_request
from ..state import SandboxState


def parse_scopes(scope: str | None) -> list[str]:
    """Validate a space-delimited scope string; commas and unknown values are refused."""
    if scope is None or not scope.strip():
        raise bad_request("scope: required, a space-delimited list of scopes")
    if "," in scope:
        raise bad_request("scope: separate scopes with spaces, not commas")
    scopes = scope.split()
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise bad_request(f"scope: unknown scope(s): {', '.join(unknown)}")
    return list(dict.fromkeys(scopes))


def issue_token(state: SandboxState, grant_type: str | None, scope: str | None) -> dict[str, Any]:
    """A bearer token for ``scope`` (kept only as a hash), as the access token object."""
    if grant_type != GrantType.CLIENT_CREDENTIALS:
        raise bad_request(f"grant_type: must be {GrantType.CLIENT_CREDENTIALS.value}")
    scopes = parse_scopes(scope)
    token = state.ids.token()
    ttl = int(state.config.token_ttl.total_seconds())
    expires_at = int(state.clock.now().timestamp()) + ttl
    client_id = state.config.credentials.app_id
    state.note_clock()  # written with the token: a restart on an earlier clock must not revive it
    state.store.put_token(hash_token(token), client_id, " ".join(scopes), expires_at)
    return {
        "access_token": token,
        "client_id": client_id,
        "expires_at": expires_at,
        "expires_in": ttl,
        "scope": " ".join(scopes),
        "token_type": "Bearer",
    }
