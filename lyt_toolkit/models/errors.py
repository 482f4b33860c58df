"""Error bodies the service returns."""

from __future__ import annotations

from typing import Annotated

from .common import OMIT_IF_NONE, ApiModel

__all__ = ["CustomMessage", "ErrorObject"]


class ErrorObject(ApiModel):
    """The body of every failed call, and the ``error`` of an invalid validation."""

    code: int
    key: Annotated[str | None, OMIT_IF_NONE] = None
    message: str
    details: Annotated[str | None, OMIT_IF_NONE] = None
    request_id: Annotated[str | None, OMIT_IF_NONE] = None
    resource_id: Annotated[str | None, OMIT_IF_NONE] = None
    resource_type: Annotated[str | None, OMIT_IF_NONE] = None


class CustomMessage(ApiModel):
    """A merchant-configured explanation that replaces the error of an invalid result."""

    message: str
