"""A pull in a window the project's other traffic already spent, over real HTTP: an unpaced
pull raises ``QuotaExhaustedError``, saying when to come back on the service's clock.

The sandbox's clock runs here (the demo program without its fixed ``now``), set a few seconds
before the end of a minute's window: the reset comes by itself, as the service's does. The
client's ``max_wait`` of 1 s stands for the default 60 s against an hour's window: the reset
(``Retry-After``) is beyond it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime

import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.errors import QuotaExhaustedError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import DEMO_PROGRAM

ClientFor = Callable[..., LoyaltyClient]
StartSandbox = Callable[..., AbstractContextManager[Sandbox]]

PLAN = "60/minute"
MINUTE = "2026-01-15T12:00"
RESET = datetime(2026, 1, 15, 12, 1, tzinfo=UTC)
"""The end of the window ``MINUTE``, on the sandbox's clock."""


@pytest.fixture(scope="module")
def running(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """The demo program on a running clock."""
    program = json.loads(DEMO_PROGRAM.read_text())
    del program["now"]
    with start_sandbox(program, now=None) as sb:
        yield sb


def _spent_by_others(sb: Sandbox, make_client: ClientFor, resets_in: int) -> None:
    """The window of ``MINUTE`` spent by another client of the project, ``resets_in``
    seconds before its end (the clock runs on from there)."""
    sb.set_clock(f"{MINUTE}:00Z")
    sb.set_plan(PLAN)
    with make_client(sb) as other:
        while other.quota.remaining != 0:
            other.programs.list(limit=1)
    sb.set_clock(f"{MINUTE}:{60 - resets_in:02d}Z")  # the same window: still spent
    assert sb.plan()["remaining"] == 0


def test_an_unpaced_pull_in_a_window_others_spent_says_when_to_come_back_on_the_services_clock(
    running: Sandbox, make_client: ClientFor
) -> None:
    """The reset and the time to come back are one instant, the sandbox's (a day in January),
    whatever this machine's date."""
    _spent_by_others(running, make_client, resets_in=4)
    with (
        make_client(running, max_wait=1) as client,
        pytest.raises(QuotaExhaustedError) as caught,
    ):
        ProgramSnapshot.pull(client, progress=False)
    refused = caught.value
    assert refused.sent and refused.retry_at == RESET
    text = str(refused)
    assert "come back after 2026-01-15 12:01:00 UTC (the service's clock)" in text, text
    assert "resets at 2026-01-15 12:01:00 UTC" in text, text
