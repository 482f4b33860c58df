"""Bearer token bookkeeping for the ``/v2`` loyalty API, shared by both clients.

Expiry is judged on the client's own monotonic clock from the ``expires_in``
the service reported at receipt, never by comparing ``expires_at`` with a wall
clock that may disagree with the server's. A token is renewed ``skew`` seconds
early so it does not lapse in flight.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import SecretStr

ISSUED_KEPT = 64
"""Tokens remembered for scrubbing errors; older ones expired long ago."""


@dataclass
class _Held:
    value: SecretStr
    renew_at: float
    generation: int
    received_at: float
    issued_at: float | None
    """When the service issued it, Unix seconds on the service's clock (if it said)."""


class TokenCache:
    """Holds at most one token; the sync/async clients wrap it with their own lock."""

    def __init__(self, skew: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.skew = skew
        self.clock = clock
        self._held: _Held | None = None
        self._issued: list[SecretStr] = []
        self.generation = 0
        """How many tokens this cache has stored (tests and logs use it)."""

    def __repr__(self) -> str:
        state = "empty" if self._held is None else f"token #{self._held.generation}"
        return f"TokenCache({state})"

    def current(self) -> tuple[str, int] | None:
        """The usable token and its generation, or None when one must be requested."""
        held = self._held
        if held is None or self.clock() >= held.renew_at:
            return None
        return held.value.get_secret_value(), held.generation

    def store(
        self,
        access_token: str,
        expires_in: float,
        received_at: float,
        *,
        issued_at: float | None = None,
    ) -> tuple[str, int]:
        """Hold a new token (renewed ``skew`` seconds early); returns it and its generation.

        ``issued_at`` is when the service issued it by its own clock (Unix seconds).
        """
        self.generation += 1
        self._issued = [*self._issued[-(ISSUED_KEPT - 1) :], SecretStr(access_token)]
        renew_at = received_at + max(0.0, float(expires_in) - self.skew)
        held = _Held(SecretStr(access_token), renew_at, self.generation, received_at, issued_at)
        self._held = held
        return access_token, self.generation

    def issued_at(self) -> float | None:
        """When the service issued the token held (Unix seconds, its clock), else None."""
        held = self._held
        return None if held is None else held.issued_at

    def service_now(self) -> float | None:
        """The service's clock now (Unix seconds): the held token's issue time plus the time
        since it was received on this machine's monotonic clock; None without one."""
        held = self._held
        if held is None or held.issued_at is None:
            return None
        return held.issued_at + (self.clock() - held.received_at)

    def issued(self) -> list[str]:
        """Every token this cache has held (the error scrubber masks them all)."""
        return [token.get_secret_value() for token in self._issued]

    def invalidate(self, generation: int) -> None:
        """Drop the token if it is still the one that was rejected (others may have renewed)."""
        if self._held is not None and self._held.generation == generation:
            self._held = None
