"""The error object as an HTTP response, and the request ID it names."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from .errors import ServiceError, new_request_id


def request_id(request: Request) -> str:
    """The request's ID, minted on first use and shared by every part of the answer."""
    rid = getattr(request.state, "request_id", None)
    if rid is None:
        rid = request.state.request_id = new_request_id()
    return rid


def error_response(request: Request, error: ServiceError) -> JSONResponse:
    return JSONResponse(error.body(request_id(request)), error.status, headers=error.headers)
