"""Audit fixtures: sandboxes reached over real HTTP and pulled into program snapshots.

The demo runs on a fixed clock (its dates are relative to the clock at load, and the snapshot
takes ``pulled_at`` from the service), so findings reproduce; other programs use the real clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import pytest
from fixture_types import StartSandbox

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.audit import run
from lyt_toolkit.sandbox import Sandbox

from .programs import clean_program


@pytest.fixture(scope="session")
def pull_snapshot(make_client: Callable[..., LoyaltyClient]) -> Callable[[Sandbox], Any]:
    """``pull_snapshot(sb)``: everything the sandbox holds, as ``lyt audit`` pulls it."""

    def pull(sb: Sandbox) -> Any:
        with make_client(sb) as client:
            return ProgramSnapshot.pull(client, progress=False)

    return pull


@pytest.fixture(scope="module")
def demo_snapshot(
    start_sandbox: StartSandbox, pull_snapshot: Callable[[Sandbox], Any]
) -> Iterator[Any]:
    """The bundled demo program, pulled once per module."""
    with start_sandbox() as sb:
        yield pull_snapshot(sb)


@pytest.fixture(scope="module")
def demo_findings(demo_snapshot: Any) -> pd.DataFrame:
    return run(demo_snapshot)


@pytest.fixture
def audit_program(
    start_sandbox: StartSandbox, pull_snapshot: Callable[[Sandbox], Any]
) -> Callable[[dict[str, Any]], pd.DataFrame]:
    """``audit_program(program_dict)`` -> findings of that program served by a sandbox."""

    def audit(program: dict[str, Any]) -> pd.DataFrame:
        with start_sandbox(program, now=None) as sb:
            return run(pull_snapshot(sb))

    return audit


@pytest.fixture
def clean() -> dict[str, Any]:
    return clean_program()
