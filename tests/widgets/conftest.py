"""Widgets driven headless against one demo sandbox over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

NOW = "2026-01-15T12:00:00Z"


@pytest.fixture(scope="session")
def sb() -> Iterator[Sandbox]:
    with Sandbox.start(now=NOW, seed=7) as sandbox:
        yield sandbox


@pytest.fixture
def client(sb: Sandbox) -> Iterator[LoyaltyClient]:
    sb.clear_faults()
    sb.reset()
    sb.set_clock(NOW)
    with LoyaltyClient(
        base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
    ) as c:
        yield c
    sb.reset()
    sb.set_clock(NOW)
