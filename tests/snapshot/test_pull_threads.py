"""A pull with a sync client has as many requests in flight as its ``concurrency`` asks,
beyond the threads of asyncio's default pool (``pull.threaded``); its member reads, run in
those threads a level at a time (``ThreadedClient.each``), stop together: once one fails,
or once the pull is cancelled, nothing more is sent and no read begins."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from fixture_types import StartSandbox
from interrupting import until, until_async

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit._stop import work_stops
from lyt_toolkit.errors import StoppedError
from lyt_toolkit.pull.threaded import ThreadedClient
from lyt_toolkit.synthetic import generate_program

from .helpers import client_for

DEFAULT_POOL = min(32, (os.cpu_count() or 1) + 4)
"""The threads of asyncio's default pool, which held a pull's calls before."""


class _HeldReads:
    """A sync client's member group whose reads, once begun, wait until ``width`` of them
    are under way together; everything else is the group's own."""

    def __init__(self, group: Any, width: int) -> None:
        self._group = group
        self.width = width
        self._lock = threading.Lock()
        self.under_way = self.most = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._group, name)

    def get(self, *ids: str) -> Any:
        with self._lock:
            self.under_way += 1
            self.most = max(self.most, self.under_way)
        try:
            until(lambda: self.most >= self.width, f"{self.width} member reads under way at once")
            return self._group.get(*ids)
        finally:
            with self._lock:
                self.under_way -= 1


def test_a_sync_pull_reads_as_many_members_at_once_as_its_concurrency(
    start_sandbox: StartSandbox,
) -> None:
    width = DEFAULT_POOL + 2
    program = generate_program(
        rewards=0, benefits=0, card_definitions=2, tier_structures=0, members=width, seed=5
    )
    with start_sandbox(program) as sb, client_for(sb) as client:
        held = _HeldReads(client.members, width)
        vars(client)["members"] = held  # the group the client built, seen through the hold
        snapshot = ProgramSnapshot.pull(
            client, progress=False, concurrency=width, kinds=["programs", "members", "cards"]
        )
    assert held.most == width
    assert len(snapshot.cards) == width


READ_KINDS = ["programs", "members", "cards"]
CONCURRENCY = 4
MEMBERS = 40
"""A level of reads ten times the reads under way at once: a pull that went on would read
many more."""


class _StoppedReads:
    """A sync client's member group whose reads, once ``CONCURRENCY`` of them are under way
    and the second one answered, wait until something stops the pull (``stop``: the first
    read failing, else the test) and their calls see it, or until their level is given up
    (``level_ended``: the level's ``ThreadedClient.each`` returned or raised; its stop should
    be set by then, and a pull that never sets it is not waited for); then the second returns
    its answer and the others go on to the client. The reads begun after the stop, and those
    it left unsent, are counted."""

    def __init__(self, client: Any, monkeypatch: pytest.MonkeyPatch, *, fail_first: bool) -> None:
        self._client = client
        self._group = client.members
        self._lock = threading.Lock()
        self._fail_first = fail_first
        self.begun = 0
        self.answered = threading.Event()
        self.stopped = threading.Event()
        self.level_ended = threading.Event()
        self.begun_after = 0
        self.calls_at_stop = 0
        self.not_sent = 0
        each = ThreadedClient.each

        async def noted(threads: ThreadedClient, calls: Sequence[Callable[[], Any]]) -> list[Any]:
            try:
                return await each(threads, calls)
            finally:
                self.level_ended.set()

        monkeypatch.setattr(ThreadedClient, "each", noted)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._group, name)

    def under_way(self) -> bool:
        """Whether ``CONCURRENCY`` reads are under way, the second one answered."""
        return self.begun >= CONCURRENCY and self.answered.is_set()

    def stop(self) -> None:
        with self._lock:
            self.calls_at_stop = self._client.quota.calls_used
            self.stopped.set()

    def get(self, *ids: str) -> Any:
        with self._lock:
            self.begun += 1
            turn = self.begun
            if self.stopped.is_set():
                self.begun_after += 1
        if turn == 2:  # answered before the stop, returned after it
            found = self._group.get(*ids)
            self.answered.set()
        until(self.under_way, f"{CONCURRENCY} member reads under way, one answered")
        if turn == 1 and self._fail_first:
            self.stop()
            raise _Refused("the first read fails")
        # the pull's stop, as this read's calls see it, set: by the failure, or a cancel; or
        # the level given up without it (a pull that never sets it: the sends below tell so)
        until(
            lambda: any(c.event.is_set() for c in work_stops()) or self.level_ended.is_set(),
            "the pull's reads stopped, or their level given up",
        )
        if turn == 2:
            return found
        try:
            return self._group.get(*ids)
        except StoppedError:
            with self._lock:
                self.not_sent += 1
            raise


class _Refused(Exception):
    """A member read's failure."""


def _program() -> dict[str, Any]:
    return generate_program(
        rewards=0, benefits=0, card_definitions=2, tier_structures=0, members=MEMBERS, seed=5
    )


def test_a_failed_member_read_stops_the_others_and_is_the_error_raised(
    start_sandbox: StartSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    with start_sandbox(_program()) as sb, client_for(sb) as client:
        reads = _StoppedReads(client, monkeypatch, fail_first=True)
        vars(client)["members"] = reads
        with pytest.raises(_Refused, match="the first read fails"):
            ProgramSnapshot.pull(client, progress=False, concurrency=CONCURRENCY, kinds=READ_KINDS)
        sent_after = client.quota.calls_used - reads.calls_at_stop
    assert reads.begun == CONCURRENCY and reads.begun_after == 0  # no read taken up after it
    assert reads.not_sent == CONCURRENCY - 2  # those under way sent nothing
    assert sent_after == 0


def test_a_cancelled_pull_sends_none_of_its_reads_under_way_and_begins_no_other(
    start_sandbox: StartSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    with start_sandbox(_program()) as sb, client_for(sb) as client:
        reads = _StoppedReads(client, monkeypatch, fail_first=False)
        vars(client)["members"] = reads

        async def cancelled() -> None:
            pull = asyncio.ensure_future(
                ProgramSnapshot.apull(
                    client, progress=False, concurrency=CONCURRENCY, kinds=READ_KINDS
                )
            )
            await until_async(reads.under_way, "the reads under way, one answered")
            reads.stop()
            pull.cancel()  # as a Ctrl-C cancels it
            with pytest.raises(asyncio.CancelledError):
                await pull

        asyncio.run(cancelled())
        sent_after = client.quota.calls_used - reads.calls_at_stop
    assert reads.begun == CONCURRENCY and reads.begun_after == 0
    assert reads.not_sent == CONCURRENCY - 1  # every read under way but the answered one
    assert sent_after == 0
