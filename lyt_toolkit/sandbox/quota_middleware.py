"""The middleware that counts the service's calls against the budget (``quota``)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import ServiceError
from .quota import Budget, is_counted
from .responses import error_response


class QuotaMiddleware:
    """Counts each call of the service against the budget: a call over budget is answered
    429 before any work is done; every counted answer carries the budget's headers (and,
    past the billing cycle's budget, its reminder). When the counts are due to be committed
    to a ``--db`` file, that is done (off the event loop, not waiting for the disk) before
    the call goes on."""

    def __init__(self, app: ASGIApp, budget: Budget) -> None:
        self.app = app
        self.budget = budget

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_counted(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        verdict = self.budget.take()
        if not verdict.allowed:
            error = ServiceError(429, details=verdict.details, headers=verdict.headers)
            await error_response(Request(scope), error)(scope, receive, send)
            return
        if verdict.save:
            await run_in_threadpool(self.budget.save, flush=False)
        extra = [(k.lower().encode(), v.encode()) for k, v in verdict.headers.items()]

        async def send_with_headers(message: Message) -> None:
            if extra and message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
