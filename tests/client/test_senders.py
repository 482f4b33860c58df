"""The sync transport's sender threads: reused when idle, added when all are busy."""

from __future__ import annotations

import threading

from interrupting import HANG

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client._senders import SENDERS, Senders
from lyt_toolkit.sandbox import Sandbox


def test_an_idle_thread_takes_the_next_job() -> None:
    senders = Senders("lyt-test-send")
    for _ in range(20):
        done = threading.Event()
        senders.submit(done.set)
        assert done.wait(HANG)
    assert senders.started == 1


def test_a_busy_thread_never_delays_another_job() -> None:
    senders = Senders("lyt-test-send")
    release, held, done = threading.Event(), threading.Event(), threading.Event()

    def hold() -> None:
        held.set()
        release.wait(10)

    senders.submit(hold)
    assert held.wait(HANG)
    senders.submit(done.set)
    assert done.wait(HANG)  # a second thread ran it while the first was still held
    release.set()
    assert senders.started == 2


def test_a_pull_does_not_start_a_thread_per_page(sandbox: Sandbox) -> None:
    with LoyaltyClient(
        base_url=sandbox.base_url, env_file=None, **sandbox.credentials.as_client_kwargs()
    ) as client:
        client.rewards.list(limit=1)  # token and first sender ready
        before = SENDERS.started
        pages = list(client.rewards.pages(limit=2))
    assert len(pages) > 3
    assert SENDERS.started - before <= 1
