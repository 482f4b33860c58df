"""Audit fixtures: sandboxes reached over real HTTP and pulled into program snapshots.

The demo runs on a fixed clock (its dates are relative to the clock at load, and the snapshot
takes ``pulled_at`` from the service), so findings reproduce; other programs use the real clock.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit import LoyaltyClient
from lyt_toolkit.audit import run
from lyt_toolkit.frames import ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox

from .programs import clean_program

NOW = "2026-01-15T12:00:00Z"


def pull_snapshot(sb: Sandbox) -> Any:
    """A snapshot of everything the sandbox holds, as ``lyt audit`` pulls it."""
    with LoyaltyClient(
        base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
    ) as client:
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture(scope="module")
def demo_snapshot() -> Iterator[Any]:
    """The bundled demo program, pulled once per module."""
    with Sandbox.start(now=NOW, seed=7) as sb:
        yield pull_snapshot(sb)


@pytest.fixture(scope="module")
def demo_findings(demo_snapshot: Any) -> pd.DataFrame:
    return run(demo_snapshot)


@pytest.fixture
def audit_program():
    """``audit_program(program_dict)`` -> findings of that program served by a sandbox."""

    def audit(program: dict[str, Any]) -> pd.DataFrame:
        with Sandbox.start(data=program, seed=7) as sb:
            return run(pull_snapshot(sb))

    return audit


@pytest.fixture
def clean() -> dict[str, Any]:
    return clean_program()
