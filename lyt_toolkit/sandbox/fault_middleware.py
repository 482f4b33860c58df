"""The middleware that injects the faults in force (``faults``) into the app's answers."""

from __future__ import annotations

import asyncio

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import Response

from .errors import ServiceError
from .faults import ADMIN_PREFIX, Faults
from .responses import error_response


class FaultMiddleware(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if request.url.path.startswith(ADMIN_PREFIX):
            return await call_next(request)
        faults: Faults = request.app.state.sandbox.faults
        delay, status = faults.draw()
        if delay:
            await asyncio.sleep(delay)
        if status is not None:
            error = ServiceError(
                status,
                details="fault injected by the sandbox",
                headers={"Retry-After": str(faults.settings.retry_after)},
            )
            return error_response(request, error)
        return await call_next(request)
