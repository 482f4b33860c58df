"""A pull's requests run together, or ``workers`` at a time; a failure cancels the rest.

A level of the member tree holds a request per member (20,000 of them in a large program).
Made a task each up front, they would wait in a queue of 20,000 for a few slots, the event
loop creating and waking each; instead ``in_order`` runs them on as many tasks as may be in
flight, each taking the next request once its last one is done. The requests start in
their given order either way, and the results come back in it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

__all__ = ["gathered", "in_order"]

T = TypeVar("T")


async def gathered(*work: Awaitable[T]) -> list[T]:
    """``asyncio.gather`` that, when one part fails, cancels the others and waits for them.

    A plain gather leaves the other parts running after the first failure:
    they outlive the client that is closed on the way out and are torn down
    half-connected when the event loop stops (``coroutine ... was never
    awaited`` from inside httpx's connection code).
    """
    tasks = [asyncio.ensure_future(w) for w in work]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def in_order(starts: Sequence[Callable[[], Awaitable[T]]], workers: int) -> list[T]:
    """Each of ``starts`` called and awaited, in their order, ``workers`` at a time on as many
    tasks (no task per start); their results in that order. When one fails, the starts under
    way are cancelled, the others never called, and its exception raised."""
    results: list[Any] = [None] * len(starts)
    turns = iter(enumerate(starts))

    async def work() -> None:
        for index, start in turns:  # shared: each start taken by one worker, in order
            results[index] = await start()

    await gathered(*(work() for _ in range(min(workers, len(starts)))))
    return results
