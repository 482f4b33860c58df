"""Error bodies the service returns."""

from __future__ import annotations

from typing import Annotated, Any

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


def error_object(status: int, reason: str, body: Any) -> ErrorObject:
    """The error object in an answer's ``body``; the status line fills what it lacks (the
    client reads the service's answers so, the sandbox's helpers their own).

    A body that is not an error object (not JSON, not an object, or with fields of the
    wrong type) still gives one, with only the status and reason.
    """
    fallback = {"code": status, "message": reason}
    if isinstance(body, dict):
        try:
            given = {key: value for key, value in body.items() if value is not None}
            return ErrorObject.model_validate(fallback | given)
        except (ValueError, ArithmeticError, TypeError, RecursionError):
            pass  # a pydantic ValidationError is a ValueError
    return ErrorObject.model_validate(fallback)


class CustomMessage(ApiModel):
    """A merchant-configured explanation that replaces the error of an invalid result."""

    message: str
