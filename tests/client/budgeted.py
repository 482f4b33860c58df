"""A test server that keeps a call budget the way the service does, with short windows.

``BudgetedServer`` serves the routes of ``MisbehavingServer`` but allows
``limit`` requests (token requests included) per ``window`` seconds, windows
counted from its start. Every answer carries ``X-Rate-Limit-Limit``,
``X-Rate-Limit-Remaining`` and ``X-Rate-Limit-Retry`` (the window's end, Unix
epoch seconds) and a ``Date``, all on the server's clock, which runs ``skew``
seconds ahead of this machine's. A request over budget is answered 429 with the
service's error object, ``Retry-After`` (whole seconds, rounded up) and
``X-Rate-Limit-Type: api_calls``. ``limit=None`` sends no budget headers at all.

``received`` holds (monotonic time, method, path) of every request and
``refused`` counts the 429s.
"""

from __future__ import annotations

import email.utils
import json
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from .misbehaving import MisbehavingServer, _Answer


class BudgetedServer(MisbehavingServer):
    def __init__(
        self, *, limit: int | None = 5, window: float = 1.0, skew: float = 0.0, **options: Any
    ) -> None:
        super().__init__(**options)
        self.limit = limit
        self.window = window
        self.skew = skew
        self.started = time.time()
        self.used: dict[int, int] = {}
        self.received: list[tuple[float, str, str]] = []
        self.refused = 0

    def spend(self, calls: int) -> None:
        """Spend ``calls`` of the current window as another client of the project would."""
        index = self._window_index(time.time())
        self.used[index] = self.used.get(index, 0) + calls

    def _window_index(self, now: float) -> int:
        return math.floor((now - self.started) / self.window)

    def _route(self, method: str, target: str, headers: list[tuple[str, str]]) -> _Answer:
        self.received.append((time.monotonic(), method, target.split("?", 1)[0]))
        if self.limit is None:
            return super()._route(method, target, headers)
        now = time.time()
        index = self._window_index(now)
        ends = self.started + (index + 1) * self.window
        used = self.used.get(index, 0)
        if used >= self.limit:
            self.refused += 1
            body = {"code": 429, "key": "too_many_requests", "message": "Too many requests"}
            answer = _Answer(
                429,
                json.dumps(body).encode(),
                {"Content-Type": "application/json"},
                "Too Many Requests",
            )
            answer.headers["Retry-After"] = str(math.ceil(ends - now))
            answer.headers["X-Rate-Limit-Type"] = "api_calls"
            remaining = 0
        else:
            self.used[index] = used + 1
            answer = super()._route(method, target, headers)
            remaining = self.limit - used - 1
        answer.headers.update(
            {
                "X-Rate-Limit-Limit": str(self.limit),
                "X-Rate-Limit-Remaining": str(remaining),
                "X-Rate-Limit-Retry": f"{ends + self.skew:.3f}",
                "Date": email.utils.formatdate(now + self.skew, usegmt=True),
            }
        )
        return answer

    def calls(self, method: str, path: str) -> list[float]:
        """Monotonic arrival times of the requests for ``method`` ``path``."""
        return [at for at, m, p in self.received if (m, p) == (method, path)]


def in_threads(work: Callable[[], None], count: int) -> list[BaseException]:
    """Run ``work`` in ``count`` threads at once; the exceptions they raised, for the test."""
    errors: list[BaseException] = []

    def guarded() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the test
            errors.append(exc)

    threads = [threading.Thread(target=guarded) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
