"""Work that only the latest request matters for (a slider's position), done in a worker
thread: requests arriving while it works replace one another, and only the last is done."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["LatestOnly"]

Request = TypeVar("Request")


class LatestOnly(Generic[Request]):
    """Runs ``work(request)`` in a worker thread, one request at a time, the latest only.

    :meth:`submit` returns at once: it starts the worker, or, while the worker works,
    replaces the request waiting (a request never started is dropped). ``work`` reports
    its own failures; one it lets escape goes to ``failed`` and the worker goes on.
    """

    def __init__(
        self, work: Callable[[Request], None], failed: Callable[[Exception], None], name: str
    ) -> None:
        self._work = work
        self._failed = failed
        self._name = name
        self._lock = threading.Lock()
        self._waiting: tuple[Request] | None = None
        self._worker: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()

    @property
    def busy(self) -> bool:
        """True from a submit until the worker has done the latest request."""
        return not self._idle.is_set()

    @property
    def superseded(self) -> bool:
        """True while a newer request waits (the one being done is already stale)."""
        return self._waiting is not None

    def submit(self, request: Request) -> None:
        """Have ``request`` done, in place of any request still waiting."""
        with self._lock:
            self._waiting = (request,)
            if self._worker is None:
                self._idle.clear()
                self._worker = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._worker.start()

    def wait(self, timeout: float | None = 120) -> None:
        """Block until every request submitted so far is done (at once in the worker)."""
        if threading.current_thread() is self._worker:
            return
        if not self._idle.wait(timeout):
            raise TimeoutError(f"{self._name} was still working after {timeout} s")

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._waiting is None:
                    self._worker = None
                    self._idle.set()
                    return
                (request,), self._waiting = self._waiting, None
            try:
                self._work(request)
            except Exception as exc:  # a thread's exception would only reach stderr
                self._failed(exc)
