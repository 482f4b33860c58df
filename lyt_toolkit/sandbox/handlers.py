"""The handlers that route every failure of the app through the one error shape."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .errors import ServiceError, bad_request
from .responses import error_response

log = logging.getLogger("lyt_toolkit.sandbox")


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
