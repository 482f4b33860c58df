"""``POST /oauth/token``: application keys exchanged for a scoped bearer token."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Request, Response

from ...models import AccessToken
from ...models.enums import GrantType
from ..auth import require_key_pair
from ..deps import state_of
from ..errors import bad_request
from ..services import tokens
from ..state import SandboxState
from ..store_reads import write_store
from .common import document_response

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
    """The token request's form fields (the last value of each); 400 unless it is a form."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != _FORM:
        raise bad_request(f"content-type: the token request must be {_FORM}")
    raw = (await request.body()).decode("utf-8", errors="replace")
    fields = parse_qs(raw, keep_blank_values=True)
    return {k: v[-1] for k, v in fields.items()}


TokenForm = Annotated[dict[str, str], Depends(_form)]
_TOKEN_ROUTE: dict[str, Any] = {
    "dependencies": [Depends(require_key_pair)],
    "openapi_extra": _BODY_SCHEMA,
    "response_model": AccessToken,
}


@router.post("/oauth/token", **_TOKEN_ROUTE)
async def generate_token(form: TokenForm, request: Request) -> Response:
    """Issue a bearer token for the requested scopes."""
    state = state_of(request)
    return await _issued(form, state)


@router.post("/v1/oauth/token", include_in_schema=False, **_TOKEN_ROUTE)
async def generate_token_v1(form: TokenForm, request: Request) -> Response:
    """The same endpoint at the path the published reference uses."""
    state = state_of(request)
    return await _issued(form, state)


async def _issued(form: dict[str, str], state: SandboxState) -> Response:
    """The token issued for ``form``, its store write made by ``write_store`` (no worker
    thread for a store in memory) and its object encoded once (``AccessToken`` describes it)."""
    grant_type, scope = form.get("grant_type"), form.get("scope")
    issued = await write_store(state.store, tokens.issue_token, state, grant_type, scope)
    return document_response(issued)
