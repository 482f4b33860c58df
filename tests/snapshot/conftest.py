"""Snapshot test fixtures: the demo program served by a sandbox, reached over real HTTP, and
the generated program the sampled-snapshot tests share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .helpers import pull


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


@pytest.fixture(scope="session")
def program() -> dict[str, Any]:
    """A generated program of 600 members, what the sampled snapshots are drawn from."""
    return generate_program(rewards=20, benefits=10, card_definitions=4, members=600, seed=21)


@pytest.fixture(scope="session")
def full(start_sandbox: StartSandbox, program: dict[str, Any]) -> ProgramSnapshot:
    """``program``, every member read, pulled once."""
    with start_sandbox(program) as sb:
        return pull(sb)
