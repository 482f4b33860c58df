"""The two drivers of the send flow (``_flow``): one blocks, one awaits.

Each carries out the flow's steps with its own means (``httpx.Client`` and
``pause``, or ``httpx.AsyncClient`` and ``apause``) and guards
the token request with its own lock; the flow decides everything else.
A wait ends, and the call sends nothing more (``StoppedError``), once the client is
closed or the work the call is made for is stopped (``_stop``: a Ctrl-C, a Cancel).
A response, status line, headers and body, must be in by the call's
deadline: the async driver awaits it under ``asyncio.timeout``, the sync
driver sends it from a pooled thread and stops waiting at the deadline (a
server dripping its answer a byte at a time cannot hold a call). Redirects
are never followed, and every exception leaving a call is scrubbed of the
credentials. In a child forked after the client was used, the first call opens a
connection pool of the child's own (the inherited connections are the parent's).
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from typing import Any, TypeVar

import httpx

from .._outgoing import going_out, sending_shared
from .._services import HOLDS_HEADER
from .._stop import Cause, Stop, apause, halt, pause, work_stops
from ..errors import ConfigurationError, LytError, StoppedError
from ..pull.sent import atracer, sent_notice, tracer
from ._auth import TokenCache
from ._core import Call, RequestCore
from ._deadline import Deadline
from ._flow import (
    Bearer,
    Booked,
    Close,
    Done,
    Flow,
    Raised,
    Send,
    Sleep,
    Step,
    WindowSpent,
    advance,
    request_flow,
    token_flow,
)
from ._scrub import Scrubber
from ._senders import SENDERS
from ._tls import default_tls
from .quota import Quota
from .recording import Recorder

T = TypeVar("T")


class _Driver:
    """What both drivers hold: the request core, the token cache, the call budget, who closes
    the pool, and whether the pool came from a parent process (``fork``)."""

    def __init__(self, core: RequestCore, *, owns_http_client: bool) -> None:
        self.core = core
        self.owns_http_client = owns_http_client
        self.tokens = TokenCache(core.config.token_refresh_skew)
        config = core.config
        self.quota = Quota(
            max_wait=config.max_wait, rate=config.rate, cycle_calls=config.cycle_calls
        )
        self.scrubber = Scrubber(self.secrets)
        self.recorder: Recorder | None = None
        """Where GET answers are kept and recalled (``recording``), while one is set."""
        self.holds: str | None = None
        """What the service last said it holds (a sandbox's ``HOLDS_HEADER``); None until an
        answer says."""
        self.forked = False
        """True in a forked child until its first call replaces the parent's pool."""
        self._fork_lock = threading.Lock()
        self._closing = Stop()
        _DRIVERS.add(self)

    def after_fork(self) -> None:
        """In a child just forked (one thread, nothing running): new locks, since another
        thread of the parent may have held one; the pool is replaced by the next call."""
        self.forked = True
        self._fork_lock = threading.Lock()
        self._closing = Stop()
        self.quota.after_fork()

    def stops(self) -> tuple[Cause, ...]:
        """What stops a call starting now: the client closed, the work it is made for stopped."""
        return (Cause(self._closing, "the client was closed"), *work_stops())

    def stop_waits(self) -> None:
        """Stop every wait of the calls under way (they send nothing more); a call started
        after this one is not stopped by it (a pool the caller owns stays usable)."""
        closing, self._closing = self._closing, Stop()
        closing.set()

    def _pool_of_this_process(self) -> None:
        """After a fork, a pool of this process's own: the parent's connections are left
        alone (not even closed: the parent may be using them)."""
        with self._fork_lock:
            if not self.forked:
                return
            if not self.owns_http_client:
                raise ConfigurationError(
                    "this client was given its http_client in the process it was forked from,"
                    " whose connections are that process's: create the client (and its"
                    " http_client) anew in this process"
                )
            self._new_pool()
            self.forked = False

    def _new_pool(self) -> None:
        raise NotImplementedError  # each driver opens its own kind

    def secrets(self) -> list[str]:
        """Every credential this client holds or was issued."""
        return self.core.secrets(None) + self.tokens.issued()

    def heard(
        self, outcome: httpx.Response | httpx.RequestError
    ) -> httpx.Response | httpx.RequestError:
        """``outcome``, what an answer says the service holds noted in ``holds``."""
        if isinstance(outcome, httpx.Response):
            said = outcome.headers.get(HOLDS_HEADER)
            if said is not None:
                self.holds = said
        return outcome


_DRIVERS: weakref.WeakSet[_Driver] = weakref.WeakSet()
"""Every live transport, told when this process is a child just forked."""


def _after_fork_in_child() -> None:
    for driver in list(_DRIVERS):
        driver.after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)


class _OwnedPool(httpx.Client):
    """The pool a sync transport opens for itself: closed when it is dropped unclosed (a
    client rebound in a notebook cell, never closed), so its connections do not linger
    until the process ends. Only in the process that opened it: a forked child leaves the
    parent's connections alone. (An async pool is not: closing it wants its own event loop,
    which may be gone by then.)"""

    def __init__(self) -> None:
        super().__init__(verify=default_tls())
        self._opened_by = os.getpid()

    def __del__(self) -> None:
        try:
            if os.getpid() == self._opened_by and not self.is_closed:
                self.close()
        except Exception:  # a finaliser must not raise, and nothing is left to do
            pass


def _stopped_or_told(stops: tuple[Cause, ...]) -> Raised | None:
    """Before a request goes out: ``Raised`` when the work is stopped (the flow takes back
    the call it counted), else None, the work it is made for told first (an item of a batch
    logs its own, and counts a token request the client sent for it: ``_outgoing``)."""
    try:
        halt(stops)
    except StoppedError as stopped:
        return Raised(stopped)
    going_out()
    return None


def _late(step: Send) -> httpx.ReadTimeout:
    return httpx.ReadTimeout(
        "the call's deadline passed before the answer was in", request=step.request
    )


def _sent(http: httpx.Client, step: Send) -> httpx.Response | httpx.RequestError:
    """The read response of ``step``, or the transport error (no redirect followed)."""
    try:
        return _unlinked(http.send(step.request, follow_redirects=False))
    except httpx.RequestError as exc:
        return exc


_READ = httpx.ByteStream(b"")


def _unlinked(response: httpx.Response) -> httpx.Response:
    """``response`` (read) without its stream, which points back at the response: in that
    cycle a response and its body wait for the cycle collector instead of going as soon
    as they are dropped (a pull's pages piled up until the collector's next pass)."""
    response.stream = _READ
    return response


class SyncTransport(_Driver):
    """Sends calls over an ``httpx.Client``; safe to share between threads."""

    def __init__(self, core: RequestCore, http_client: httpx.Client | None = None) -> None:
        super().__init__(core, owns_http_client=http_client is None)
        self.http = http_client if http_client is not None else _OwnedPool()
        self._token_lock = threading.Lock()

    def after_fork(self) -> None:
        super().after_fork()
        self._token_lock = threading.Lock()

    def _new_pool(self) -> None:
        self.http = _OwnedPool()

    def close(self) -> None:
        """Stop the calls waiting (``stop_waits``), then close the connection pool unless the
        caller owns it (or a parent process does)."""
        self.stop_waits()
        if self.owns_http_client and not self.forked:
            self.http.close()

    def request(self, call: Call[T]) -> T:
        """Send ``call`` with its family's credentials and return its decoded answer."""
        return self.run(request_flow(self.core, self.tokens, call, self.quota, self.recorder))

    def bearer(
        self, deadline: Deadline, stops: tuple[Cause, ...] = (), booked: Booked | None = None
    ) -> tuple[str, int]:
        """A valid token for ``/v2``; one thread fetches while the others wait for it (its
        request the ``booked`` one of its call, if not sent yet, and the client's, not the
        call's: ``_outgoing.sending_shared``)."""
        held = self.tokens.current()
        if held is not None:
            return held
        left = deadline.remaining()
        if not self._token_lock.acquire(timeout=-1 if left is None else left):
            raise deadline.error("waiting for the token another thread requests")
        try:
            flow = token_flow(self.core, self.tokens, deadline, self.quota, booked)
            with sending_shared():
                return self._drive(flow, stops)
        finally:
            self._token_lock.release()

    def run(self, flow: Flow[T]) -> T:
        """Drive ``flow`` to its end, blocking on each step; errors leave scrubbed."""
        try:
            if self.forked:
                self._pool_of_this_process()
            return self._drive(flow, self.stops())
        except LytError as exc:
            raise self.scrubber.exception(exc) from exc.__cause__

    def _drive(self, flow: Flow[T], stops: tuple[Cause, ...]) -> T:
        """``flow``'s value; a flow left part-way (an error, a stop) is closed at once."""
        try:
            step = advance(flow, None)
            while not isinstance(step, Done):
                step = advance(flow, self._perform(step, stops))
            return step.value
        finally:
            flow.close()

    def _perform(self, step: Step, stops: tuple[Cause, ...]) -> Any:
        if isinstance(step, Send):
            if (stopped := _stopped_or_told(stops)) is not None:
                return stopped
            return self.heard(self._receive(step))
        if isinstance(step, Sleep):
            pause(step.seconds, stops)
        elif isinstance(step, Close):
            step.response.close()
        elif isinstance(step, Bearer):
            try:
                return self.bearer(step.deadline, stops, step.booked)
            except WindowSpent as spent:  # the flow waits for the window, the lock released
                return Raised(spent)
        return None

    def _receive(self, step: Send) -> httpx.Response | httpx.RequestError:
        """The response with its body by the deadline, or the error (late: a ``ReadTimeout``).

        With a deadline the request goes out from a daemon thread of ``SENDERS``, and
        this one waits for it at most the time left: the thread may stay behind on a
        server still dripping, bounded by each read's timeout, but the call is over in time.
        """
        notice = sent_notice()
        if notice is not None:  # a read-ahead waits for this request to go out
            step.request.extensions["trace"] = tracer(notice)
        left = step.deadline.remaining()
        if left is None:
            return _sent(self.http, step)
        outcome: list[httpx.Response | httpx.RequestError | BaseException] = []
        done = threading.Event()

        def send() -> None:
            try:
                outcome.append(_sent(self.http, step))
            except BaseException as exc:  # handed to the caller's thread below
                outcome.append(exc)
            finally:
                done.set()

        SENDERS.submit(send)
        if not done.wait(left):
            return _late(step)
        found = outcome[0]
        if isinstance(found, httpx.Response | httpx.RequestError):
            return found
        raise found


class AsyncTransport(_Driver):
    """Sends calls over an ``httpx.AsyncClient``; safe to share between tasks."""

    def __init__(self, core: RequestCore, http_client: httpx.AsyncClient | None = None) -> None:
        super().__init__(core, owns_http_client=http_client is None)
        self.http = (
            http_client if http_client is not None else httpx.AsyncClient(verify=default_tls())
        )
        self._token_locks: dict[int, asyncio.Lock] = {}

    def after_fork(self) -> None:
        super().after_fork()
        self._token_locks = {}

    def _new_pool(self) -> None:
        self.http = httpx.AsyncClient(verify=default_tls())

    async def aclose(self) -> None:
        """Stop the calls waiting (``stop_waits``), then close the connection pool unless the
        caller owns it (or a parent process does)."""
        self.stop_waits()
        if self.owns_http_client and not self.forked:
            await self.http.aclose()

    async def request(self, call: Call[T]) -> T:
        """Async twin of ``SyncTransport.request``."""
        return await self.run(request_flow(self.core, self.tokens, call, self.quota, self.recorder))

    def _lock(self) -> asyncio.Lock:
        # One lock per event loop: a lock bound to a finished loop cannot be reused.
        loop_id = id(asyncio.get_running_loop())
        lock = self._token_locks.get(loop_id)
        if lock is None:
            self._token_locks = {loop_id: asyncio.Lock()}
            lock = self._token_locks[loop_id]
        return lock

    async def bearer(
        self, deadline: Deadline, stops: tuple[Cause, ...] = (), booked: Booked | None = None
    ) -> tuple[str, int]:
        """A valid token for ``/v2``; one task fetches while the others await it (as
        ``SyncTransport.bearer``)."""
        held = self.tokens.current()
        if held is not None:
            return held
        lock = self._lock()
        try:
            await asyncio.wait_for(lock.acquire(), deadline.remaining())
        except TimeoutError:
            raise deadline.error("waiting for the token another task requests") from None
        try:
            flow = token_flow(self.core, self.tokens, deadline, self.quota, booked)
            with sending_shared():
                return await self._drive(flow, stops)
        finally:
            lock.release()

    async def run(self, flow: Flow[T]) -> T:
        """Drive ``flow`` to its end, awaiting each step; errors leave scrubbed."""
        try:
            if self.forked:
                self._pool_of_this_process()
            return await self._drive(flow, self.stops())
        except LytError as exc:
            raise self.scrubber.exception(exc) from exc.__cause__

    async def _drive(self, flow: Flow[T], stops: tuple[Cause, ...]) -> T:
        """Async twin of ``SyncTransport._drive``."""
        try:
            step = advance(flow, None)
            while not isinstance(step, Done):
                step = advance(flow, await self._perform(step, stops))
            return step.value
        finally:
            flow.close()

    async def _perform(self, step: Step, stops: tuple[Cause, ...]) -> Any:
        if isinstance(step, Send):
            if (stopped := _stopped_or_told(stops)) is not None:
                return stopped
            try:
                async with asyncio.timeout(step.deadline.remaining()):
                    return self.heard(await self._receive(step))
            except TimeoutError:
                return _late(step)
        if isinstance(step, Sleep):
            await apause(step.seconds, stops)
        elif isinstance(step, Close):
            await step.response.aclose()
        elif isinstance(step, Bearer):
            try:
                return await self.bearer(step.deadline, stops, step.booked)
            except WindowSpent as spent:  # the flow waits for the window, the lock released
                return Raised(spent)
        return None

    async def _receive(self, step: Send) -> httpx.Response | httpx.RequestError:
        """Async twin of ``SyncTransport._receive`` (``_perform`` bounds it by the deadline)."""
        notice = sent_notice()
        if notice is not None:  # a read-ahead waits for this request to go out
            step.request.extensions["trace"] = atracer(notice)
        try:
            return _unlinked(await self.http.send(step.request, follow_redirects=False))
        except httpx.RequestError as exc:
            return exc
