"""The client tests' sandbox: served with distinctive secrets, so any leak is recognisable."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import CREDENTIALS, FAST_RETRY, Recorder


@pytest.fixture(scope="session")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox(credentials=CREDENTIALS) as sandbox:
        yield sandbox


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def client(
    fresh: Sandbox,
    recorder: Recorder,
    make_client: Callable[..., LoyaltyClient],
) -> Iterator[LoyaltyClient]:
    http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
    with make_client(fresh, retry=FAST_RETRY, http_client=http) as c:
        yield c
    http.close()
