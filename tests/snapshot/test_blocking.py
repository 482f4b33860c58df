"""A blocking pull or refresh runs its coroutine on a loop of its own and hands the result
back without formatting it."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox


def test_a_blocking_pull_and_refresh_format_none_of_their_frames(
    sandbox: Sandbox, make_client: Callable[..., LoyaltyClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the main thread ``asyncio.run`` ends with ``signal.getsignal``, which on Python 3.11
    formats the repr of its finished task, result included: were the result the frames, every
    frame would be rendered as text after every pull (some 0.1 s on a few hundred members)."""
    formatted: list[int] = []
    shown = pd.DataFrame.__repr__

    def counted(frame: pd.DataFrame) -> str:
        formatted.append(len(frame))
        return shown(frame)

    monkeypatch.setattr(pd.DataFrame, "__repr__", counted)
    with make_client(sandbox) as client:
        snapshot = ProgramSnapshot.pull(client, progress=False)
        refreshed = snapshot.refresh(client, progress=False)
    assert len(snapshot.rewards) and len(refreshed.rewards)
    assert formatted == []
