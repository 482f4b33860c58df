"""A small HTTP server that misbehaves on purpose, for the client's hostile-server tests.

It speaks just enough HTTP/1.1 (one request per connection) on 127.0.0.1 at a
random port, from a thread running its own event loop, so a test controls
every byte: a body dripped one byte at a time, bodies that are not JSON, error
messages echoing the request's headers, a status line and headers dripped
one byte at a time, cursors that never end, a day-long
``Retry-After``, redirects to another host, a year-1 timestamp. Routes:

==========================================  ==========================================
``POST /oauth/token``                        a token (``BEARER``), counted in ``tokens``
``GET /v2/loyalties/rewards``                a new cursor on every page for ``pages``
                                             pages; with ``limit=2`` the same cursor
``GET /v2/loyalties/rewards/<id>``           by ID, see ``REWARD_IDS``
``GET /v1/echo``, ``/v2/echo``,              400 whose message, details and body hold
``/management/v1/echo``                      every request header
``GET /v1/denied``, ``/v2/denied``,          401
``/management/v1/denied``
``GET /v1/redirect``                         301 to ``http://localhost:<port>/v1/landed``
``GET /v1/landed``                           200 (counted: a followed redirect lands here)
==========================================  ==========================================

``hits`` counts requests by path. Every wait is bounded: a drip ends after
``DRIP_BYTES`` bytes and a silent connection is dropped after 10 s.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

BEARER = "bearer-SECRET-7c4d19e0aa"
DRIP_BYTES = 40
"""Bytes of the slow body sent one at a time (the rest comes at once)."""
IDLE_LIMIT = 10.0

REWARD: dict[str, Any] = {
    "id": "lrew_c0ffee0020",
    "name": "Miles for Beans",
    "type": "DIGITAL",
    "status": "DRAFT",
    "start_date": None,
    "end_date": None,
    "validity_hours": {"type": "ANY_TIME"},
    "digital": {
        "type": "LOYALTY_CARD_POINTS",
        "loyalty_card_points": {"points": 100, "card_definition_id": "lcdef_c0ffee0001"},
    },
    "refunds": {"type": "NONE"},
    "costs": [],
    "purchase_limits": {
        "cooldown": {"type": "NO_COOLDOWN"},
        "frequency": {"type": "NO_LIMIT", "limits": []},
    },
    "metadata": {},
    "created_at": "2025-12-05T20:00:00.000Z",
    "updated_at": None,
    "object": "reward",
}
"""A valid reward as the service sends it."""

REWARD_IDS = {
    "drip": "lrew_0000000d01",
    "drip_headers": "lrew_0000000d02",
    "unavailable": "lrew_0000000503",
    "rate_limited": "lrew_0000000429",
    "budget_spent": "lrew_0000000430",
    "garbage": "lrew_00000000ba",
    "year_one": "lrew_000000000d",
    "bad_gzip": "lrew_0000000f2a",
    "surrogate": "lrew_00000000d8",
    "deep_surrogate": "lrew_0000000dd8",
}
"""Reward IDs by behaviour: a dripped body; a dripped status line and headers; 503 with
``Retry-After: 0.3`` every time; 429 with ``Retry-After: 86400``, of no budget, and one of
the call budget (``X-Rate-Limit-Type: api_calls``); a 200 that is not JSON;
a ``created_at`` in year 1; a 200 whose body is not the gzip its ``Content-Encoding`` says;
a name and a metadata key holding a lone surrogate (``"\\ud800"``), next to a paired one;
a 404 whose message holds a lone surrogate, next to arrays nested deeper than Python
decodes."""


@dataclass
class _Answer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    reason: str = "OK"
    drip: float | None = None
    """Seconds between the last ``DRIP_BYTES`` bytes of the body, if dripped."""
    drip_head: float | None = None
    """Seconds between the first ``DRIP_BYTES`` bytes of the status line, if dripped."""


def _json(status: int, value: Any, reason: str = "OK", **headers: str) -> _Answer:
    body = json.dumps(value).encode()
    return _Answer(status, body, {"Content-Type": "application/json", **headers}, reason)


def _error(status: int, key: str, message: str, reason: str, **extra: Any) -> _Answer:
    return _json(status, {"code": status, "key": key, "message": message, **extra}, reason)


class MisbehavingServer:
    """Serve in a background thread; use ``with MisbehavingServer.running() as server``."""

    def __init__(self, *, drip_interval: float = 0.25, pages: int = 40) -> None:
        self.drip_interval = drip_interval
        self.pages = pages
        self.hits: Counter[str] = Counter()
        self.tokens = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.Server | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @classmethod
    @contextmanager
    def running(cls, **options: Any) -> Iterator[Self]:
        server = cls(**options)
        server._thread.start()
        if not server._ready.wait(10):
            raise RuntimeError("the misbehaving server did not start within 10 s")
        try:
            yield server
        finally:
            server._loop.call_soon_threadsafe(server._loop.stop)
            server._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            tasks = asyncio.all_tasks(self._loop)
            for task in tasks:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(_read_request(reader), IDLE_LIMIT)
            if request is not None:
                await self._answer(writer, self._route(*request))
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:  # the server is stopping mid-answer
            pass
        finally:
            writer.close()

    async def _answer(self, writer: asyncio.StreamWriter, answer: _Answer) -> None:
        head = f"HTTP/1.1 {answer.status} {answer.reason}\r\n"
        headers = {"Content-Length": str(len(answer.body)), "Connection": "close"}
        headers.update(answer.headers)
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        body = answer.body
        if answer.drip_head is not None:
            for i in range(DRIP_BYTES):
                writer.write(head[i].encode())
                await writer.drain()
                await asyncio.sleep(answer.drip_head)
            head = head[DRIP_BYTES:]
        if answer.drip is None:
            writer.write(head.encode() + body)
            await writer.drain()
            return
        writer.write(head.encode() + body[:-DRIP_BYTES])
        await writer.drain()
        for i in range(len(body) - DRIP_BYTES, len(body)):
            await asyncio.sleep(answer.drip)
            writer.write(body[i : i + 1])
            await writer.drain()

    def _route(self, method: str, target: str, headers: list[tuple[str, str]]) -> _Answer:
        url = urlsplit(target)
        path, query = url.path, parse_qs(url.query)
        self.hits[path] += 1
        if method == "POST" and path == "/oauth/token":
            self.tokens += 1
            token = {
                "access_token": BEARER,
                "client_id": "hostile",
                "expires_at": 4_000_000_000,
                "expires_in": 3600,
                "scope": "loyalties",
                "token_type": "Bearer",
            }
            return _json(200, token)
        if path.endswith("/echo"):
            dump = "; ".join(f"{k}: {v}" for k, v in headers)
            return _error(
                400,
                "bad_request",
                f"Bad request, you sent {dump}",
                "Bad Request",
                details=dump,
                request_id=dump,
                echo={k: [v] for k, v in headers},
            )
        if path.endswith("/denied"):
            return _error(401, "unauthorized", "Unauthorized", "Unauthorized")
        if path == "/v1/redirect":
            return _Answer(301, headers={"Location": f"http://localhost:{self.port}/v1/landed"})
        if path == "/v1/landed":
            return _json(200, {"landed": True})
        if path == "/v2/loyalties/rewards":
            return self._page(query)
        if path.startswith("/v2/loyalties/rewards/"):
            return self._reward(path.rsplit("/", 1)[1])
        return _error(404, "not_found", "Not found", "Not Found")

    def _page(self, query: dict[str, list[str]]) -> _Answer:
        if query.get("limit") == ["2"]:
            cursor: str | None = "lcrsrew_0000000a"
        else:
            seen = query.get("cursor", ["lcrsrew_0"])[0]
            number = int(seen.removeprefix("lcrsrew_"), 16) + 1
            cursor = f"lcrsrew_{number:08x}" if number < self.pages else None
        page = {"data": [REWARD], "cursor": {"next": cursor} if cursor else None, "object": "list"}
        return _json(200, page)

    def _reward(self, reward_id: str) -> _Answer:
        if reward_id == REWARD_IDS["drip"]:
            answer = _json(200, REWARD)
            answer.drip = self.drip_interval
            return answer
        if reward_id == REWARD_IDS["drip_headers"]:
            answer = _json(200, REWARD)
            answer.drip_head = self.drip_interval
            return answer
        if reward_id == REWARD_IDS["unavailable"]:
            return _json(
                503, {"code": 503, "message": "busy"}, "Unavailable", **{"Retry-After": "0.3"}
            )
        if reward_id == REWARD_IDS["rate_limited"]:
            body = {"code": 429, "key": "too_many_requests", "message": "Too many requests"}
            return _json(429, body, "Too Many Requests", **{"Retry-After": "86400"})
        if reward_id == REWARD_IDS["budget_spent"]:
            body = {"code": 429, "key": "too_many_requests", "message": "Too many requests"}
            spent = {"Retry-After": "86400", "X-Rate-Limit-Type": "api_calls"}
            return _json(429, body, "Too Many Requests", **spent)
        if reward_id == REWARD_IDS["garbage"]:
            return _Answer(200, b"\x00\xff{not json", {"Content-Type": "application/json"})
        if reward_id == REWARD_IDS["bad_gzip"]:
            headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
            return _Answer(200, b"\x1f\x8b not gzip at all", headers)
        if reward_id == REWARD_IDS["surrogate"]:
            odd = {"name": "Miles \ud800 Beans", "metadata": {"\udfff": "\U0001f600"}}
            return _json(200, REWARD | {"id": reward_id} | odd)
        if reward_id == REWARD_IDS["deep_surrogate"]:
            deep = b"[" * 100_000 + b"]" * 100_000
            raw = b'{"code":404,"key":"not_found","message":"gone \\ud800","x":' + deep + b"}"
            return _Answer(404, raw, {"Content-Type": "application/json"}, "Not Found")
        if reward_id == REWARD_IDS["year_one"]:
            return _json(200, REWARD | {"created_at": "0001-01-01T00:00:00+01:00"})
        return _json(200, REWARD | {"id": reward_id})


async def _read_request(
    reader: asyncio.StreamReader,
) -> tuple[str, str, list[tuple[str, str]]] | None:
    """Method, target and headers of one request (its body is read and dropped)."""
    line = await reader.readline()
    if not line:
        return None
    method, target, _ = line.decode("latin-1").split(" ", 2)
    headers: list[tuple[str, str]] = []
    while True:
        raw = (await reader.readline()).decode("latin-1").rstrip("\r\n")
        if not raw:
            break
        name, _, value = raw.partition(":")
        headers.append((name.strip(), value.strip()))
    length = next((int(v) for k, v in headers if k.lower() == "content-length"), 0)
    if length:
        await reader.readexactly(length)
    return method, target, headers
