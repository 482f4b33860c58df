"""One demo sandbox per session, reached over real HTTP; reset around mutating tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import CREDENTIALS


@pytest.fixture(scope="session")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox(credentials=CREDENTIALS) as sandbox:
        yield sandbox


@pytest.fixture
def lyt_to_fresh(fresh: Sandbox, configure_lyt: Callable[[Sandbox], None]) -> None:
    """``lyt`` run in the test talks to ``fresh`` (``configure_lyt``)."""
    configure_lyt(fresh)


@pytest.fixture
def client(fresh: Sandbox, make_client: Callable[..., LoyaltyClient]) -> Iterator[LoyaltyClient]:
    with make_client(fresh) as c:
        yield c


@pytest.fixture
def professional(fresh: Sandbox) -> Iterator[None]:
    """``fresh`` on the professional plan (its answers carry the window's count), then back
    to the suite's unlimited one."""
    fresh.set_plan("professional")
    yield
    fresh.set_plan("unlimited")
