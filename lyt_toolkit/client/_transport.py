"""The two send loops, sync and async: auth, retries and the 401 refresh.

Both loops take every decision from the pure functions in ``_core`` and only
differ in how they wait and send, so a fix to the policy lands in both.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, TypeVar

import httpx

from ..errors import APIConnectionError, APITimeoutError
from ._auth import TokenCache
from ._core import (
    Call,
    Family,
    RequestCore,
    log_failure,
    log_response,
    next_delay,
    retryable_exception,
    retryable_status,
)

T = TypeVar("T")


def _connection_error(core: RequestCore, call: Call[Any], exc: Exception) -> APIConnectionError:
    where = f"{call.method} {call.path} at {core.base_url}"
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(f"{where} timed out ({type(exc).__name__})")
    return APIConnectionError(f"{where} failed: {type(exc).__name__}: {exc}")


def _delay_after_failure(
    core: RequestCore, call: Call[Any], exc: httpx.TransportError, attempt: int, started: float
) -> float:
    """Seconds to wait before resending after a transport failure; raises when it may not."""
    log_failure(call, exc, attempt)
    delay = None
    if retryable_exception(call, exc):
        delay = next_delay(attempt, time.monotonic() - started, core.config.retry)
    if delay is None:
        raise _connection_error(core, call, exc) from exc
    return delay


def _delay_after_refusal(
    core: RequestCore, call: Call[Any], response: httpx.Response, attempt: int, started: float
) -> float:
    """Seconds to wait before resending after a non-2xx answer; raises its error when it may not."""
    retry = core.config.retry
    if retryable_status(call, response.status_code, retry):
        elapsed = time.monotonic() - started
        delay = next_delay(attempt, elapsed, retry, response.headers.get("retry-after"))
        if delay is not None:
            return delay
    raise core.error(call, response)


class SyncTransport:
    """Sends calls over an ``httpx.Client``; safe to share between threads."""

    def __init__(self, core: RequestCore, http_client: httpx.Client | None = None) -> None:
        self.core = core
        self.owns_http_client = http_client is None
        self.http = http_client if http_client is not None else httpx.Client()
        self.tokens = TokenCache(core.config.token_refresh_skew)
        self._token_lock = threading.Lock()

    def close(self) -> None:
        """Close the connection pool unless the caller owns it."""
        if self.owns_http_client:
            self.http.close()

    def request(self, call: Call[T]) -> T:
        """Send ``call`` with its family's credentials and return its decoded answer."""
        if call.family is not Family.V2:
            return self.core.decode(call, self.send(call))
        token, generation = self.bearer()
        response = self.send(call, token, pass_401=True)
        if response.status_code == 401:
            # The token may have expired early on the server's clock or been
            # revoked: renew it once and try once more.
            self.tokens.invalidate(generation)
            token, _ = self.bearer()
            response = self.send(call, token)
        return self.core.decode(call, response)

    def bearer(self) -> tuple[str, int]:
        """A valid token for ``/v2``; one thread fetches while the others wait for it."""
        held = self.tokens.current()
        if held is not None:
            return held
        with self._token_lock:
            held = self.tokens.current()
            if held is not None:
                return held
            received_at = self.tokens.clock()
            call = self.core.token_call()
            token = self.core.decode(call, self.send(call))
            return self.tokens.store(token.access_token, token.expires_in, received_at)

    def send(
        self, call: Call[Any], bearer: str | None = None, *, pass_401: bool = False
    ) -> httpx.Response:
        """Send with retries; return a 2xx response (or a 401 when asked) or raise."""
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            request = self.core.build(call, bearer=bearer)
            try:
                response = self.http.send(request)
            except httpx.TransportError as exc:
                time.sleep(_delay_after_failure(self.core, call, exc, attempt, started))
                continue
            log_response(call, response, attempt)
            if response.is_success or (pass_401 and response.status_code == 401):
                return response
            delay = _delay_after_refusal(self.core, call, response, attempt, started)
            response.close()
            time.sleep(delay)


class AsyncTransport:
    """Sends calls over an ``httpx.AsyncClient``; safe to share between tasks."""

    def __init__(self, core: RequestCore, http_client: httpx.AsyncClient | None = None) -> None:
        self.core = core
        self.owns_http_client = http_client is None
        self.http = http_client if http_client is not None else httpx.AsyncClient()
        self.tokens = TokenCache(core.config.token_refresh_skew)
        self._token_locks: dict[int, asyncio.Lock] = {}

    async def aclose(self) -> None:
        """Close the connection pool unless the caller owns it."""
        if self.owns_http_client:
            await self.http.aclose()

    async def request(self, call: Call[T]) -> T:
        """Async twin of ``SyncTransport.request``."""
        if call.family is not Family.V2:
            return self.core.decode(call, await self.send(call))
        token, generation = await self.bearer()
        response = await self.send(call, token, pass_401=True)
        if response.status_code == 401:
            self.tokens.invalidate(generation)  # see SyncTransport.request
            token, _ = await self.bearer()
            response = await self.send(call, token)
        return self.core.decode(call, response)

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
            held = self.tokens.current()
            if held is not None:
                return held
            received_at = self.tokens.clock()
            call = self.core.token_call()
            token = self.core.decode(call, await self.send(call))
            return self.tokens.store(token.access_token, token.expires_in, received_at)

    async def send(
        self, call: Call[Any], bearer: str | None = None, *, pass_401: bool = False
    ) -> httpx.Response:
        """Send with retries; return a 2xx response (or a 401 when asked) or raise."""
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            request = self.core.build(call, bearer=bearer)
            try:
                response = await self.http.send(request)
            except httpx.TransportError as exc:
                await asyncio.sleep(_delay_after_failure(self.core, call, exc, attempt, started))
                continue
            log_response(call, response, attempt)
            if response.is_success or (pass_401 and response.status_code == 401):
                return response
            delay = _delay_after_refusal(self.core, call, response, attempt, started)
            await response.aclose()
            await asyncio.sleep(delay)
