"""Parallel walks of long lists (``pull.windows``), over real HTTP against a sandbox: each
member once, in the sequential walk's order, for the calls of that walk (and the probe),
however many members share an instant at a window's boundary."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from fixture_types import StartSandbox

from lyt_toolkit import AsyncLoyaltyClient, ProgramSnapshot
from lyt_toolkit.fill import pull as fill_pull
from lyt_toolkit.pull.member_tree import alist_all
from lyt_toolkit.pull.window_cost import windowed_calls
from lyt_toolkit.pull.windows import awalk_windows, instant_ms, wire_ms
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

BASE = 1_767_225_600_000
"""2026-01-01T00:00:00.000Z in milliseconds."""


def _tied(members: int, instants: int, seed: int) -> dict[str, Any]:
    """A generated program whose members were created at ``instants`` consecutive
    milliseconds only: every window boundary falls on an instant many members share."""
    program = generate_program(members=members, seed=seed)
    rng = random.Random(seed)
    for member in program["members"]:
        member["created_at"] = wire_ms(BASE + rng.randrange(instants))
    return program


TIED = _tied(2600, 16, seed=5)
"""2,600 members on 16 instants (about 160 each, more than a page)."""


@pytest.fixture(scope="module")
def tied(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox(TIED) as sb:
        sb.set_plan("unlimited")
        yield sb


def _client(sb: Sandbox) -> AsyncLoyaltyClient:
    return AsyncLoyaltyClient(
        base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
    )


async def _walks(
    sb: Sandbox, program_id: str | None = None, **options: Any
) -> tuple[list[Any], int, list[Any], int, list[dict[str, Any]]]:
    """The sequential walk and the windowed one of a program's members, with their calls
    and the windowed walk's queries."""
    async with _client(sb) as client:
        pid = program_id or (await client.programs.list()).data[0].id
        before = client.quota.calls_used
        sequential = [m async for p in client.members.pages(pid, limit=100) for m in p.data]
        sequential_calls = client.quota.calls_used - before
        asked: list[dict[str, Any]] = []

        def pages(**query: Any) -> Any:
            asked.append(query)
            return client.members.pages(pid, **query)

        before = client.quota.calls_used
        windowed = await awalk_windows(pages, **options)
        return sequential, sequential_calls, windowed, client.quota.calls_used - before, asked


def _created_ms(member: Any) -> int:
    """``instant_ms`` of a member, which has a ``created_at``."""
    ms = instant_ms(member)
    assert ms is not None, member
    return ms


def _windows(asked: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {
        (q["filters"]["created_at"]["$after"], q["filters"]["created_at"]["$before"])
        for q in asked
        if "filters" in q
    }


def test_every_member_once_in_the_sequential_order_with_ties_at_every_boundary(
    tied: Sandbox,
) -> None:
    sequential, _, windowed, calls, asked = asyncio.run(_walks(tied, split_every=2, concurrency=4))
    assert len(sequential) == 2600
    assert [m.id for m in windowed] == [m.id for m in sequential]
    assert calls == windowed_calls(sequential, split_every=2)  # the estimate's count
    windows = _windows(asked)
    assert len(windows) >= 4  # it did split, at instants each member of a crowd shares
    shared = {_created_ms(m) for m in sequential}
    inner = {instant_ms({"created_at": before}) for _, before in windows} - {max(shared) + 1}
    assert inner and inner <= shared  # the boundaries are instants members were created at


def test_the_calls_stay_within_those_of_the_sequential_walk_and_the_probe(tied: Sandbox) -> None:
    sequential, sequential_calls, windowed, calls, asked = asyncio.run(_walks(tied))
    assert [m.id for m in windowed] == [m.id for m in sequential]
    assert sequential_calls == 26
    assert calls == len(asked) and calls <= 1.05 * sequential_calls + 1
    assert calls == windowed_calls(sequential)  # the estimate's count, from the objects


def test_the_same_answers_make_the_same_requests(tied: Sandbox) -> None:
    def keyed(asked: list[dict[str, Any]]) -> list[str]:  # cursors are new on each walk
        return sorted(repr({k: v for k, v in q.items() if k != "cursor"}) for q in asked)

    first = asyncio.run(_walks(tied, split_every=3, concurrency=2))[4]
    again = asyncio.run(_walks(tied, split_every=3, concurrency=7))[4]
    assert keyed(first) == keyed(again) and len(_windows(first)) > 1


def test_a_one_page_list_costs_one_call(start_sandbox: StartSandbox) -> None:
    with start_sandbox(generate_program(members=80, seed=2)) as sb:
        sequential, sequential_calls, windowed, calls, asked = asyncio.run(_walks(sb))
    assert [m.id for m in windowed] == [m.id for m in sequential] and len(windowed) == 80
    assert calls == sequential_calls == 1 and asked == [{"limit": 100}]


def test_two_pages_cost_two_calls(start_sandbox: StartSandbox) -> None:
    with start_sandbox(_tied(170, 3, seed=9)) as sb:
        sequential, sequential_calls, windowed, calls, _ = asyncio.run(_walks(sb))
    assert [m.id for m in windowed] == [m.id for m in sequential] and len(windowed) == 170
    assert calls == sequential_calls == 2


KINDS = ("programs", "members", "rewards", "benefits")
"""What the pulls read: the lists (no member is read; the tree's lists are the point)."""


@pytest.fixture(scope="module")
def pulls(tied: Sandbox) -> tuple[ProgramSnapshot, ProgramSnapshot]:
    """The tied program pulled as it is (windows) and with its lists walked sequentially."""
    with _sync_client(tied) as client:
        windowed = ProgramSnapshot.pull(client, progress=False, kinds=KINDS)
    with pytest.MonkeyPatch.context() as patch, _sync_client(tied) as client:
        patch.setattr(fill_pull, "windowed_lists", lambda concurrency: alist_all)
        sequential = ProgramSnapshot.pull(client, progress=False, kinds=KINDS)
    return windowed, sequential


def _sync_client(sb: Sandbox) -> Any:
    from lyt_toolkit import LoyaltyClient

    return LoyaltyClient(base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs())


def test_the_pulled_snapshot_equals_the_sequential_one_frame_for_frame(
    pulls: tuple[ProgramSnapshot, ProgramSnapshot],
) -> None:
    windowed, sequential = pulls
    assert len(windowed.members) == 2600
    for name, frame in sequential.frames().items():
        pd.testing.assert_frame_equal(windowed.frames()[name], frame, obj=name)
    assert windowed.calls is not None and sequential.calls is not None
    # the members' 26 pages at most 1.05x, and the probe
    assert windowed.calls.used <= sequential.calls.used + math.floor(0.05 * 26) + 1


def test_the_estimate_counts_the_calls_of_the_windowed_walk(
    tied: Sandbox, pulls: tuple[ProgramSnapshot, ProgramSnapshot]
) -> None:
    windowed, _ = pulls
    with _sync_client(tied) as client:
        estimate = ProgramSnapshot.estimate(client, kinds=KINDS)
    assert windowed.calls is not None and estimate.exact and estimate.complete
    assert estimate.parts["members"] > 26  # not the sequential walk's 26 pages: the windows'
    assert estimate.calls == windowed.calls.used
