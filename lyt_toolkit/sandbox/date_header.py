"""The ``Date`` header of every answer, read from the sandbox clock.

A client turns the budget's reset (``X-Rate-Limit-Retry``, epoch seconds on the sandbox
clock) into a wait against the answer's ``Date``, so both must come from the same clock:
uvicorn's own ``Date`` (wall time) is switched off (``server_config``) and this
middleware, the outermost of the app's own, adds the sandbox's instead. Answers the
HTTP parser writes itself (``protocol``) carry none, as a client reads no budget there.
"""

from __future__ import annotations

from datetime import datetime
from email.utils import format_datetime

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .clock import Clock


class ClockDateMiddleware:
    """Adds ``Date`` (the sandbox clock, to the second) to every HTTP answer: written out
    once a second of the clock, not for every answer."""

    def __init__(self, app: ASGIApp, clock: Clock) -> None:
        self.app = app
        self.clock = clock
        self._last: tuple[datetime, bytes] | None = None
        """The last second written out, and its ``Date`` value."""

    def _date(self) -> bytes:
        """The clock's second in the HTTP date form (``Thu, 15 Jan 2026 12:00:00 GMT``)."""
        second = self.clock.now().replace(microsecond=0)
        last = self._last
        if last is None or last[0] != second:
            last = self._last = (second, format_datetime(second, usegmt=True).encode("latin-1"))
        return last[1]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_date(message: Message) -> None:
            if message["type"] == "http.response.start":
                date = (b"date", self._date())
                message = {**message, "headers": [*message.get("headers", []), date]}
            await send(message)

        await self.app(scope, receive, send_with_date)
