"""Snapshots pulled from a sandbox over HTTP and compared frame by frame."""

from __future__ import annotations

import pandas as pd

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.frames import FRAME_NAMES
from lyt_toolkit.sandbox import Sandbox


def pull(sb: Sandbox) -> ProgramSnapshot:
    """A snapshot of everything ``sb`` holds, pulled the way users pull one."""
    with LoyaltyClient(
        base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
    ) as client:
        return ProgramSnapshot.pull(client, progress=False)


def assert_same_frames(expected: ProgramSnapshot, actual: ProgramSnapshot) -> None:
    """Every frame equal, kind by kind: values, dtypes and row order."""
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(actual, name), getattr(expected, name), obj=name)
