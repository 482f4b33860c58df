"""The send loop, written once: auth, retries, ``Retry-After``, the 401 refresh and the budget.

Like httpx's ``Auth.auth_flow``, a flow is a generator that does no I/O. It
yields steps (send this request, sleep this long, close this response, hand me
a bearer token) and receives each step's outcome; ``SyncTransport`` and
``AsyncTransport`` are the two drivers that carry the steps out. Every policy
decision comes from the pure functions in ``_core``, so the sync and async
clients cannot drift apart.

The call budget (``quota``) is kept here too. Before a call starts, the flow
waits while the budget is known to be spent (up to ``max_wait``, else
``QuotaExhaustedError``) and for the ``rate``'s spacing; that wait comes
before the call's ``timeout`` starts, so a long ``max_wait`` works with a short
``timeout``. Every request within the call (token request, retries) takes one
call from the budget as it goes out; if the budget is found spent there, the
flow waits too, but only as long as the call's ``timeout`` allows. A 429 whose
``Retry-After`` is beyond ``max_wait`` raises ``QuotaExhaustedError`` at once;
a shorter one is retried like any 429, within the retry budget and the ``timeout``.
A 429 not of the budget (``spends_window``: another limit, a proxy, a fault) is retried
after its ``Retry-After`` within the retry budget and the ``timeout``, else raised as the
``RateLimitError`` it is, saying when to come back; it says nothing of the window.

A paced work (``Quota.pacing``) waits for every window instead: a spent budget or a 429
that the call cannot wait out within ``max_wait``, the retry budget or its ``timeout``
(other traffic spent the window) ends the attempt (``WindowSpent``), and the call waits for
the reset as for its own share (``admit_flow``), then starts afresh, its ``timeout`` anew.
Its share holds every request, not only the call's first (``Booked`` when it was let start):
a retry, or the token request and the call again after a 401, that the share has no room
for is a spent window to the call, waited for the same way, and sent in the next window. An
attempt that ends before its first request is counted (cancelled, stopped, the token another
thread requested late or failed) hands its start back (``_handed_back``).
A 429 not of the budget that the call cannot wait out so ends the attempt too
(``Refused``): the call waits out that 429's own ``Retry-After`` (``held_flow``), then is let
start again as any of the work's calls (its share, the window, the rate), never at once.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import httpx

from .._secret import header_safe
from ..errors import (
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    RateLimitError,
    StoppedError,
)
from ..pull.sent import sent_notice
from ._auth import TokenCache
from ._core import (
    Call,
    Family,
    RequestCore,
    check_bounds,
    check_encodable,
    log_failure,
    log_response,
    next_delay,
    retryable_exception,
    retryable_status,
)
from ._deadline import Deadline, call_seconds
from .allowance import PacingEnded
from .quota import REFUSAL_WAIT, Quota, spends_window, waits
from .recording import Asked, Recorder

T = TypeVar("T")


@dataclass(frozen=True)
class Send:
    """Send ``request`` and read its body by ``deadline``, never following a redirect.

    The outcome is the fully read ``httpx.Response``, or the ``httpx.RequestError``
    (an ``httpx.ReadTimeout`` when the deadline passed while the body arrived), or the
    ``StoppedError`` (``Raised``) of a request stopped before it went out.
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


@dataclass
class Booked:
    """Whether a call's next request is the one ``admit_flow`` let start (``first``), booked
    against a paced share (``Quota.ready``): the call's first request is, once; any other (a
    retry, the token request and the call again after a 401) is sent only while the share
    holds it (``Quota.take``), else the attempt ends (``WindowSpent``). ``start`` numbers the
    start the paced shares booked."""

    first: bool = True
    start: int = 0


@dataclass(frozen=True)
class Bearer:
    """A usable ``/v2`` token: the outcome is ``(token, generation)``.

    The driver answers from the token cache, or runs ``token_flow`` under its
    lock so concurrent threads or tasks share one token request, all by ``deadline``, its
    request the call's ``booked`` one if the call sent none yet.
    A ``WindowSpent`` that ended the token request is the outcome instead (``Raised``): the
    flow waits for the window outside the lock.
    """

    deadline: Deadline
    booked: Booked


Step = Send | Sleep | Close | Bearer
Flow = Generator[Step, Any, T]


@dataclass(frozen=True, slots=True)
class Done(Generic[T]):
    """What a flow returned: the driver's signal to stop."""

    value: T


class WindowSpent(Exception):
    """Within the flows only, never raised to a caller: a paced call's attempt ended, the
    window spent (other traffic spent it) beyond what the attempt may wait; the call waits
    for the reset in ``admit_flow`` and starts again."""


class Refused(WindowSpent):
    """Within the flows only: a paced call's attempt ended by a 429 not of the budget whose
    ``Retry-After`` (``seconds``) it could not wait out; the call waits that long
    (``held_flow``), then starts again as ``WindowSpent`` says."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


@dataclass(frozen=True)
class Raised:
    """A step's outcome that is an error, raised in the flow where it yielded the step
    (``advance``): a ``WindowSpent`` of a ``Bearer``, the ``StoppedError`` of a ``Send``
    stopped before it went out."""

    error: WindowSpent | StoppedError


def advance(flow: Flow[T], outcome: Any) -> Step | Done[T]:
    """The flow's next step once it has ``outcome`` of the last one, or ``Done`` at its end
    (a ``Raised`` outcome's error is raised in the flow)."""
    try:
        if isinstance(outcome, Raised):
            return flow.throw(outcome.error)
        return flow.send(outcome)
    except StopIteration as finished:
        return Done(finished.value)


"""A generator of steps; what each step sends back is documented on the step."""


def request_flow(
    core: RequestCore,
    tokens: TokenCache,
    call: Call[T],
    quota: Quota | None = None,
    recorder: Recorder | None = None,
) -> Flow[T]:
    """Send ``call`` with its family's credentials and return its decoded answer.

    The call starts once ``quota`` allows (``admit_flow``); from then on the whole
    call, token request included, ends within the configured timeout. A body number
    beyond 64 bits or not finite, or a lone surrogate in the body or the query, is refused
    first, naming its field. With a ``recorder``
    a GET is answered from it when it holds the answer, and every answer is kept there
    (``recording``).
    """
    check_bounds(call.json)
    check_encodable(call)
    if recorder is not None and call.method == "GET":
        answer = yield from _recorded_flow(core, tokens, call, quota, recorder)
    else:
        answer = yield from _answer_flow(core, tokens, call, quota)
    return core.decode(call, answer)


def _recorded_flow(
    core: RequestCore, tokens: TokenCache, call: Call[T], quota: Quota | None, recorder: Recorder
) -> Flow[httpx.Response]:
    """The answer ``recorder`` holds for ``call``, else the one to what it says to send,
    kept there as it arrives."""
    asked = Asked.of(call.path, call.params)
    found = recorder.recall(asked)
    while isinstance(found, Asked):
        sent = found
        answer = yield from _answer_flow(core, tokens, replace(call, params=sent.params), quota)
        found = recorder.keep(asked, sent, answer)
    notice = sent_notice()
    if notice is not None:  # a read-ahead waiting for this request to go out need not wait
        notice()
    return found


def _answer_flow(
    core: RequestCore, tokens: TokenCache, call: Call[Any], quota: Quota | None
) -> Flow[httpx.Response]:
    """The successful answer to ``call``, once ``quota`` lets it start; a paced call whose
    window was found spent (``WindowSpent``) waits for its reset and starts again. A paced
    ``/v2`` call made while no token is held fetches one first, as a call of its own
    (``bearer_flow``): the paced share lets each start, the token request first."""
    while True:
        booked = Booked(first=False)
        if quota is not None:
            if quota.pacing and call.family is Family.V2 and tokens.current() is None:
                yield from bearer_flow(core, tokens, quota=quota)
            booked = yield from admit_flow(quota, call)
        try:
            attempt = _attempt_flow(core, tokens, call, quota, booked)
            return (yield from _handed_back(quota, booked, attempt))
        except WindowSpent as spent:  # nothing more was sent: admit_flow waits for the reset
            if quota is None:
                raise
            yield from held_flow(quota, call, spent)


def _attempt_flow(
    core: RequestCore, tokens: TokenCache, call: Call[Any], quota: Quota | None, booked: Booked
) -> Flow[httpx.Response]:
    """The successful answer to ``call`` let start now (its first request ``booked``),
    within the configured timeout."""
    deadline = Deadline(call_seconds(core.config.timeout))
    if call.family is not Family.V2:
        return (yield from send_flow(core, call, deadline=deadline, quota=quota, booked=booked))
    token, generation = yield Bearer(deadline, booked)
    response = yield from send_flow(
        core, call, token, deadline=deadline, pass_401=True, quota=quota, booked=booked
    )
    if response.status_code == 401:
        # The token may have expired early on the server's clock or been
        # revoked: renew it once and try once more (neither request the booked one).
        tokens.invalidate(generation)
        token, _ = yield Bearer(deadline, booked)
        response = yield from send_flow(
            core, call, token, deadline=deadline, quota=quota, booked=booked
        )
    return response


def admit_flow(quota: Quota, call: Call[Any]) -> Flow[Booked]:
    """Wait until ``call`` may start: past a spent budget's reset, then the rate's spacing;
    its first request is then ``Booked``.

    A reset further than ``max_wait`` raises ``QuotaExhaustedError`` without sending.
    """
    paced = False
    while True:
        wait, spent, start = quota._ready()
        if wait <= 0:
            return Booked(start=start)
        pacing = quota.pacing  # a paced pull waits for every window (its bar, once up, says)
        paced = paced or (spent and pacing)
        if spent and wait > quota.max_wait and not pacing:
            raise quota.exhausted(call.method, call.path, wait)
        for piece in waits(wait, progress=not quota.pace_shown) if spent else (wait,):
            if paced and not quota.pacing:  # the paced work this call waited for has ended
                raise PacingEnded(f"not sent: {call.method} {call.path}: its paced pull ended")
            yield Sleep(piece)


def held_flow(quota: Quota, call: Call[Any], spent: WindowSpent) -> Flow[None]:
    """Before a paced ``call`` whose attempt ``spent`` ended is let start again
    (``admit_flow``): a ``Refused`` one waits out its 429's ``Retry-After``, in pieces a stop
    or Ctrl-C ends, and ends when the paced work does (``PacingEnded``)."""
    if not isinstance(spent, Refused):
        return
    for piece in waits(spent.seconds, progress=not quota.pace_shown, desc=REFUSAL_WAIT):
        if not quota.pacing:
            raise PacingEnded(f"not sent: {call.method} {call.path}: its paced pull ended")
        yield Sleep(piece)


def bearer_flow(
    core: RequestCore, tokens: TokenCache, *, fresh: bool = False, quota: Quota | None = None
) -> Flow[None]:
    """A ``/v2`` token held: the cached one, or one requested now, as the first ``/v2`` call
    would; with ``fresh``, a new one in place of the one held (the calls that follow use it).
    A request starts once ``quota`` lets it, as every call does (``admit_flow``: a paced
    work's share holds it, the one its earlier runs spent included); a paced request whose
    window was found spent waits for its reset and is sent again."""
    held = tokens.current()
    if fresh and held is not None:
        tokens.invalidate(held[1])
    while True:
        booked = Booked(first=False)
        if quota is not None and tokens.current() is None:
            booked = yield from admit_flow(quota, core.token_call())
        try:
            yield from _handed_back(quota, booked, _bearer_step(core, booked))
            return
        except WindowSpent as spent:
            if quota is None:
                raise
            yield from held_flow(quota, core.token_call(), spent)


def _bearer_step(core: RequestCore, booked: Booked) -> Flow[None]:
    """A token held, within the configured timeout (its request the ``booked`` one)."""
    yield Bearer(Deadline(call_seconds(core.config.timeout)), booked)


def _handed_back(quota: Quota | None, booked: Booked, flow: Flow[T]) -> Flow[T]:
    """``flow``, the attempt of a call let start (``booked``); should it end before its first
    request is counted (the token another thread or task requests failed or was late, the
    call was cancelled or stopped, the window found spent, an allowance refused it), the start
    is handed back (``Quota._unbook``): a paced share counts no call that was never sent."""
    try:
        return (yield from flow)
    finally:
        if quota is not None and booked.first:
            booked.first = False
            quota._unbook(booked.start)


def token_flow(
    core: RequestCore,
    tokens: TokenCache,
    deadline: Deadline,
    quota: Quota | None = None,
    booked: Booked | None = None,
) -> Flow[tuple[str, int]]:
    """The cached token, or a new one fetched and stored (its request the ``booked`` one, if
    not sent yet); run it under the driver's lock."""
    held = tokens.current()
    if held is not None:
        return held
    received_at = tokens.clock()
    call = core.token_call()
    sent = yield from send_flow(core, call, deadline=deadline, quota=quota, booked=booked)
    token = core.decode(call, sent)
    if not header_safe(token.access_token):  # h11 would refuse it, quoting it in its error
        raise APIResponseValidationError(
            f"{_where(core, call)}: the service issued an access token that cannot be sent "
            "in a header (not printable ASCII, or with surrounding spaces); not used",
            method=call.method,
            path=call.path,
        )
    issued_at = token.expires_at - token.expires_in
    return tokens.store(token.access_token, token.expires_in, received_at, issued_at=issued_at)


def send_flow(
    core: RequestCore,
    call: Call[Any],
    bearer: str | None = None,
    *,
    deadline: Deadline | None = None,
    pass_401: bool = False,
    quota: Quota | None = None,
    booked: Booked | None = None,
) -> Flow[httpx.Response]:
    """Send with retries by ``deadline``; return a 2xx response (or a 401 when asked) or raise.

    Without ``deadline`` the call gets the configured timeout from now. With ``quota``
    each request takes a call from the budget (the first, if ``booked`` still, as the one
    booked; ``_take_flow``) and each answer updates it.
    """
    if deadline is None:
        deadline = Deadline(call_seconds(core.config.timeout))
    started = deadline.clock()
    attempt = 0
    while True:
        if deadline.expired:
            raise deadline.error(_where(core, call))
        number = (
            0 if quota is None else (yield from _take_flow(core, quota, call, deadline, booked))
        )
        attempt += 1
        timeout = deadline.clamp(core.config.timeout)
        request = core.build(call, bearer=bearer, timeout=timeout)
        try:
            outcome: httpx.Response | httpx.RequestError = yield Send(request, deadline)
        except StoppedError:  # stopped before it went out: not sent, so not counted
            if quota is not None:
                quota.unsent(number)
            raise
        except BaseException:  # abandoned in flight (cancelled, interrupted): no answer is due
            if quota is not None:
                quota.unanswered(number)
            raise
        if quota is not None:
            if isinstance(outcome, httpx.Response):
                quota.observe(outcome, number)
            else:
                quota.unanswered(number)
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
        log_response(call, outcome, attempt, core.secrets(bearer))
        if outcome.is_success or (pass_401 and outcome.status_code == 401):
            return outcome
        delay = _delay_after_refusal(core, call, outcome, attempt, started, deadline, quota)
        yield Close(outcome)
        yield Sleep(delay)


def _take_flow(
    core: RequestCore, quota: Quota, call: Call[Any], deadline: Deadline, booked: Booked | None
) -> Flow[int]:
    """Take one call from the budget (the ``booked`` one, once), waiting for a reset within
    ``max_wait`` and the deadline; returns the call's number. A paced request not booked
    that the share has no room for waits as for a spent window."""
    while True:
        first = booked is not None and booked.first
        wait, number = quota._take(first, None if booked is None else booked.start)
        if wait <= 0:
            if booked is not None:
                booked.first = False
            return number
        left = deadline.remaining()
        if quota.pacing and (wait > quota.max_wait or (left is not None and wait > left)):
            raise WindowSpent  # a paced call waits for the reset however long, not in its timeout
        if wait > quota.max_wait:
            raise quota.exhausted(call.method, call.path, wait)
        if left is not None and wait > left:
            raise deadline.error(f"{_where(core, call)} (waiting {wait:.0f} s for the call budget)")
        for piece in waits(wait):
            yield Sleep(piece)


def _where(core: RequestCore, call: Call[Any]) -> str:
    return f"{call.method} {call.path} at {core.config.resolved_base_url}"


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
    quota: Quota | None = None,
) -> float:
    """Seconds to wait before resending after a non-2xx answer; raises its error when it may not.

    A ``Retry-After`` beyond what is left of the retry budget or the deadline
    raises at once, the error saying when to come back; one of the budget's 429
    (``spends_window``) beyond ``max_wait`` raises ``QuotaExhaustedError``. A paced call
    (``Quota.pacing``) raises ``WindowSpent`` instead for the budget's 429, once the quota
    holds the window's reset (it waits for that), and ``Refused`` for any other 429 that
    names its wait (it waits that out).
    """
    refused = response.status_code == 429
    budget = refused and spends_window(response.headers)
    if quota is not None and budget:
        error = core.error(call, response)
        if isinstance(error, RateLimitError) and (error.retry_after or 0) > quota.max_wait:
            if _waits_for_window(quota):
                raise WindowSpent
            raise quota.refused(error)
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
    if quota is not None and budget and _waits_for_window(quota):
        raise WindowSpent
    error = core.error(call, response)
    if quota is not None and refused and not budget and quota.pacing:
        wait = error.retry_after if isinstance(error, RateLimitError) else None
        if wait is not None and wait > 0:
            raise Refused(wait)  # a 429 asking for no wait, or none, is the error it is
    raise error


def _waits_for_window(quota: Quota) -> bool:
    """Whether a refused call waits for the window's reset: the work is paced and the quota
    holds a reset still to come (without one it would be sent again at once)."""
    if not quota.pacing:
        return False
    until = quota.seconds_to_reset()
    return until is not None and until > 0
