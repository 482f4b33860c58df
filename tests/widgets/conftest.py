"""Widgets driven headless against one demo sandbox over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import pytest

from lyt_toolkit.client import LoyaltyClient, RetryConfig
from lyt_toolkit.sandbox import Sandbox


@pytest.fixture(scope="session")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox() as sandbox:
        yield sandbox


@pytest.fixture
def client(fresh: Sandbox, make_client: Callable[..., LoyaltyClient]) -> Iterator[LoyaltyClient]:
    with make_client(fresh) as c:
        yield c


@pytest.fixture
def single_try_client(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> Iterator[LoyaltyClient]:
    """A client that never retries, so an injected fault reaches the widget at once."""
    with make_client(fresh, retry=RetryConfig(max_attempts=1)) as c:
        yield c
