"""The sync transport's sender threads: reused when idle, added when all are busy."""

from __future__ import annotations

import threading

from interrupting import HANG, until

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client._senders import SENDERS, Senders
from lyt_toolkit.sandbox import Sandbox


def _waiting_for_a_job(senders: Senders) -> bool:
    """Whether a thread of ``senders`` waits for its next job (it counted itself idle, after
    its job: the job's end is no sign of it); the count taken and given back."""
    if not senders._idle.acquire(blocking=False):
        return False
    senders._idle.release()
    return True


def test_an_idle_thread_takes_the_next_job() -> None:
    """Each job is handed over once the thread that ran the last waits for the next: the
    job's own end came before, a loaded machine could hand the next over in between (a
    flake: 2 == 1)."""
    senders = Senders("lyt-test-send")
    for _ in range(20):
        done = threading.Event()
        senders.submit(done.set)
        assert done.wait(HANG)
        until(lambda: _waiting_for_a_job(senders), "the thread waits for the next job")
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
