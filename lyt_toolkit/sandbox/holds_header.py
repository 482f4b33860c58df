"""The ``Lyt-Sandbox-Holds`` header of every answer: what this sandbox holds.

A client cannot tell two sandboxes apart by their address when one is stopped and another,
holding another program, is served on the same port; a checkpointed pull would then resume
the first one's answers as the second one's. So every answer names what the sandbox holds,
as ``held_program`` words it (its program's digest, seed, clock and a digest of its
database's path: the same in every process that serves the same program from the same
database, printable ASCII, never a credential nor a path), and the pull compares it
with the one its checkpoint was written by (``fill.pull``). Then comes the instance of its
state (``state_held``): a sandbox started again on the same program and seed reads alike yet
holds none of the first one's writes, which an action log must tell (``actions.log``). The
digest of a large program is taken once, on the first answer, off the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._services import HOLDS_HEADER, INSTANCE_PART

if TYPE_CHECKING:
    from .state import SandboxState


def state_held(program: Callable[[], str], state: SandboxState) -> str:
    """What ``state`` holds: ``program()`` (``held_program``), then the instance of the state
    (``SandboxState.instance``, new with every program load)."""
    return f"{program()}, {INSTANCE_PART} {state.instance}"


_NAME = HOLDS_HEADER.lower().encode()


class HoldsMiddleware:
    """Adds ``HOLDS_HEADER``, ``holds()``, to every HTTP answer: asked off the event loop
    the first time (it takes the program's digest, kept), then on it (a reset changes it)."""

    def __init__(self, app: ASGIApp, holds: Callable[[], str]) -> None:
        self.app = app
        self.holds = holds
        self._warm = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._warm:
            value = self.holds()
        else:
            value = await asyncio.to_thread(self.holds)
            self._warm = True
        header = (_NAME, value.encode("ascii"))  # printable ASCII (``held_program``)

        async def send_with_holds(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), header]}
            await send(message)

        await self.app(scope, receive, send_with_holds)
