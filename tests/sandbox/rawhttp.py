"""Requests a well-behaved client would never send, over one raw keep-alive socket.

``RawConnection`` speaks HTTP/1.1 through h11 on a plain socket, so a test can send
a request line of any length, or several requests on the same connection and see whether
the server kept it open; ``send_bytes`` writes bytes no HTTP library would (a body
shorter than its ``Content-Length``).
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import h11


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class ConnectionDropped(Exception):
    """The server closed the connection instead of answering."""


class RawConnection:
    """One TCP connection to ``base_url``; every wait on it is bounded by ``timeout``."""

    def __init__(self, base_url: str, timeout: float = 10.0) -> None:
        parts = urlsplit(base_url)
        self.host = f"{parts.hostname}:{parts.port}"
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        self.conn = h11.Connection(our_role=h11.CLIENT)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> RawConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(
        self,
        method: str,
        target: str,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
    ) -> RawResponse:
        """Send one request and read its answer on this connection."""
        if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
            self.conn.start_next_cycle()
        head = [("Host", self.host), *(headers or {}).items()]
        if body:
            head.append(("Content-Length", str(len(body))))
        data = self.conn.send(h11.Request(method=method, target=target, headers=head)) or b""
        if body:
            data += self.conn.send(h11.Data(data=body)) or b""
        data += self.conn.send(h11.EndOfMessage()) or b""
        self.sock.sendall(data)
        return self.read_response()

    def read_response(self) -> RawResponse:
        status, headers, chunks = 0, {}, []
        while True:
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                data = self.sock.recv(65536)
                if not data and status == 0:
                    raise ConnectionDropped("the server closed the connection without an answer")
                self.conn.receive_data(data)
            elif isinstance(event, h11.Response):
                status = event.status_code
                headers = {k.decode().lower(): v.decode() for k, v in event.headers}
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return RawResponse(status, headers, b"".join(chunks))


def send_bytes(base_url: str, data: bytes, timeout: float) -> bytes:
    """Write ``data`` as is, then read until the server closes (or ``timeout`` passes)."""
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(data)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            pass
        return received
