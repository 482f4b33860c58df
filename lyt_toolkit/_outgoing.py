"""Telling the work a call is made for that one of its requests is about to go out.

A batch of writes logs each item as attempted before its request may reach the service, so
a run that dies with it unanswered leaves it in doubt (read back before it is sent again). A
call may wait long before its first request goes out: a paced plan's item waits for its
window, up to an hour. Logged when it starts waiting, an item stopped meanwhile (Ctrl-C, a
Cancel, the client closed) would stay in doubt though nothing of it was sent; logged here,
just before its first request is written, it is in doubt only once something may have
reached the service.

A token request is the client's, for all the work it does, not the request of the call that
waited for it (``sending_shared``): it tells the work's ``shared`` hook instead, so an item
whose write waited for a token renewal is not attempted twice for one write sent, nor left in
doubt when it stops before its write goes out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["going_out", "sending_shared", "telling_before_sending"]

Hook = Callable[[], None]

_HOOKS: ContextVar[tuple[Hook, Hook] | None] = ContextVar("lyt_going_out", default=None)
"""The hook told before the work's own requests, and the one told before the client's."""
_SHARED: ContextVar[bool] = ContextVar("lyt_shared_request", default=False)


@contextmanager
def telling_before_sending(hook: Hook, *, shared: Hook | None = None) -> Iterator[None]:
    """Call ``hook`` before each request made in this block (in this thread, or a thread or
    task that takes its context) goes out, ``shared`` instead (when given) before a request
    of the client's own for all its work (its token request: ``sending_shared``); an error
    either raises stops the request unsent."""
    token = _HOOKS.set((hook, hook if shared is None else shared))
    try:
        yield
    finally:
        _HOOKS.reset(token)


@contextmanager
def sending_shared() -> Iterator[None]:
    """The requests made in this block are the client's for all its work (its token
    request), not the call's that waits for them: they tell the ``shared`` hook."""
    token = _SHARED.set(True)
    try:
        yield
    finally:
        _SHARED.reset(token)


def going_out() -> None:
    """A request of this context is about to go out: tell the work it is made for."""
    hooks = _HOOKS.get()
    if hooks is not None:
        hooks[1 if _SHARED.get() else 0]()
