"""The threads that send requests for sync calls waiting under a deadline.

A sync call hands its request to one of these daemon threads and waits for the
answer at most the time left (see ``SyncTransport._receive``). A thread that
is done with its request waits for the next one, so a pull does not start a
thread per page; a new thread starts only when every existing one is busy,
so one held by a server still dripping an abandoned answer never delays
another call. A child process forked from one using the pool starts with an empty
one (threads do not survive a fork).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable

__all__ = ["SENDERS", "Senders"]


class Senders:
    """A pool of daemon threads that grows when all are busy and never blocks a caller."""

    def __init__(self, name: str = "lyt-send") -> None:
        self.name = name
        self._start_empty()

    def _start_empty(self) -> None:
        """No thread and no job (also in a forked child, which has none of the threads
        its parent's jobs and idle count belong to)."""
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)  # one release per thread waiting for a job
        self.started = 0

    def submit(self, job: Callable[[], None]) -> None:
        """Run ``job`` on an idle thread, or on a new one when none is idle.

        ``job`` must not raise (hand its outcome back to the caller instead).
        """
        self._jobs.put(job)
        if not self._idle.acquire(blocking=False):
            self.started += 1
            threading.Thread(target=self._work, name=self.name, daemon=True).start()

    def _work(self) -> None:
        while True:
            self._jobs.get()()
            self._idle.release()


SENDERS = Senders()
"""The one pool every sync transport sends from."""

os.register_at_fork(after_in_child=SENDERS._start_empty)
