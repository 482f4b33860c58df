"""A client used before ``fork`` (multiprocessing's default start method on Linux) works in
the child, over connections of its own, or says it must be made anew there."""

from __future__ import annotations

import asyncio
import multiprocessing
import warnings
from collections.abc import Callable
from typing import Any

import httpx
from shared_tls import TLS

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_kwargs

CHILD_WAIT = 20
"""Seconds the parent waits for a child's answer (the client's own timeout is 5)."""


def in_forked_children(work: Callable[[], Any], children: int = 2) -> list[Any]:
    """What ``work`` returned (or the exception it raised, as type name and message) in
    each of ``children`` processes forked from this one."""
    context = multiprocessing.get_context("fork")
    answers: multiprocessing.queues.Queue[Any] = context.Queue()

    def child() -> None:
        try:
            answers.put(work())
        except Exception as exc:
            answers.put((type(exc).__name__, str(exc)))

    with warnings.catch_warnings():
        # Python 3.12+ warns that forking a process with threads (the sandbox's) may
        # deadlock: that process is exactly what a user of multiprocessing forks.
        warnings.simplefilter("ignore", DeprecationWarning)
        processes = [context.Process(target=child) for _ in range(children)]
        for process in processes:
            process.start()
    try:
        return [answers.get(timeout=CHILD_WAIT) for _ in processes]
    finally:
        for process in processes:
            process.join(CHILD_WAIT)


def reward_ids(client: LoyaltyClient) -> list[str]:
    return [reward.id for reward in client.rewards.list(limit=5).data]


def test_a_client_used_before_a_fork_works_in_the_children_and_the_parent(
    sandbox: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    with make_client(sandbox, timeout=5) as client:
        before = reward_ids(client)  # a token, a sender thread, a keep-alive connection
        assert len(before) == 5
        answers = in_forked_children(lambda: (reward_ids(client), client.holds_token))
        assert answers == [(before, True)] * 2
        assert reward_ids(client) == before  # the parent's connection is still its own


def test_an_async_client_used_before_a_fork_works_in_the_child(sandbox: Sandbox) -> None:
    client = AsyncLoyaltyClient(**client_kwargs(sandbox), timeout=5)

    async def ids() -> list[str]:
        return [reward.id for reward in (await client.rewards.list(limit=5)).data]

    loop = asyncio.new_event_loop()
    try:
        before = loop.run_until_complete(ids())
        assert in_forked_children(lambda: asyncio.run(ids()), children=1) == [before]
    finally:
        loop.run_until_complete(client.aclose())
        loop.close()


def test_a_client_on_a_given_http_client_says_in_the_child_it_must_be_made_anew(
    sandbox: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    with (
        httpx.Client(verify=TLS) as http,
        make_client(sandbox, timeout=5, http_client=http) as client,
    ):
        before = reward_ids(client)
        answers = in_forked_children(lambda: reward_ids(client), children=1)
        assert reward_ids(client) == before
    [(error, message)] = answers
    assert error == "ConfigurationError", answers
    assert "http_client" in message and "create" in message, message
