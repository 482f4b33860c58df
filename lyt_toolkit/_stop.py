"""Stopping the toolkit's own waits at once: a Ctrl-C, a Cancel, a client closed.

A call may wait before it is sent: a retry's back-off or ``Retry-After``, a spent budget's
reset, a paced pull's next window (up to an hour). A sync client waits in the calling thread,
where a ``time.sleep`` cannot be cut short: a Ctrl-C reaches only the main thread, so the
worker threads of a pull slept on (the interpreter's exit waits for them) and then sent. So
every such wait is ``pause`` (``apause`` for an async client), which ends as soon as one of
the call's stops is set; the client then sends nothing more for the call (``StoppedError``).

A call's stops are its client's own (set when the client is closed) and those of the work it
is made for, held by its context (``stopping``; a task started inside inherits them, and so
does the work handed to a ``StoppablePool``): a pull stops the calls it made from worker
threads when it is cancelled, a batch of writes its items' on Cancel, and a pool the calls
of its threads when the block using it ends by an exception (a Ctrl-C). A ``Stop`` wakes
every wait under it at once; any other ``threading.Event`` (a caller's own cancel event) is
looked at every ``POLL`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from .errors import StoppedError

__all__ = [
    "POLL",
    "Cause",
    "Stop",
    "StoppablePool",
    "apause",
    "halt",
    "pause",
    "stopping",
    "work_stops",
]

T = TypeVar("T")

POLL = 0.1
"""Seconds between looks at a stop that is a plain ``threading.Event``."""


class Stop(threading.Event):
    """A ``threading.Event`` whose ``set`` also wakes every ``pause`` it stops, at once."""

    def __init__(self) -> None:
        super().__init__()
        self._wakers: set[Callable[[], None]] = set()
        self._wakers_lock = threading.Lock()

    def set(self) -> None:
        super().set()
        with self._wakers_lock:
            wakers = list(self._wakers)
        for wake in wakers:
            wake()

    def _watch(self, wake: Callable[[], None]) -> None:
        with self._wakers_lock:
            self._wakers.add(wake)

    def _unwatch(self, wake: Callable[[], None]) -> None:
        with self._wakers_lock:
            self._wakers.discard(wake)


@dataclass(frozen=True)
class Cause:
    """A stop and what setting it means (``the client was closed``)."""

    event: threading.Event
    reason: str
    sends: bool = True
    """Whether it stops a request about to go out too, not only a wait (a Cancel lets the
    requests under way go out, and stops only those waiting to be sent again)."""


_WORK: ContextVar[tuple[Cause, ...]] = ContextVar("lyt_work_stops", default=())


@contextlib.contextmanager
def stopping(event: threading.Event, reason: str, *, sends: bool = True) -> Iterator[None]:
    """The calls made in this block (in this thread, or a thread or task started inside that
    takes its context) stop waiting and send nothing more once ``event`` is set: ``reason``;
    with ``sends=False`` a request about to go out still goes (``Cause.sends``)."""
    token = _WORK.set((*_WORK.get(), Cause(event, reason, sends)))
    try:
        yield
    finally:
        _WORK.reset(token)


def work_stops() -> tuple[Cause, ...]:
    """The stops of the work this context's calls are made for (``stopping``)."""
    return _WORK.get()


class StoppablePool(ThreadPoolExecutor):
    """A thread pool whose work is done under the stops of the thread that hands it over,
    and under the pool's own ``stop``: set when the ``with`` block ends by an exception (a
    Ctrl-C), so the pool's exit waits for the answers in flight, never for a retry's
    back-off or a window's reset, and nothing more is sent."""

    def __init__(self, max_workers: int, reason: str, thread_name_prefix: str = "") -> None:
        super().__init__(max_workers, thread_name_prefix=thread_name_prefix)
        self.stop = Stop()
        self._cause = Cause(self.stop, reason)

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        stops = (*work_stops(), self._cause)
        return super().submit(_under, stops, fn, *args, **kwargs)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        if exc_type is not None:
            self.stop.set()
        return super().__exit__(exc_type, exc_val, exc_tb)


def _under(stops: tuple[Cause, ...], fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` with ``stops`` as the stops of its calls."""
    token = _WORK.set(stops)
    try:
        return fn(*args, **kwargs)
    finally:
        _WORK.reset(token)


def halt(stops: tuple[Cause, ...], *, waiting: bool = False) -> None:
    """``StoppedError`` giving the reason of the first of ``stops`` that is set, if any: of
    those that stop a request about to go out (``Cause.sends``), or ``waiting``, any."""
    for cause in stops:
        if cause.event.is_set() and (waiting or cause.sends):
            raise StoppedError(f"not sent: {cause.reason}")


def pause(seconds: float, stops: tuple[Cause, ...]) -> None:
    """Wait ``seconds``, or until one of ``stops`` is set: then ``StoppedError``."""
    woken = threading.Event()
    end = time.monotonic() + seconds
    with _watching(stops, woken.set) as poll:
        while (left := end - time.monotonic()) > 0 and not woken.is_set():
            halt(stops, waiting=True)
            woken.wait(left if poll is None else min(left, poll))
    halt(stops, waiting=True)


async def apause(seconds: float, stops: tuple[Cause, ...]) -> None:
    """Async twin of ``pause`` (a task cancelled ends it too, as any await)."""
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake() -> None:  # from whichever thread set the stop
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: no one waits
            loop.call_soon_threadsafe(woken.set)

    end = loop.time() + seconds
    with _watching(stops, wake) as poll:
        while (left := end - loop.time()) > 0 and not woken.is_set():
            halt(stops, waiting=True)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left if poll is None else min(left, poll)):
                    await woken.wait()
    halt(stops, waiting=True)


@contextlib.contextmanager
def _watching(stops: tuple[Cause, ...], wake: Callable[[], None]) -> Iterator[float | None]:
    """``wake`` called when any ``Stop`` of ``stops`` is set, within the block; the block
    is given ``POLL`` when some other stop must be looked at now and then, else None."""
    watched = [cause.event for cause in stops if isinstance(cause.event, Stop)]
    for stop in watched:
        stop._watch(wake)
    try:
        yield None if len(watched) == len(stops) else POLL
    finally:
        for stop in watched:
            stop._unwatch(wake)
