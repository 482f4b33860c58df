"""Telling a read-ahead that the request it waits for has gone out.

A pull fetches the next page in a worker thread while the caller turns the
current one into rows. Both need the GIL, and a thread waiting for it can wait
a whole switch interval (5 ms) while the other computes: if the caller starts
first, the next request only leaves once the caller's work is done, and the
pull runs at the speed of fetch plus work instead of the slower of the two.
So the read-ahead waits, briefly, until its worker's request is written to the
socket (httpcore's ``send_request_body.complete`` trace event, HTTP/1.1 or 2) before handing
the caller its page; the server then works while the caller does.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["atracer", "sent_notice", "telling", "tracer"]

_SENT: ContextVar[Callable[[], None] | None] = ContextVar("lyt_request_sent", default=None)
_WRITTEN = ".send_request_body.complete"
"""The end of httpcore's trace event once a request is written (``http11.`` or ``http2.``)."""


@contextmanager
def telling(sent: Callable[[], None]) -> Iterator[None]:
    """Call ``sent`` when a request made in this context (thread, or task created inside)
    has been written."""
    token = _SENT.set(sent)
    try:
        yield
    finally:
        _SENT.reset(token)


def sent_notice() -> Callable[[], None] | None:
    """What to call once this context's request is written (None: nobody waits for it)."""
    return _SENT.get()


def tracer(sent: Callable[[], None]) -> Callable[[str, Any], None]:
    """An httpcore ``trace`` extension calling ``sent`` when the request body is written."""

    def trace(event: str, info: Any) -> None:
        if event.endswith(_WRITTEN):
            sent()

    return trace


def atracer(sent: Callable[[], None]) -> Callable[[str, Any], Coroutine[Any, Any, None]]:
    """Async twin of ``tracer`` (httpcore awaits an async client's trace extension)."""
    traced = tracer(sent)

    async def trace(event: str, info: Any) -> None:
        traced(event, info)

    return trace
