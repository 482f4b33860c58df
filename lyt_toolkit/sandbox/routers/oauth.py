"""``POST /oauth/token``: application keys exchanged for a scoped bearer token."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Request

from ...models.enums import SCOPES, GrantType
from ..auth import hash_token, require_key_pair
from ..errors import bad_request
from ..state import SandboxState, get_state

router = APIRouter(tags=["oauth"])

_FORM = "application/x-www-form-urlencoded"
_BODY_SCHEMA = {
    "requestBody": {
        "required": True,
        "content": {
            _FORM: {
                "schema": {
                    "type": "object",
                    "required": ["grant_type", "scope"],
                    "properties": {
                        "grant_type": {
                            "type": "string",
                            "enum": [GrantType.CLIENT_CREDENTIALS.value],
                        },
                        "scope": {"type": "string", "description": "space-delimited scopes"},
                    },
                }
            }
        },
    }
}


async def _form(request: Request) -> dict[str, str]:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != _FORM:
        raise bad_request(f"content-type: the token request must be {_FORM}")
    raw = (await request.body()).decode("utf-8", errors="replace")
    fields = parse_qs(raw, keep_blank_values=True)
    return {k: v[-1] for k, v in fields.items()}


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


async def issue_token(request: Request, state: SandboxState) -> dict[str, Any]:
    form = await _form(request)
    grant_type = form.get("grant_type")
    if grant_type != GrantType.CLIENT_CREDENTIALS:
        raise bad_request(f"grant_type: must be {GrantType.CLIENT_CREDENTIALS.value}")
    scopes = parse_scopes(form.get("scope"))
    token = state.ids.token()
    ttl = int(state.config.token_ttl.total_seconds())
    expires_at = int(state.clock.now().timestamp()) + ttl
    client_id = state.config.credentials.app_id
    state.store.put_token(hash_token(token), client_id, " ".join(scopes), expires_at)
    return {
        "access_token": token,
        "client_id": client_id,
        "expires_at": expires_at,
        "expires_in": ttl,
        "scope": " ".join(scopes),
        "token_type": "Bearer",
    }


@router.post("/oauth/token", dependencies=[Depends(require_key_pair)], openapi_extra=_BODY_SCHEMA)
async def generate_token(
    request: Request, state: SandboxState = Depends(get_state)
) -> dict[str, Any]:
    """Issue a bearer token for the requested scopes."""
    return await issue_token(request, state)


@router.post(
    "/v1/oauth/token",
    dependencies=[Depends(require_key_pair)],
    openapi_extra=_BODY_SCHEMA,
    include_in_schema=False,
)
async def generate_token_v1(
    request: Request, state: SandboxState = Depends(get_state)
) -> dict[str, Any]:
    """The same endpoint at the path the published reference uses."""
    return await issue_token(request, state)
