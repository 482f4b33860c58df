"""A pull's member reads run on as many tasks as its ``concurrency``, not a task per member
(``fill.workers.in_order``), and their cards come back in the members' order."""

from __future__ import annotations

import asyncio
from typing import Any

from fixture_types import StartSandbox

from lyt_toolkit import AsyncLoyaltyClient, ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

CONCURRENCY = 3
MEMBERS = 40


class _ReadTasks:
    """An async client's member group noting the task each read runs on; everything else is
    the group's own."""

    def __init__(self, group: Any) -> None:
        self._group = group
        self.tasks: set[asyncio.Task[Any]] = set()
        self.reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._group, name)

    async def get(self, *ids: str) -> Any:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        self.reads += 1
        return await self._group.get(*ids)


def test_a_pull_reads_its_members_on_as_many_tasks_as_its_concurrency(
    start_sandbox: StartSandbox,
) -> None:
    program = generate_program(
        rewards=0, benefits=0, card_definitions=2, tier_structures=0, members=MEMBERS, seed=8
    )

    async def pull(sb: Sandbox) -> tuple[ProgramSnapshot, _ReadTasks]:
        keys = sb.credentials.as_client_kwargs()
        async with AsyncLoyaltyClient(base_url=sb.base_url, env_file=None, **keys) as client:
            held = _ReadTasks(client.members)
            vars(client)["members"] = held  # the group the client built, seen through the note
            snapshot = await ProgramSnapshot.apull(
                client,
                progress=False,
                concurrency=CONCURRENCY,
                kinds=["programs", "members", "cards"],
            )
            return snapshot, held

    with start_sandbox(program) as sb:
        snapshot, held = asyncio.run(pull(sb))
    assert held.reads == MEMBERS
    assert len(held.tasks) <= CONCURRENCY  # so at most as many alive at once, not one a member
    assert list(snapshot.cards["member_id"]) == list(snapshot.members["id"])
