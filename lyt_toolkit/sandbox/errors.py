"""The one error shape of the service, and the handlers that produce it.

Every failure, ours or the framework's, leaves the sandbox as the spec's error
object: ``code`` equal to the HTTP status, ``key``, ``message``, optional
``details``, ``request_id`` and, for missing resources, ``resource_id`` and
``resource_type``. A client's mistake is never answered with a 500.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..models.errors import ErrorObject

log = logging.getLogger("lyt_toolkit.sandbox")

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


def request_id(request: Request) -> str:
    """The request's ID, minted on first use and shared by every part of the answer."""
    rid = getattr(request.state, "request_id", None)
    if rid is None:
        rid = request.state.request_id = new_request_id()
    return rid


def error_response(request: Request, error: ServiceError) -> JSONResponse:
    return JSONResponse(error.body(request_id(request)), error.status, headers=error.headers)


def describe_validation_errors(errors: Sequence[Any]) -> str:
    """One readable line per problem, each naming the field it concerns."""
    parts = []
    for err in errors:
        if err.get("type") == "json_invalid":
            position = next((p for p in err.get("loc", ()) if isinstance(p, int)), None)
            at = f" at character {position}" if position is not None else ""
            parts.append(f"body: malformed JSON{at} ({err.get('ctx', {}).get('error', 'invalid')})")
            continue
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header")]
        where = ".".join(loc) or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid value')}")
    return "; ".join(parts)


def install_handlers(app: FastAPI) -> None:
    """Route every failure through the one error shape."""

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return error_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(request, bad_request(describe_validation_errors(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        details = exc.detail if isinstance(exc.detail, str) else None
        if exc.status_code == 404 and details == "Not Found":
            details = f"No endpoint {request.method} {request.url.path}"
        elif exc.status_code == 400 and details == "There was an error parsing the body":
            details = "body: could not be read (not UTF-8 JSON, or a malformed form)"
        return error_response(request, ServiceError(exc.status_code, details=details))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error_response(request, ServiceError(500))
