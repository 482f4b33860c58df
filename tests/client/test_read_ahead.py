"""Pipelined walks: the next page is on its way while the caller works on the current one."""

from __future__ import annotations

import asyncio
import gc
import importlib
import threading
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from interrupting import HANG

from lyt_toolkit import LoyaltyClient
from lyt_toolkit.client.pagination import aread_ahead, read_ahead
from lyt_toolkit.pull.sent import atracer, sent_notice, telling, tracer

PIPELINED = importlib.import_module("lyt_toolkit.pull.read_ahead")
"""The read-ahead's module (``lyt_toolkit.pull.read_ahead`` is its function there)."""


def test_the_next_page_is_requested_before_the_current_one_is_done() -> None:
    requested = [threading.Event() for _ in range(4)]

    def pages() -> Iterator[int]:
        for number in range(3):
            requested[number].set()
            yield number

    seen = []
    for page in read_ahead(pages()):
        if page < 2:  # still working on this page while the next one is fetched
            assert requested[page + 1].wait(HANG), f"page {page + 1} was not requested early"
        seen.append(page)
    assert seen == [0, 1, 2]


@pytest.fixture
def no_send_wait_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-ahead waits for the next request to be written ``HANG`` s at most, not
    ``SEND_WAIT``: a loaded machine slower than that to write it (0.05 s against the 0.02 s
    a test's request takes) then hands a page over on the cap, before the write (a flake)."""
    monkeypatch.setattr(PIPELINED, "SEND_WAIT", HANG)


@pytest.mark.usefixtures("no_send_wait_cap")
def test_a_page_is_handed_over_once_the_next_request_is_written() -> None:
    written = threading.Event()
    release = threading.Event()

    def pages() -> Iterator[int]:
        yield 0
        notice = sent_notice()
        assert notice is not None  # the read-ahead's worker is told about its requests
        time.sleep(0.02)  # opening a connection, writing the request...
        written.set()
        notice()
        assert release.wait(HANG)
        yield 1

    walk = read_ahead(pages())
    assert next(walk) == 0
    assert written.is_set()  # the caller works only once the next request is out
    release.set()
    assert next(walk) == 1


def test_the_transport_tells_when_a_request_is_written(client: LoyaltyClient) -> None:
    told: list[str] = []

    def list_one() -> None:
        with telling(lambda: told.append(threading.current_thread().name)):
            client.rewards.list(limit=1)

    worker = threading.Thread(target=list_one, name="worker")
    worker.start()
    worker.join(HANG)
    assert told  # the token request and the list request, once each written
    assert sent_notice() is None  # only the thread that asked is told


def test_stopping_early_fetches_at_most_one_page_more() -> None:
    fetched = []

    def pages() -> Iterator[int]:
        for number in range(100):
            fetched.append(number)
            yield number

    for page in read_ahead(pages()):
        if page == 3:
            break
    assert fetched == [0, 1, 2, 3, 4]


def test_a_deeper_read_ahead_fetches_while_the_caller_is_busy_and_stops_as_soon() -> None:
    fetched: list[int] = []
    ahead = threading.Event()

    def pages() -> Iterator[int]:
        for number in range(100):
            fetched.append(number)
            if number == 3:
                ahead.set()
            yield number

    walk = read_ahead(pages(), depth=4)
    assert next(walk) == 0
    assert ahead.wait(HANG)  # pages 1-3 fetched while the caller still holds page 0
    for page in walk:
        if page == 5:
            break
    walk.close()
    assert fetched[:6] == [0, 1, 2, 3, 4, 5]
    assert len(fetched) <= 5 + 4 + 1  # at most the queue and the one being fetched


def test_an_error_reaches_the_caller_after_the_pages_before_it() -> None:
    def pages() -> Iterator[int]:
        yield 1
        raise RuntimeError("page 2 failed")

    walk = read_ahead(pages())
    assert next(walk) == 1
    with pytest.raises(RuntimeError, match="page 2 failed"):
        next(walk)


def test_async_the_next_page_is_requested_before_the_current_one_is_done() -> None:
    async def run() -> list[int]:
        requested = [asyncio.Event() for _ in range(4)]

        async def pages() -> AsyncIterator[int]:
            for number in range(3):
                requested[number].set()
                yield number

        seen = []
        async for page in aread_ahead(pages()):
            if page < 2:
                await asyncio.wait_for(requested[page + 1].wait(), HANG)
            seen.append(page)
        return seen

    assert asyncio.run(run()) == [0, 1, 2]


def test_async_stopping_early_cancels_the_page_on_its_way() -> None:
    async def run() -> list[str]:
        events: list[str] = []

        async def pages() -> AsyncIterator[int]:
            yield 0
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                events.append("cancelled")
                raise
            yield 1

        walk = aread_ahead(pages())
        async for _ in walk:
            break
        await walk.aclose()
        return events

    assert asyncio.run(asyncio.wait_for(run(), HANG)) == ["cancelled"]


@pytest.mark.usefixtures("no_send_wait_cap")
def test_async_a_page_is_handed_over_once_the_next_request_is_written() -> None:
    async def run() -> None:
        written = asyncio.Event()

        async def pages() -> AsyncIterator[int]:
            yield 0
            notice = sent_notice()
            assert notice is not None  # the task fetching the next page is told
            await asyncio.sleep(0.02)  # opening a connection, writing the request...
            written.set()
            notice()
            yield 1

        walk = aread_ahead(pages())
        assert await anext(walk) == 0
        assert written.is_set()  # the caller works only once the next request is out
        assert await anext(walk) == 1

    asyncio.run(run())


def test_answers_are_freed_as_soon_as_they_are_dropped(client: LoyaltyClient) -> None:
    def alive() -> int:
        return sum(1 for o in gc.get_objects() if isinstance(o, httpx.Response))

    gc.collect()
    before = alive()
    gc.disable()  # only reference counting frees now: an answer in a cycle would stay
    try:
        for _ in range(5):
            client.rewards.list(limit=2)
        frame = client.rewards.frame(limit=3, progress=False)
        assert alive() == before
    finally:
        gc.enable()
    assert len(frame) > 3


@pytest.mark.parametrize("protocol", ["http11", "http2"])
def test_the_request_counts_as_written_once_its_body_is_sent(protocol: str) -> None:
    told: list[str] = []
    trace = tracer(lambda: told.append("written"))
    for step in ("connect_tcp", "send_request_headers", "send_request_body"):
        trace(f"{protocol}.{step}.started", {})
        assert not told
    trace(f"{protocol}.send_request_body.complete", {})
    assert told == ["written"]
    asyncio.run(atracer(lambda: told.append("again"))(f"{protocol}.send_request_body.complete", {}))
    assert told == ["written", "again"]


@pytest.mark.parametrize("depth", [1, 3])
def test_async_an_error_reaches_the_caller_after_the_pages_before_it(depth: int) -> None:
    async def run() -> list[int]:
        async def pages() -> AsyncIterator[int]:
            yield 1
            yield 2
            raise RuntimeError("page 3 failed")

        seen = []
        with pytest.raises(RuntimeError, match="page 3 failed"):
            async for page in aread_ahead(pages(), depth):
                seen.append(page)
        return seen

    assert asyncio.run(run()) == [1, 2]


def test_async_a_deeper_read_ahead_stops_its_fetching_when_the_caller_stops() -> None:
    async def run() -> list[str]:
        events: list[str] = []

        async def pages() -> AsyncIterator[int]:
            for number in range(100):
                if number == 4:
                    try:
                        await asyncio.sleep(30)
                    except asyncio.CancelledError:
                        events.append("cancelled")
                        raise
                yield number

        walk = aread_ahead(pages(), 3)
        async for page in walk:
            if page == 1:
                break
        await walk.aclose()
        return events

    assert asyncio.run(asyncio.wait_for(run(), HANG)) == ["cancelled"]
