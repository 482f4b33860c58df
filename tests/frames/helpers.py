"""Helpers of the frame and snapshot tests: a patient retry policy, clients, frame equality."""

from __future__ import annotations

import pandas as pd

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.client import RetryConfig
from lyt_toolkit.frames import FRAME_NAMES
from lyt_toolkit.sandbox import Sandbox

NOW = "2026-01-15T12:00:00Z"
"""The clock the sandboxes start at (the demo program's own default)."""

PATIENT_RETRY = RetryConfig(max_attempts=12, backoff_base=0.01, backoff_max=0.05, total_timeout=60)
"""Enough attempts that injected faults never exhaust a request."""


def client_for(sb: Sandbox, retry: RetryConfig | None = None) -> LoyaltyClient:
    """A client of sandbox ``sb`` (no ``.env``), with ``retry`` if given."""
    return LoyaltyClient(
        base_url=sb.base_url, env_file=None, retry=retry, **sb.credentials.as_client_kwargs()
    )


def assert_same(a: ProgramSnapshot, b: ProgramSnapshot) -> None:
    """Every frame of ``a`` equals the one of ``b``: values, dtypes, order."""
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), obj=name)
