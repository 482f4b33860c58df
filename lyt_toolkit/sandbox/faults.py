"""Injected faults for rehearsals: a share of requests answered 429, 503 or late, and
list pages ending as a service may end them (``full_page_cursor``); how many 429s and 503s
were answered since the faults were set (``answered``), so a test can wait until a client
has been refused rather than for a while.

Admin paths are exempt so a test can always turn faults off again. The middleware
that injects them is ``fault_middleware``.
"""

from __future__ import annotations

import random
import threading

from pydantic import BaseModel, Field

ADMIN_PREFIX = "/_sandbox"


class FaultSettings(BaseModel):
    """What share of requests fail, and how."""

    model_config = {"extra": "forbid"}

    rate_limit: float = Field(0.0, ge=0, le=1, description="share answered 429")
    unavailable: float = Field(0.0, ge=0, le=1, description="share answered 503")
    delay_seconds: float = Field(0.0, ge=0, le=30)
    delay_fraction: float = Field(1.0, ge=0, le=1, description="share of requests delayed")
    retry_after: int = Field(1, ge=0, le=3600, description="Retry-After seconds on 429/503")
    seed: int | None = None
    full_page_cursor: bool = Field(
        False,
        description="a full last page carries a cursor, to an empty page (the interface"
        " does not say whether it does)",
    )


FAULT_NAMES = {429: "rate_limit", 503: "unavailable"}
"""The setting that answers each failing status: the names ``answered`` counts them by."""


class Faults:
    """The faults in force, with their own random stream, and the failing answers they
    made since they were set."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.set(FaultSettings())

    def set(self, settings: FaultSettings) -> None:
        with self._lock:
            self.settings = settings
            self._random = random.Random(settings.seed)
            self._answered = dict.fromkeys(FAULT_NAMES.values(), 0)

    def answer(self, status: int) -> None:
        """A request was answered ``status`` (429 or 503) by a fault: count it."""
        with self._lock:
            self._answered[FAULT_NAMES[status]] += 1

    def answered(self) -> dict[str, int]:
        """The requests answered 429 (``rate_limit``) and 503 (``unavailable``) by a fault
        since the faults were last set or cleared."""
        with self._lock:
            return dict(self._answered)

    def clear(self) -> None:
        self.set(FaultSettings())

    def draw(self) -> tuple[float, int | None]:
        """Delay to apply and the failing status to answer with (or ``None``)."""
        with self._lock:
            s, roll = self.settings, self._random.random
            delay = s.delay_seconds if s.delay_seconds and roll() < s.delay_fraction else 0.0
            r = roll()
            if r < s.rate_limit:
                return delay, 429
            if r < s.rate_limit + s.unavailable:
                return delay, 503
            return delay, None
