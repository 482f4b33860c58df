"""The ``Lyt-Sandbox-Holds`` header of every answer: what this sandbox holds.

A client cannot tell two sandboxes apart by their address when one is stopped and another,
holding another program, is served on the same port; a checkpointed pull would then resume
the first one's answers as the second one's. So every answer names what the sandbox holds,
as ``held_program`` words it (its program's digest, seed, clock and a digest of its
database's path: the same in every process that serves the same program from the same
database, printable ASCII, never a credential nor a path), and the pull compares it
with the one its checkpoint was written by (``fill.pull``). The digest of a large program
is taken once, on the first answer, off the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._services import HOLDS_HEADER


class HoldsMiddleware:
    """Adds ``HOLDS_HEADER``, ``holds()`` (worked out once), to every HTTP answer."""

    def __init__(self, app: ASGIApp, holds: Callable[[], str]) -> None:
        self.app = app
        self.holds = holds
        self._header: tuple[bytes, bytes] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = self._header
        if header is None:
            value = await asyncio.to_thread(self.holds)  # printable ASCII (``held_program``)
            header = self._header = (HOLDS_HEADER.lower().encode(), value.encode("ascii"))

        async def send_with_holds(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), header]}
            await send(message)

        await self.app(scope, receive, send_with_holds)
