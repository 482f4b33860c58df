"""A data-level function given the wrong kind of argument says which argument and what it
expected, before anything is read or sent (no AttributeError from deep inside)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit import actions, audit
from lyt_toolkit.snapshot import ProgramSnapshot

SNAPSHOT = ProgramSnapshot.from_frames({}, pulled_at="2026-01-15T12:00:00Z")
NOT_SENT = actions.delete_tier_structures(["lts_c0ffee0001"])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: ProgramSnapshot.estimate(None, cards_per_member="x"),  # type: ignore[arg-type]
            TypeError,
            "cards_per_member: expected an integer or None, not str",
        ),
        (
            lambda: SNAPSHOT.diff("x"),  # type: ignore[arg-type]
            TypeError,
            "other: expected a ProgramSnapshot, not str",
        ),
        (
            lambda: audit.run(None),  # type: ignore[arg-type]
            TypeError,
            "snapshot: expected a ProgramSnapshot, not NoneType",
        ),
        (
            lambda: ProgramSnapshot.from_frames(None),  # type: ignore[arg-type]
            TypeError,
            "frames: expected a mapping of frame names to DataFrames, not NoneType",
        ),
        (
            lambda: ProgramSnapshot.from_frames({"rewards": None}),  # type: ignore[dict-item]
            TypeError,
            "frames['rewards']: expected a DataFrame, not NoneType",
        ),
        (
            lambda: ProgramSnapshot.from_frames({}, pulled_at="bad"),
            ValueError,
            "pulled_at: 'bad' is not a date and time",
        ),
        (
            lambda: ProgramSnapshot.from_frames({}, pulled_at=5),  # type: ignore[arg-type]
            TypeError,
            "pulled_at: expected an ISO 8601 string or a datetime, not int",
        ),
        (
            lambda: NOT_SENT.execute(None, progress=False),  # type: ignore[arg-type]
            TypeError,
            "client: expected a LoyaltyClient, not NoneType",
        ),
        (
            lambda: NOT_SENT.execute("log.jsonl", progress=False),  # type: ignore[arg-type]
            TypeError,
            "client: expected a LoyaltyClient, not str",
        ),
    ],
    ids=[
        "estimate-cards-per-member",
        "diff-other",
        "audit-snapshot",
        "from-frames-frames",
        "from-frames-frame",
        "from-frames-pulled-at",
        "from-frames-pulled-at-type",
        "execute-no-client",
        "execute-log-as-client",
    ],
)
def test_a_wrong_argument_is_named(
    call: Callable[[], Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value).startswith(message), raised.value


def test_right_arguments_still_work() -> None:
    frames = {"rewards": SNAPSHOT.rewards}
    snapshot = ProgramSnapshot.from_frames(frames, pulled_at=pd.Timestamp("2026-01-15"))
    assert snapshot.pulled_at == pd.Timestamp("2026-01-15", tz="UTC")
    assert snapshot.diff(SNAPSHOT).changes.empty
    assert len(audit.run(SNAPSHOT)) == 0
