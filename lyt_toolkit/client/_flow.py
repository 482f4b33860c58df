"""The send loop, written once: auth, retries, ``Retry-After`` and the 401 refresh.

Like httpx's ``Auth.auth_flow``, a flow is a generator that does no I/O. It
yields steps (send this request, sleep this long, close this response, hand me
a bearer token) and receives each step's outcome; ``SyncTransport`` and
``AsyncTransport`` are the two drivers that carry the steps out. Every policy
decision comes from the pure functions in ``_core``, so the sync and async
clients cannot drift apart.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Send:
    """Send ``request``; the outcome is the ``httpx.Response`` or the ``httpx.TransportError``."""

    request: httpx.Request


@dataclass(frozen=True)
class Sleep:
    """Wait ``seconds`` before the next attempt; the outcome is ``None``."""

    seconds: float


@dataclass(frozen=True)
class Close:
    """Release a response that will not be read; the outcome is ``None``."""

    response: httpx.Response


@dataclass(frozen=True)
class Bearer:
    """A usable ``/v2`` token: the outcome is ``(token, generation)``.

    The driver answers from the token cache, or runs ``token_flow`` under its
    lock so concurrent threads or tasks share one token request.
    """


Step = Send | Sleep | Close | Bearer
Flow = Generator[Step, Any, T]
"""A generator of steps; what each step sends back is documented on the step."""


def request_flow(core: RequestCore, tokens: TokenCache, call: Call[T]) -> Flow[T]:
    """Send ``call`` with its family's credentials and return its decoded answer."""
    if call.family is not Family.V2:
        response = yield from send_flow(core, call)
        return core.decode(call, response)
    token, generation = yield Bearer()
    response = yield from send_flow(core, call, token, pass_401=True)
    if response.status_code == 401:
        # The token may have expired early on the server's clock or been
        # revoked: renew it once and try once more.
        tokens.invalidate(generation)
        token, _ = yield Bearer()
        response = yield from send_flow(core, call, token)
    return core.decode(call, response)


def token_flow(core: RequestCore, tokens: TokenCache) -> Flow[tuple[str, int]]:
    """The cached token, or a new one fetched and stored; run it under the driver's lock."""
    held = tokens.current()
    if held is not None:
        return held
    received_at = tokens.clock()
    call = core.token_call()
    token = core.decode(call, (yield from send_flow(core, call)))
    return tokens.store(token.access_token, token.expires_in, received_at)


def send_flow(
    core: RequestCore, call: Call[Any], bearer: str | None = None, *, pass_401: bool = False
) -> Flow[httpx.Response]:
    """Send with retries; return a 2xx response (or a 401 when asked) or raise."""
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        outcome: httpx.Response | httpx.TransportError = yield Send(core.build(call, bearer=bearer))
        if isinstance(outcome, httpx.TransportError):
            yield Sleep(_delay_after_failure(core, call, outcome, attempt, started))
            continue
        log_response(call, outcome, attempt)
        if outcome.is_success or (pass_401 and outcome.status_code == 401):
            return outcome
        delay = _delay_after_refusal(core, call, outcome, attempt, started)
        yield Close(outcome)
        yield Sleep(delay)


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
