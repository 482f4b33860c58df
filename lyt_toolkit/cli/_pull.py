"""What ``lyt audit``, ``lyt demo`` and ``lyt export`` share: a client, a pull and ``--out``.

The client connects to the configured service, or with ``sandbox`` to the
bundled demo program on an embedded sandbox (a local copy of the service on
loopback). Imports are late so ``lyt --help`` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import APIError, LytError

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..snapshot import ProgramSnapshot

__all__ = [
    "EMPTY_OUT",
    "REFUSED",
    "calls_line",
    "connected_client",
    "output_dir",
    "pull_snapshot",
    "refused",
]

REFUSED = "the service refused the credentials (401); check LYT_APP_ID and LYT_APP_TOKEN"
"""The line printed when the service refuses the key pair."""

EMPTY_OUT = "--out is empty; give the directory to write to"
"""The line printed for an empty ``--out``."""


def output_dir(text: str, command: str) -> Path | None:
    """``--out`` as a directory path with ``~`` expanded; None when it is empty, once
    ``{command}: {EMPTY_OUT}`` is printed to stderr."""
    if not text.strip():
        print(f"{command}: {EMPTY_OUT}", file=sys.stderr)
        return None
    return Path(text).expanduser()


@contextmanager
def connected_client(sandbox: bool) -> Iterator[LoyaltyClient]:
    """A connected client: to the embedded demo sandbox, or to the configured service."""
    from ..client import LoyaltyClient

    if not sandbox:
        with LoyaltyClient() as client:
            yield client
        return
    from ..sandbox import Sandbox

    # No clock is forced: the demo file brings its own (2026-01-15T12:00Z) and every date in it
    # is relative to the clock at load, so the findings are the same on any day.
    with Sandbox.start(seed=7) as sb:
        keys = sb.credentials
        with LoyaltyClient(
            base_url=sb.base_url,
            env_file=None,
            app_id=keys.app_id,
            app_token=keys.app_token,
            management_id=keys.management_id,
            management_token=keys.management_token,
        ) as client:
            yield client


def pull_snapshot(sandbox: bool) -> ProgramSnapshot:
    """Everything the service (``connected_client(sandbox)``) holds; a progress bar only when
    stderr is a terminal."""
    from ..snapshot import ProgramSnapshot

    with connected_client(sandbox) as client:
        return ProgramSnapshot.pull(client, progress=sys.stderr.isatty())


def calls_line(snapshot: ProgramSnapshot) -> str:
    """``API calls used: N; remaining this window: R of L; resets at T`` for a pulled snapshot."""
    return f"API {snapshot.calls}" if snapshot.calls is not None else "API calls: not counted"


def refused(exc: LytError) -> bool:
    """Whether the service refused the credentials."""
    return isinstance(exc, APIError) and exc.status == 401
