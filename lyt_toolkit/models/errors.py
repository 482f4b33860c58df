"""Error bodies the service returns."""

from __future__ import annotations

from .common import ApiModel

__all__ = ["CustomMessage", "ErrorObject"]


class ErrorObject(ApiModel):
    """The body of every failed call, and the ``error`` of an invalid validation."""

    omit_if_none = frozenset({"key", "details", "request_id", "resource_id", "resource_type"})

    code: int
    key: str | None = None
    message: str
    details: str | None = None
    request_id: str | None = None
    resource_id: str | None = None
    resource_type: str | None = None


class CustomMessage(ApiModel):
    """A merchant-configured explanation that replaces the error of an invalid result."""

    message: str
