"""Snapshot test fixtures: the demo program served by a sandbox, reached over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox

from .helpers import pull

StartSandbox = Callable[..., AbstractContextManager[Sandbox]]


@pytest.fixture
def demo(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """A demo sandbox of the test's own, free to change."""
    with start_sandbox() as sb:
        yield sb


@pytest.fixture(scope="module")
def demo_snapshot(start_sandbox: StartSandbox) -> ProgramSnapshot:
    """The demo program, pulled once per module."""
    with start_sandbox() as sb:
        return pull(sb)
