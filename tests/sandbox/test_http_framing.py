"""Requests the HTTP parser itself refuses, and heads that never finish: every answer is
the spec's error object, and no client holds a connection forever. Over raw sockets."""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from lyt_toolkit.cli import main
from lyt_toolkit.models import ErrorObject
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.server import MAX_REQUEST_HEAD_BYTES

from .rawhttp import RawConnection, send_bytes
from .serving import KEYS, refusing_to_serve, served

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

TIERS = "/v1/promotions/tiers"
VALIDATE = f"{TIERS}/promo_NwTier0001/validation"
HEAD_TIMEOUT = 0.5


@pytest.fixture(scope="module")
def quick() -> Iterator[Sandbox]:
    """A sandbox whose request heads and bodies may stall only half a second."""
    with Sandbox.start(
        now="2026-01-15T12:00:00Z", seed=7, head_timeout=HEAD_TIMEOUT, body_timeout=HEAD_TIMEOUT
    ) as sb:
        yield sb


def connect(base_url: str) -> socket.socket:
    parts = urlsplit(base_url)
    return socket.create_connection((parts.hostname, parts.port), timeout=10)


def error_answer(raw: bytes, status: int) -> dict[str, Any]:
    """The spec's error object from a whole raw answer, which closes the connection."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith(f"HTTP/1.1 {status} "), raw[:300]
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert int(headers["content-length"]) == len(body)
    error = json.loads(body)
    assert error["code"] == status and error["request_id"].startswith("req_")
    assert ErrorObject.model_validate(error).wire() == error
    return error


def drip(sock: socket.socket, seconds: float) -> tuple[bytes, float]:
    """Send one header byte every 50 ms until the server answers or closes (or ``seconds``
    pass); what it sent, and when it was done."""
    started = time.monotonic()
    received = b""
    while time.monotonic() - started < seconds:
        readable, _, _ = select.select([sock], [], [], 0.05)
        if readable:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break  # closed while a dripped byte was on its way: keep what came
            if not chunk:
                break
            received += chunk
            continue
        try:
            sock.sendall(b"x")
        except OSError:
            break
    return received, time.monotonic() - started


def test_a_request_head_dripped_byte_by_byte_is_408_within_the_head_timeout(
    quick: Sandbox,
) -> None:
    with connect(quick.base_url) as sock:
        sock.sendall(b"GET " + TIERS.encode() + b" HTTP/1.1\r\nHost: sandbox\r\nX-Slow: ")
        answer, took = drip(sock, seconds=8)
    error = error_answer(answer, 408)
    assert "request head" in error["details"] and error["key"] == "request_timeout"
    assert took < HEAD_TIMEOUT + 2


def test_a_head_dripped_after_a_keep_alive_answer_is_408_too(
    quick: Sandbox, key_headers: dict[str, str]
) -> None:
    head = "".join(f"{k}: {v}\r\n" for k, v in key_headers.items())
    with connect(quick.base_url) as sock:
        sock.sendall(f"GET {TIERS} HTTP/1.1\r\nHost: sandbox\r\n{head}\r\n".encode())
        first = b""
        while b"\r\n\r\n" not in first:
            first += sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 ")
        length = int(first.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        while len(first.partition(b"\r\n\r\n")[2]) < length:
            first += sock.recv(65536)
        sock.sendall(b"GET " + TIERS.encode() + b" HTTP/1.1\r\nX-Slow: ")
        answer, took = drip(sock, seconds=8)
    error_answer(answer, 408)
    assert took < HEAD_TIMEOUT + 2


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(quick: Sandbox) -> None:
    with connect(quick.base_url) as sock:
        started = time.monotonic()
        assert sock.recv(65536) == b""
    assert time.monotonic() - started < HEAD_TIMEOUT + 2


def test_a_slow_body_is_still_answered_by_the_body_timeout(
    quick: Sandbox, key_headers: dict[str, str]
) -> None:
    head = "".join(f"{k}: {v}\r\n" for k, v in key_headers.items())
    request = (
        f"POST {VALIDATE} HTTP/1.1\r\nHost: sandbox\r\n{head}"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{}"
    ).encode()
    error = error_answer(send_bytes(quick.base_url, request, timeout=10), 408)
    assert error["details"].startswith("body:")


@pytest.mark.parametrize(
    ("head", "named"),
    [
        (b"GET /v1/promotions/tiers\r\nHost: sandbox\r\n\r\n", "request line"),
        (b"BR\x00KEN / HTTP/1.1\r\nHost: sandbox\r\n\r\n", "request"),
        (
            b"POST /v1/promotions/tiers HTTP/1.1\r\nHost: sandbox\r\nContent-Length: ten\r\n\r\n",
            "Content-Length",
        ),
        (
            b"POST / HTTP/1.1\r\nHost: s\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "Content-Length",
        ),
        (b"GET / HTTP/1.1\r\nHost: sandbox\r\nBad Header: x\r\n\r\n", "header"),
    ],
)
def test_a_head_the_parser_refuses_is_400_as_an_error_object(
    sandbox: Sandbox, head: bytes, named: str
) -> None:
    error = error_answer(send_bytes(sandbox.base_url, head, timeout=10), 400)
    assert error["key"] == "invalid_request" and named in error["details"], error


def test_a_chunked_body_the_parser_refuses_is_400_naming_the_body(sandbox: Sandbox) -> None:
    request = (
        b"POST /v1/promotions/tiers HTTP/1.1\r\nHost: sandbox\r\n"
        b"Transfer-Encoding: chunked\r\n\r\nzz\r\n"
    )
    error = error_answer(send_bytes(sandbox.base_url, request, timeout=10), 400)
    assert error["details"].startswith("request body: illegal chunk header"), error


def test_a_transfer_coding_the_parser_lacks_is_501_as_an_error_object(sandbox: Sandbox) -> None:
    request = b"POST / HTTP/1.1\r\nHost: sandbox\r\nTransfer-Encoding: gzip\r\n\r\n"
    error = error_answer(send_bytes(sandbox.base_url, request, timeout=10), 501)
    assert (error["key"], error["message"]) == ("not_implemented", "Not implemented"), error
    assert "Transfer-Encoding" in error["details"]


def test_a_refused_header_value_is_not_repeated_in_the_answer(sandbox: Sandbox) -> None:
    head = b"GET / HTTP/1.1\r\nHost: sandbox\r\nX-App-Token: secret-\x00-token\r\n\r\n"
    answer = send_bytes(sandbox.base_url, head, timeout=10)
    error = error_answer(answer, 400)
    assert "header" in error["details"] and b"secret" not in answer


def test_headers_beyond_the_size_bound_are_431_as_an_error_object(sandbox: Sandbox) -> None:
    # Just past the bound, so the server has read every byte when it refuses and closes.
    head = b"GET / HTTP/1.1\r\nHost: sandbox\r\nX-Filler: "
    head += b"a" * (MAX_REQUEST_HEAD_BYTES + 100 - len(head))
    error = error_answer(send_bytes(sandbox.base_url, head, timeout=10), 431)
    assert "headers" in error["details"]


def test_serve_takes_body_and_head_timeouts() -> None:
    with served("--body-timeout", "0.5", "--head-timeout", "0.5") as (base_url, _):
        head = "".join(f"{k}: {v}\r\n" for k, v in KEYS.items())
        short_body = (
            f"POST {VALIDATE} HTTP/1.1\r\nHost: sandbox\r\n{head}"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{}"
        ).encode()
        started = time.monotonic()
        error_answer(send_bytes(base_url, short_body, timeout=10), 408)
        with connect(base_url) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nX-Slow: ")
            answer, _ = drip(sock, seconds=8)
        error_answer(answer, 408)
        assert time.monotonic() - started < 6  # both well within the default 10 s


@pytest.mark.parametrize(
    ("option", "value"),
    [("--body-timeout", "0"), ("--head-timeout", "-1"), ("--body-timeout", "nan")],
)
def test_serve_refuses_a_timeout_that_is_not_positive(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with refusing_to_serve():
        assert main(["sandbox", "serve", option, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lyt sandbox serve: {option}: must be a positive"), err


def test_a_connection_idle_for_longer_than_a_clients_keep_alive_is_still_open(
    sandbox: Sandbox, key_headers: dict[str, str]
) -> None:
    """An httpx client reuses a connection idle for up to 5 s: the sandbox keeps it open
    longer, so a request sent on it as it times out is never met by the close."""
    with RawConnection(sandbox.base_url) as conn:
        assert conn.request("GET", TIERS, key_headers).status == 200
        time.sleep(5.5)
        assert conn.request("GET", TIERS, key_headers).status == 200
