"""OAuth: exchange the application key pair for a bearer token with chosen scopes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ...errors import RequestValidationError
from .._core import Call
from ._base import AsyncResource, SyncResource

if TYPE_CHECKING:
    from ...models import AccessToken


def _token(resource: SyncResource | AsyncResource, scopes: Sequence[str] | str | None) -> Call[Any]:
    try:
        return resource._transport.core.token_call(scopes)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        message = str(first.get("msg", "")).removeprefix("Value error, ")  # pydantic's label
        raise RequestValidationError(f"scopes: {message}", field="scope") from None


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class OAuth(SyncResource):
    """``client.oauth``: tokens on demand.

    The client already fetches and renews the token its ``/v2`` calls need;
    this is for callers that want a token of their own (other scopes, another
    tool). Such tokens are not cached or reused by the client.
    """

    def token(self, scopes: Sequence[str] | str | None = None) -> AccessToken:
        """A new token for ``scopes`` (default: the client's configured scopes)."""
        return self._send(_token(self, scopes))


# unasync: end of the generated sync code; its async source follows
class AsyncOAuth(AsyncResource):
    """Async twin of ``OAuth``."""

    # sync: """``client.oauth``: tokens on demand.
    # sync:
    # sync: The client already fetches and renews the token its ``/v2`` calls need;
    # sync: this is for callers that want a token of their own (other scopes, another
    # sync: tool). Such tokens are not cached or reused by the client.
    # sync: """

    async def token(self, scopes: Sequence[str] | str | None = None) -> AccessToken:
        """Async twin of ``OAuth.token``."""
        # sync: """A new token for ``scopes`` (default: the client's configured scopes)."""
        return await self._send(_token(self, scopes))
