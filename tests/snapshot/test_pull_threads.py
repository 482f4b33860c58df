"""A pull with a sync client has as many requests in flight as its ``concurrency`` asks,
beyond the threads of asyncio's default pool (``pull.threaded``)."""

from __future__ import annotations

import os
import threading
from typing import Any

from fixture_types import StartSandbox
from interrupting import until

from lyt_toolkit import ProgramSnapshot
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
