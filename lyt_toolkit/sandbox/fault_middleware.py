"""The middleware that injects the faults in force (``faults``) into the app's answers.

Plain ASGI, as the sandbox's other middlewares are: Starlette's ``BaseHTTPMiddleware``
runs each request in a task of its own with streams between them, a cost every call paid
though faults are rarely set."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import ServiceError
from .faults import ADMIN_PREFIX, Faults
from .responses import error_response


class FaultMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(ADMIN_PREFIX):
            await self.app(scope, receive, send)
            return
        faults: Faults = scope["app"].state.sandbox.faults
        delay, status = faults.draw()
        if delay:
            await asyncio.sleep(delay)
        if status is None:
            await self.app(scope, receive, send)
            return
        error = ServiceError(
            status,
            details="fault injected by the sandbox",
            headers={"Retry-After": str(faults.settings.retry_after)},
        )
        response = error_response(Request(scope, receive), error)
        await response(scope, receive, send)
        faults.answer(status)  # once sent: a client waiting on the count has it on its way
