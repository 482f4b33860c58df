"""OAuth token request and response."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from .common import ApiModel, RequestModel
from .enums import SCOPES, GrantType

__all__ = ["AccessToken", "TokenRequest", "parse_scopes"]


def parse_scopes(value: str | list[str] | tuple[str, ...] | set[str] | frozenset[str]) -> str:
    """Check scope values and join them the only way the service accepts: by spaces."""
    if isinstance(value, str):
        if "," in value:
            raise ValueError("scopes must be separated by spaces, not commas")
        parts = value.split()
    else:
        parts = [str(v) for v in value]
        if any("," in p or " " in p for p in parts):
            raise ValueError("each scope must be a single value without commas or spaces")
    if not parts:
        raise ValueError("at least one scope is required")
    unknown = sorted(set(parts) - SCOPES)
    if unknown:
        raise ValueError(f"unknown scope(s): {', '.join(unknown)}")
    return " ".join(dict.fromkeys(parts))


class AccessToken(ApiModel):
    """A bearer token; its value never shows up in repr or str."""

    access_token: str = Field(repr=False)
    client_id: str
    expires_at: int
    expires_in: int
    scope: str
    token_type: Literal["Bearer"] = "Bearer"

    @property
    def scopes(self) -> frozenset[str]:
        """The granted scopes as a set."""
        return frozenset(self.scope.split())

    @property
    def authorization(self) -> str:
        """The ``Authorization`` header value."""
        return f"{self.token_type} {self.access_token}"


class TokenRequest(RequestModel):
    """The form body of the token endpoint; ``scope`` also accepts a list."""

    grant_type: GrantType = GrantType.CLIENT_CREDENTIALS
    scope: str

    @field_validator("scope", mode="before")
    @classmethod
    def _check_scope(cls, value: object) -> str:
        if not isinstance(value, str | list | tuple | set | frozenset):
            raise ValueError("scope must be a string or a list of strings")
        return parse_scopes(value)

    def form(self) -> dict[str, str]:
        """The fields to send as ``application/x-www-form-urlencoded``."""
        return {"grant_type": self.grant_type.value, "scope": self.scope}
