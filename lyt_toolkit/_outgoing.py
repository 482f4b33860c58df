"""Telling the work a call is made for that one of its requests is about to go out.

A batch of writes logs each item as attempted before its request may reach the service, so
a run that dies with it unanswered leaves it in doubt (read back before it is sent again). A
call may wait long before its first request goes out: a paced plan's item waits for its
window, up to an hour. Logged when it starts waiting, an item stopped meanwhile (Ctrl-C, a
Cancel, the client closed) would stay in doubt though nothing of it was sent; logged here,
just before its first request is written, it is in doubt only once something may have
reached the service.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["going_out", "telling_before_sending"]

_HOOK: ContextVar[Callable[[], None] | None] = ContextVar("lyt_going_out", default=None)


@contextmanager
def telling_before_sending(hook: Callable[[], None]) -> Iterator[None]:
    """Call ``hook`` before each request made in this block (in this thread, or a thread or
    task that takes its context) goes out; an error it raises stops the request unsent."""
    token = _HOOK.set(hook)
    try:
        yield
    finally:
        _HOOK.reset(token)


def going_out() -> None:
    """A request of this context is about to go out: tell the work it is made for."""
    hook = _HOOK.get()
    if hook is not None:
        hook()
