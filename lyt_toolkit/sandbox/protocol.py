"""The sandbox's HTTP/1.1 connections: uvicorn's h11 protocol with two repairs.

- A request head (request line and headers) must arrive whole within
  ``head_timeout`` seconds of the connection opening or the previous answer
  ending; a client that drips it is answered 408 and disconnected (one that sent
  nothing at all is simply disconnected). Data arriving does not restart the clock.
- A head the parser refuses (a malformed request line, a bad ``Content-Length``,
  headers beyond the size bound), or a chunked body it cannot read, is answered with
  the spec's error object, like every other failure, instead of uvicorn's plain text.

Both answers close the connection: after them the byte stream cannot be trusted.

And one economy: an answer's head is written together with its body's first bytes, one
socket write (and one segment for the client to read) where uvicorn makes two.
"""

from __future__ import annotations

import asyncio
import json
import re
from http import HTTPStatus
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .errors import ServiceError, new_request_id

HEAD_TIMEOUT = 10.0

_ECHOED_VALUE = re.compile(r"[:\s]+(?:bytearray\()?b?['\"].*$", re.DOTALL)
"""The tail of a parser message that repeats what the client sent (it could hold a token)."""


class _RecordingConnection(h11.Connection):
    """An h11 connection that remembers why it last refused the client's bytes."""

    refusal: h11.RemoteProtocolError | None = None

    def next_event(self) -> Any:
        try:
            return super().next_event()
        except h11.RemoteProtocolError as exc:
            self.refusal = exc
            raise


class _HeadWithBody:
    """The transport one request's answer is written to: its head (the first write once
    the answer's body may follow) is held and written with the body's first bytes, or
    on the next turn of the event loop if the body is not ready by then."""

    def __init__(self, transport: asyncio.Transport, conn: h11.Connection) -> None:
        self._transport, self._conn = transport, conn
        self._head: bytes | None = None
        self._head_seen = False

    def write(self, data: bytes) -> None:
        if self._head is not None:
            data, self._head = self._head + data, None
        elif not self._head_seen and self._conn.our_state is h11.SEND_BODY:
            self._head_seen = True
            self._head = bytes(data)
            asyncio.get_running_loop().call_soon(self._flush)
            return
        self._transport.write(data)

    def _flush(self) -> None:
        if self._head is not None and not self._transport.is_closing():
            self._transport.write(self._head)
        self._head = None

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class SandboxH11Protocol(H11Protocol):
    """See the module docstring; ``protocol_class`` sets the head timeout."""

    head_timeout: float = HEAD_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.parser = _RecordingConnection(h11.SERVER, self.conn._max_incomplete_event_size)
        self.conn = self.parser
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_due = 0.0  # the event loop's time by which the next head must be whole

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not None and self.cycle is not cycle:  # a request's answer begins
            self.cycle.transport = _HeadWithBody(self.transport, self.conn)  # type: ignore[assignment]

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            self._arm_head_timer()  # the next request's head gets the same allowance
        super().on_response_complete()

    def send_400_response(self, msg: str) -> None:
        refusal = self.parser.refusal
        status = refusal.error_status_hint if refusal is not None else 400
        reason = _ECHOED_VALUE.sub("", str(refusal)) if refusal is not None else "malformed"
        if status == 431:
            error = ServiceError(
                431,
                "request_header_fields_too_large",
                "Request header fields too large",
                f"headers: more than the {self.conn._max_incomplete_event_size} bytes allowed",
            )
        else:
            part = "body" if self._reading_body() else "head"
            error = ServiceError(
                status, details=f"request {part}: {reason or 'malformed'} (HTTP/1.1 framing)"
            )
        self._answer_and_close(error)

    def _reading_body(self) -> bool:
        """Whether a request's head was taken and its answer is not sent yet."""
        return self.cycle is not None and not self.cycle.response_complete

    def _arm_head_timer(self) -> None:
        """The next head is due ``head_timeout`` seconds from now. A timer already set (due
        earlier) is left to run and, when it does, set again for the new due time: one
        timer a connection rather than one made and cancelled with every answer."""
        self._head_due = self.loop.time() + self.head_timeout
        if self._head_timer is None:
            self._head_timer = self.loop.call_at(self._head_due, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        timer, self._head_timer = self._head_timer, None
        if timer is not None and timer.when() < self._head_due:  # answered since it was set
            self._head_timer = self.loop.call_at(self._head_due, self._head_timed_out)
            return
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return  # the head arrived: the body timeout and the app take it from here
        if not self.conn.trailing_data[0]:
            self.transport.close()  # an idle connection: nothing to answer
            return
        self._answer_and_close(
            ServiceError(
                408,
                "request_timeout",
                "Request timeout",
                f"request head: not complete within {self.head_timeout:g} seconds",
            )
        )

    def _answer_and_close(self, error: ServiceError) -> None:
        self.transport.write(error_bytes(error))
        self.transport.close()


def error_bytes(error: ServiceError) -> bytes:
    """A whole HTTP/1.1 answer carrying ``error``'s object, closing the connection."""
    body = json.dumps(error.body(new_request_id()), separators=(",", ":")).encode()
    phrase = HTTPStatus(error.status).phrase
    head = (
        f"HTTP/1.1 {error.status} {phrase}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def protocol_class(head_timeout: float) -> type[SandboxH11Protocol]:
    """The protocol for uvicorn's ``http`` setting, with this head timeout."""
    return type("SandboxH11Protocol", (SandboxH11Protocol,), {"head_timeout": head_timeout})
