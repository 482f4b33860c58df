"""The one error shape of the service.

Every failure, ours or the framework's, leaves the sandbox as the spec's error
object: ``code`` equal to the HTTP status, ``key``, ``message``, optional
``details``, ``request_id`` and, for missing resources, ``resource_id`` and
``resource_type``. A client's mistake is never answered with a 500. The response
that carries it is made in ``responses``, and FastAPI's own failures are routed here
by ``handlers``: this module imports no web framework, as the program load uses it
before the app is imported.
"""

from __future__ import annotations

import uuid
from typing import Any

from ..models.errors import ErrorObject

_KEYS = {
    400: ("invalid_request", "Invalid request"),
    401: ("unauthorized", "Unauthorized"),
    402: ("missing_required_feature", "Payment required"),
    404: ("not_found", "Resource not found"),
    405: ("method_not_allowed", "Method not allowed"),
    409: ("conflict", "Conflict"),
    415: ("unsupported_media_type", "Unsupported media type"),
    423: ("resource_locked", "Resource locked"),
    429: ("too_many_requests", "Too many requests"),
    500: ("internal_error", "Internal server error"),
    501: ("not_implemented", "Not implemented"),
    503: ("service_unavailable", "Service unavailable"),
}


class ServiceError(Exception):
    """An error the sandbox answers with, rendered as the spec's error object."""

    def __init__(
        self,
        status: int,
        key: str | None = None,
        message: str | None = None,
        details: str | None = None,
        *,
        resource_id: str | None = None,
        resource_type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        default_key, default_message = _KEYS.get(status, ("error", "Error"))
        self.status = status
        self.key = key or default_key
        self.message = message or default_message
        self.details = details
        self.resource_id = resource_id
        self.resource_type = resource_type
        self.headers = headers
        super().__init__(f"{status} {self.key}: {self.message}")

    def error_object(self, request_id: str) -> ErrorObject:
        """The error as the service sends it, for the request ``request_id``."""
        return ErrorObject(
            code=self.status,
            key=self.key,
            message=self.message,
            details=self.details,
            request_id=request_id,
            resource_id=self.resource_id,
            resource_type=self.resource_type,
        )

    def body(self, request_id: str) -> dict[str, Any]:
        """The JSON body: unset optional fields are left out, as the service does."""
        return self.error_object(request_id).wire()


def not_found(resource_type: str, resource_id: str) -> ServiceError:
    return ServiceError(
        404,
        details=f"Cannot find {resource_type} with id {resource_id}",
        resource_id=resource_id,
        resource_type=resource_type,
    )


def bad_request(details: str, key: str = "invalid_request") -> ServiceError:
    return ServiceError(400, key, "Invalid request", details)


def conflict(details: str, key: str = "conflict") -> ServiceError:
    return ServiceError(409, key, "Conflict", details)


def locked(details: str) -> ServiceError:
    return ServiceError(423, "resource_locked", "Resource locked", details)


def unauthorized() -> ServiceError:
    return ServiceError(401, "unauthorized", "Unauthorized")


def new_request_id() -> str:
    return f"req_{uuid.uuid4().hex[:20]}"
