"""Sandboxes for the frame tests: the demo program and an empty one, over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fixture_types import StartSandbox

from lyt_toolkit.client import LoyaltyClient, RetryConfig
from lyt_toolkit.sandbox import Sandbox

from .helpers import PATIENT_RETRY


@pytest.fixture(scope="module")
def demo(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox() as sb:
        yield sb


@pytest.fixture(scope="module")
def empty(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox({"format": "lyt-program/1"}) as sb:
        yield sb


@pytest.fixture(scope="session")
def patient_retry() -> RetryConfig:
    return PATIENT_RETRY


@pytest.fixture
def client(demo: Sandbox, make_client: Callable[..., LoyaltyClient]) -> Iterator[LoyaltyClient]:
    with make_client(demo, retry=PATIENT_RETRY) as c:
        yield c


@pytest.fixture
def empty_client(
    empty: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> Iterator[LoyaltyClient]:
    with make_client(empty) as c:
        yield c
