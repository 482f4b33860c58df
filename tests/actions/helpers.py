"""Helpers of the action tests: distinctive credentials, benefit rows, fault injection."""

from __future__ import annotations

import threading
from typing import Any

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox.config import SandboxCredentials

APP_TOKEN = "apptok-ACTIONS-SECRET-91c3"
MANAGEMENT_TOKEN = "mgmttok-ACTIONS-SECRET-7d2e"
SECRETS = (APP_TOKEN, MANAGEMENT_TOKEN)
CREDENTIALS = SandboxCredentials(
    app_id="actions-tests-app",
    app_token=APP_TOKEN,
    management_id="actions-tests-management",
    management_token=MANAGEMENT_TOKEN,
)


class SimulatedCrash(BaseException):
    """Stands in for the process dying: not an item failure, so it stops the batch."""


class CrashingBenefits:
    """``client.benefits`` that crashes on the create call number ``crash_at`` (1-based).

    ``after_sending=True`` lets that request reach the service first: the
    benefit exists but the run dies before it can log the success.
    """

    def __init__(self, real: Any, crash_at: int, *, after_sending: bool = False) -> None:
        self._real = real
        self.crash_at = crash_at
        self.after_sending = after_sending
        self.calls = 0
        self.created: list[str] = []
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def create(self, body: Any) -> Any:
        with self._lock:
            self.calls += 1
            number = self.calls
        if number >= self.crash_at and not self.after_sending:
            raise SimulatedCrash(f"crash before create #{number}")
        benefit = self._real.create(body)
        with self._lock:
            self.created.append(benefit.name)
        if number >= self.crash_at:
            raise SimulatedCrash(f"crash after create #{number}")
        return benefit


class ClientWith:
    """The real client with some resource groups replaced (a fault-injecting wrapper)."""

    def __init__(self, client: LoyaltyClient, **groups: Any) -> None:
        self._client = client
        self.__dict__.update(groups)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def benefit_rows(
    prefix: str, count: int, card_definition_id: str = "lcdef_c0ffee0001"
) -> list[dict[str, Any]]:
    return [
        {
            "name": f"{prefix} {i:04d}",
            "type": "POINTS",
            "points": {"value": 10 + i, "card_definition_id": card_definition_id},
        }
        for i in range(count)
    ]


def names_on_server(client: LoyaltyClient, prefix: str) -> list[str]:
    return [
        b.name for b in client.benefits.iter(filters={"name": {"$starts_with": prefix}}, limit=100)
    ]
