"""Sandboxes for the frame tests: the demo program and an empty one, over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from lyt_toolkit.client import LoyaltyClient, RetryConfig
from lyt_toolkit.sandbox import Sandbox

NOW = "2026-01-15T12:00:00Z"
PATIENT_RETRY = RetryConfig(max_attempts=12, backoff_base=0.01, backoff_max=0.05, total_timeout=60)
"""Enough attempts that injected faults never exhaust a request."""


def client_for(sb: Sandbox, **kwargs: object) -> LoyaltyClient:
    return LoyaltyClient(
        base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs(), **kwargs
    )


@pytest.fixture(scope="module")
def demo() -> Iterator[Sandbox]:
    with Sandbox.start(now=NOW, seed=7) as sb:
        yield sb


@pytest.fixture(scope="module")
def empty() -> Iterator[Sandbox]:
    with Sandbox.start(data={"format": "lyt-program/1"}, now=NOW, seed=7) as sb:
        yield sb


@pytest.fixture(scope="session")
def make_client() -> Callable[..., LoyaltyClient]:
    """``make_client(sb, **client_kwargs)``: a client connected to sandbox ``sb``."""
    return client_for


@pytest.fixture(scope="session")
def patient_retry() -> RetryConfig:
    return PATIENT_RETRY


@pytest.fixture
def client(demo: Sandbox) -> Iterator[LoyaltyClient]:
    with client_for(demo, retry=PATIENT_RETRY) as c:
        yield c


@pytest.fixture
def empty_client(empty: Sandbox) -> Iterator[LoyaltyClient]:
    with client_for(empty) as c:
        yield c
