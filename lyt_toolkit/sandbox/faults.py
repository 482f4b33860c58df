"""Injected faults for rehearsals: a share of requests answered 429, 503 or late.

Admin paths are exempt so a test can always turn faults off again.
"""

from __future__ import annotations

import asyncio
import random
import threading

from pydantic import BaseModel, Field
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import Response

from .errors import ServiceError, error_response

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


class Faults:
    """The faults in force, with their own random stream."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.set(FaultSettings())

    def set(self, settings: FaultSettings) -> None:
        with self._lock:
            self.settings = settings
            self._random = random.Random(settings.seed)

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


class FaultMiddleware(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if request.url.path.startswith(ADMIN_PREFIX):
            return await call_next(request)
        faults: Faults = request.app.state.sandbox.faults
        delay, status = faults.draw()
        if delay:
            await asyncio.sleep(delay)
        if status is not None:
            error = ServiceError(
                status,
                details="fault injected by the sandbox",
                headers={"Retry-After": str(faults.settings.retry_after)},
            )
            return error_response(request, error)
        return await call_next(request)
