"""The send loop, written once: auth, retries, ``Retry-After`` and the 401 refresh.

Like httpx's ``Auth.auth_flow``, a flow is a generator that does no I/O. It
yields steps (send this request, sleep this long, close this response, hand me
a bearer token) and receives each step's outcome; ``SyncTransport`` and
``AsyncTransport`` are the two drivers that carry the steps out. Every policy
decision comes from the pure functions in ``_core``, so the sync and async
clients cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from ..errors import APIConnectionError, APIResponseValidationError, APITimeoutError
from ._auth import TokenCache
from ._core import (
    Call,
    Family,
    RequestCore,
    check_bounds,
    log_failure,
    log_response,
    next_delay,
    retryable_exception,
    retryable_status,
)
from ._deadline import Deadline, call_seconds

T = TypeVar("T")


@dataclass(frozen=True)
class Send:
    """Send ``request`` and read its body by ``deadline``, never following a redirect.

    The outcome is the fully read ``httpx.Response``, or the ``httpx.RequestError``
    (an ``httpx.ReadTimeout`` when the deadline passed while the body arrived).
    """

    request: httpx.Request
    deadline: Deadline


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
    lock so concurrent threads or tasks share one token request, all by ``deadline``.
    """

    deadline: Deadline


Step = Send | Sleep | Close | Bearer
Flow = Generator[Step, Any, T]
"""A generator of steps; what each step sends back is documented on the step."""


def request_flow(core: RequestCore, tokens: TokenCache, call: Call[T]) -> Flow[T]:
    """Send ``call`` with its family's credentials and return its decoded answer.

    The whole call, token request included, ends within the configured timeout. A body
    number beyond 64 bits or not finite is refused first, naming its field.
    """
    check_bounds(call.json)
    deadline = Deadline(call_seconds(core.config.timeout))
    if call.family is not Family.V2:
        response = yield from send_flow(core, call, deadline=deadline)
        return core.decode(call, response)
    token, generation = yield Bearer(deadline)
    response = yield from send_flow(core, call, token, deadline=deadline, pass_401=True)
    if response.status_code == 401:
        # The token may have expired early on the server's clock or been
        # revoked: renew it once and try once more.
        tokens.invalidate(generation)
        token, _ = yield Bearer(deadline)
        response = yield from send_flow(core, call, token, deadline=deadline)
    return core.decode(call, response)


def token_flow(core: RequestCore, tokens: TokenCache, deadline: Deadline) -> Flow[tuple[str, int]]:
    """The cached token, or a new one fetched and stored; run it under the driver's lock."""
    held = tokens.current()
    if held is not None:
        return held
    received_at = tokens.clock()
    call = core.token_call()
    token = core.decode(call, (yield from send_flow(core, call, deadline=deadline)))
    return tokens.store(token.access_token, token.expires_in, received_at)


def send_flow(
    core: RequestCore,
    call: Call[Any],
    bearer: str | None = None,
    *,
    deadline: Deadline | None = None,
    pass_401: bool = False,
) -> Flow[httpx.Response]:
    """Send with retries by ``deadline``; return a 2xx response (or a 401 when asked) or raise.

    Without ``deadline`` the call gets the configured timeout from now.
    """
    if deadline is None:
        deadline = Deadline(call_seconds(core.config.timeout))
    started = deadline.clock()
    attempt = 0
    while True:
        if deadline.expired:
            raise deadline.error(_where(core, call))
        attempt += 1
        timeout = deadline.clamp(core.config.timeout)
        request = core.build(call, bearer=bearer, timeout=timeout)
        outcome: httpx.Response | httpx.RequestError = yield Send(request, deadline)
        if isinstance(outcome, httpx.DecodingError):
            raise APIResponseValidationError(
                f"{_where(core, call)}: the response body could not be decoded "
                "(it does not match its Content-Encoding)"
            )
        if isinstance(outcome, httpx.RequestError):
            if deadline.expired:
                raise deadline.error(_where(core, call)) from None
            yield Sleep(_delay_after_failure(core, call, outcome, attempt, started, deadline))
            continue
        log_response(call, outcome, attempt)
        if outcome.is_success or (pass_401 and outcome.status_code == 401):
            return outcome
        delay = _delay_after_refusal(core, call, outcome, attempt, started, deadline)
        yield Close(outcome)
        yield Sleep(delay)


def _where(core: RequestCore, call: Call[Any]) -> str:
    return f"{call.method} {call.path} at {core.base_url}"


def _connection_error(core: RequestCore, call: Call[Any], exc: Exception) -> APIConnectionError:
    where = _where(core, call)
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(f"{where} timed out ({type(exc).__name__})")
    return APIConnectionError(f"{where} failed: {type(exc).__name__}: {exc}")


def _delay_after_failure(
    core: RequestCore,
    call: Call[Any],
    exc: httpx.RequestError,
    attempt: int,
    started: float,
    deadline: Deadline,
) -> float:
    """Seconds to wait before resending after a transport failure; raises when it may not."""
    log_failure(call, exc, attempt)
    delay = None
    if retryable_exception(call, exc):
        elapsed = deadline.clock() - started
        delay = next_delay(attempt, elapsed, core.config.retry, time_left=deadline.remaining())
    if delay is None:
        raise _connection_error(core, call, exc) from exc
    return delay


def _delay_after_refusal(
    core: RequestCore,
    call: Call[Any],
    response: httpx.Response,
    attempt: int,
    started: float,
    deadline: Deadline,
) -> float:
    """Seconds to wait before resending after a non-2xx answer; raises its error when it may not.

    A ``Retry-After`` beyond what is left of the retry budget or the deadline
    raises at once, the error saying when to come back.
    """
    retry = core.config.retry
    if retryable_status(call, response.status_code, retry):
        delay = next_delay(
            attempt,
            deadline.clock() - started,
            retry,
            response.headers.get("retry-after"),
            time_left=deadline.remaining(),
        )
        if delay is not None:
            return delay
    raise core.error(call, response)
