"""The two drivers of the send flow (``_flow``): one blocks, one awaits.

Each carries out the flow's steps with its own means (``httpx.Client`` and
``time.sleep``, or ``httpx.AsyncClient`` and ``asyncio.sleep``) and guards
the token request with its own lock; the flow decides everything else.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, TypeVar

import httpx

from ._auth import TokenCache
from ._core import Call, RequestCore
from ._flow import Bearer, Close, Flow, Send, Sleep, Step, request_flow, token_flow

T = TypeVar("T")


class _Driver:
    """What both drivers hold: the request core, the token cache, who closes the pool."""

    def __init__(self, core: RequestCore, *, owns_http_client: bool) -> None:
        self.core = core
        self.owns_http_client = owns_http_client
        self.tokens = TokenCache(core.config.token_refresh_skew)


class SyncTransport(_Driver):
    """Sends calls over an ``httpx.Client``; safe to share between threads."""

    def __init__(self, core: RequestCore, http_client: httpx.Client | None = None) -> None:
        super().__init__(core, owns_http_client=http_client is None)
        self.http = http_client if http_client is not None else httpx.Client()
        self._token_lock = threading.Lock()

    def close(self) -> None:
        """Close the connection pool unless the caller owns it."""
        if self.owns_http_client:
            self.http.close()

    def request(self, call: Call[T]) -> T:
        """Send ``call`` with its family's credentials and return its decoded answer."""
        return self.run(request_flow(self.core, self.tokens, call))

    def bearer(self) -> tuple[str, int]:
        """A valid token for ``/v2``; one thread fetches while the others wait for it."""
        held = self.tokens.current()
        if held is not None:
            return held
        with self._token_lock:
            return self.run(token_flow(self.core, self.tokens))

    def run(self, flow: Flow[T]) -> T:
        """Drive ``flow`` to its end, blocking on each step."""
        outcome: Any = None
        while True:
            try:
                step = flow.send(outcome)
            except StopIteration as done:
                result: T = done.value
                return result
            outcome = self._perform(step)

    def _perform(self, step: Step) -> Any:
        if isinstance(step, Send):
            try:
                return self.http.send(step.request)
            except httpx.TransportError as exc:
                return exc
        if isinstance(step, Sleep):
            time.sleep(step.seconds)
        elif isinstance(step, Close):
            step.response.close()
        elif isinstance(step, Bearer):
            return self.bearer()
        return None


class AsyncTransport(_Driver):
    """Sends calls over an ``httpx.AsyncClient``; safe to share between tasks."""

    def __init__(self, core: RequestCore, http_client: httpx.AsyncClient | None = None) -> None:
        super().__init__(core, owns_http_client=http_client is None)
        self.http = http_client if http_client is not None else httpx.AsyncClient()
        self._token_locks: dict[int, asyncio.Lock] = {}

    async def aclose(self) -> None:
        """Close the connection pool unless the caller owns it."""
        if self.owns_http_client:
            await self.http.aclose()

    async def request(self, call: Call[T]) -> T:
        """Async twin of ``SyncTransport.request``."""
        return await self.run(request_flow(self.core, self.tokens, call))

    def _lock(self) -> asyncio.Lock:
        # One lock per event loop: a lock bound to a finished loop cannot be reused.
        loop_id = id(asyncio.get_running_loop())
        lock = self._token_locks.get(loop_id)
        if lock is None:
            self._token_locks = {loop_id: asyncio.Lock()}
            lock = self._token_locks[loop_id]
        return lock

    async def bearer(self) -> tuple[str, int]:
        """A valid token for ``/v2``; one task fetches while the others await it."""
        held = self.tokens.current()
        if held is not None:
            return held
        async with self._lock():
            return await self.run(token_flow(self.core, self.tokens))

    async def run(self, flow: Flow[T]) -> T:
        """Drive ``flow`` to its end, awaiting each step."""
        outcome: Any = None
        while True:
            try:
                step = flow.send(outcome)
            except StopIteration as done:
                result: T = done.value
                return result
            outcome = await self._perform(step)

    async def _perform(self, step: Step) -> Any:
        if isinstance(step, Send):
            try:
                return await self.http.send(step.request)
            except httpx.TransportError as exc:
                return exc
        if isinstance(step, Sleep):
            await asyncio.sleep(step.seconds)
        elif isinstance(step, Close):
            await step.response.aclose()
        elif isinstance(step, Bearer):
            return await self.bearer()
        return None
