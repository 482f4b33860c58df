"""The outermost guard of the sandbox: every request gets an answer in the one error shape.

A plain ASGI middleware (no buffering of the answer), placed inside Starlette's own
error middleware so a failure never reaches it: that one re-raises after answering
500, and the server then drops the keep-alive connection. Here:

- a URL longer than ``MAX_URL_BYTES`` is answered 414;
- a body longer than ``MAX_BODY_BYTES`` (declared or sent) is answered 413;
- a body that stops arriving for ``body_timeout`` seconds is answered 408 and the
  connection closed (a ``Content-Length`` larger than what was sent ends here);
- a JSON body holding a number the interface cannot carry (``NaN``, ``Infinity``, a
  float beyond the double range, an integer outside the signed 64-bit range) is
  answered 400 naming the field, as is a body nested deeper than ``MAX_DEPTH``;
- a JSON string (value or key) that is not text, a lone surrogate's escape such as
  ``"\\ud800"`` (no UTF-8 can carry it, nor the store keep it), is answered 400 naming
  the field (a URL cannot carry one: its percent-escapes decode as UTF-8, a stray byte
  to U+FFFD);
- anything else unexpected is answered 500, and the connection stays usable.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._unicode import lone_surrogate
from ..models.numbers import NumberProblem, first_problem
from .errors import ServiceError, bad_request
from .responses import error_response

log = logging.getLogger("lyt_toolkit.sandbox")

MAX_URL_BYTES = 16 * 1024
MAX_BODY_BYTES = 1024 * 1024
MAX_DEPTH = 64
BODY_TIMEOUT = 10.0


class _BodyTimeout(Exception):
    """The client stopped sending its body."""


class _Refused(Exception):
    def __init__(self, error: ServiceError) -> None:
        super().__init__(error.message)
        self.error = error


class GuardMiddleware:
    """See the module docstring."""

    def __init__(self, app: ASGIApp, body_timeout: float = BODY_TIMEOUT) -> None:
        self.app = app
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            _check_url(scope)
            receive = await self._read_body(scope, receive)
            await self.app(scope, receive, tracked_send)
        except _Refused as refused:
            await _answer(scope, send, refused.error, started)
        except _BodyTimeout:
            error = ServiceError(
                408, "request_timeout", "Request timeout", "body: the request body stopped arriving"
            )
            await _answer(scope, send, error, started, close=True)
        except Exception:
            log.exception("unexpected error on %s %s", scope.get("method"), scope.get("path"))
            await _answer(scope, send, ServiceError(500), started)

    async def _read_body(self, scope: Scope, receive: Receive) -> Receive:
        """The whole body read up front (bounded in size and time), checked, then replayed."""
        declared = _header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            raise _Refused(_too_large())
        # framed as empty (no length, no chunks): whole with the head, nothing to wait for
        empty = declared == "0" or (
            declared is None and _header(scope, b"transfer-encoding") is None
        )
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await (receive() if empty else self._in_time(receive))
            if message["type"] == "http.disconnect":
                return _replay_disconnect(receive)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise _Refused(_too_large())
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        _check_json(scope, body)
        return _replay(body, receive)

    async def _in_time(self, receive: Receive) -> Message:
        """The body's next message, within ``body_timeout``."""
        try:  # a deadline, not ``wait_for``: that makes a task of each ``receive``
            async with asyncio.timeout(self.body_timeout):
                return await receive()
        except TimeoutError as exc:
            raise _BodyTimeout from exc


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _replay_disconnect(receive: Receive) -> Receive:
    async def replay() -> Message:
        return {"type": "http.disconnect"}

    return replay


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return str(value.decode("latin-1").strip())
    return None


def _check_url(scope: Scope) -> None:
    length = len(scope.get("raw_path") or scope.get("path", "").encode()) + len(
        scope.get("query_string", b"")
    )
    if length > MAX_URL_BYTES:
        raise _Refused(
            ServiceError(
                414,
                "uri_too_long",
                "URI too long",
                f"url: {length} bytes, more than the {MAX_URL_BYTES} allowed",
            )
        )


def _too_large() -> ServiceError:
    return ServiceError(
        413,
        "payload_too_large",
        "Payload too large",
        f"body: more than the {MAX_BODY_BYTES} bytes allowed",
    )


def _check_json(scope: Scope, body: bytes) -> None:
    content_type = (_header(scope, b"content-type") or "").lower()
    if not body or "json" not in content_type:
        return
    try:
        document = json.loads(body, parse_constant=_constant)
    except RecursionError:
        raise _Refused(bad_request(f"body: nested deeper than {MAX_DEPTH} levels")) from None
    except (ValueError, UnicodeDecodeError):
        return  # malformed JSON: the framework names the position
    problem: NumberProblem | None = first_problem(document, MAX_DEPTH)
    if problem is not None:
        raise _Refused(bad_request(f"{problem.where}: {problem.reason}"))
    if _SURROGATE_ESCAPE.search(body):
        where = lone_surrogate(document)
        if where is not None:
            raise _Refused(bad_request(f"{where}: holds a lone surrogate, not UTF-8 text"))


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A surrogate's escape: only a body holding one can decode to a lone surrogate (its raw
UTF-8 bytes are not UTF-8; an escaped pair decodes to one character)."""


def _constant(name: str) -> float:
    """``NaN``, ``Infinity`` and ``-Infinity`` parse, so the walk can name their field."""
    return float(name.replace("Infinity", "inf"))


async def _answer(
    scope: Scope, send: Send, error: ServiceError, started: bool, *, close: bool = False
) -> None:
    if started:  # too late for an error object: the answer is already on its way
        raise RuntimeError("the sandbox failed while answering") from None
    request = Request(scope)
    response = error_response(request, error)
    if close:
        response.headers["Connection"] = "close"
    await response(scope, _no_receive, send)


async def _no_receive() -> Any:
    return {"type": "http.disconnect"}
