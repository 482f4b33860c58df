"""The deadline of one call: ``timeout`` seconds for everything the call does.

httpx's timeouts bound each network operation; a server that sends one byte
just before each read timeout would hold a call forever. A ``Deadline`` bounds
the whole call instead (token request, attempts, waits between them, the
body), and clamps each request's own timeouts to the time left.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from ..errors import APITimeoutError


@dataclass(frozen=True)
class Deadline:
    """When a call must be over; ``seconds=None`` means never (no timeout configured)."""

    seconds: float | None
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)
    started: float = field(default=-1.0)

    def __post_init__(self) -> None:
        if self.started < 0:
            object.__setattr__(self, "started", self.clock())

    def remaining(self) -> float | None:
        """Seconds left (never below 0), or None without a deadline."""
        if self.seconds is None:
            return None
        return max(0.0, self.started + self.seconds - self.clock())

    @property
    def expired(self) -> bool:
        """True once the time is up."""
        left = self.remaining()
        return left is not None and left <= 0

    def clamp(self, timeout: httpx.Timeout) -> dict[str, float | None]:
        """``timeout`` as an httpx timeout extension, each value cut to the time left."""
        left = self.remaining()
        values = timeout.as_dict()
        if left is None:
            return values
        return {k: left if v is None else min(v, left) for k, v in values.items()}

    def error(self, where: str) -> APITimeoutError:
        """The exception for a call that ran out of time."""
        return APITimeoutError(
            f"{where} did not complete within its {self.seconds:g} s timeout "
            "(the deadline of the whole call: every attempt, wait and response body)"
        )


def call_seconds(timeout: httpx.Timeout) -> float | None:
    """The whole-call deadline of a configured timeout: its largest value (None if unset)."""
    values = [v for v in timeout.as_dict().values() if v is not None]
    return max(values) if values else None
