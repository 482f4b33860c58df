"""Helpers of the snapshot tests: clients, pulls, and snapshots built from a few rows."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pandas as pd

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.frames import FRAME_NAMES, SCHEMAS
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import DEMO_PROGRAM
from lyt_toolkit.snapshot.cost import pages
from lyt_toolkit.synthetic import generate_program

NOW = "2026-01-15T12:00:00Z"
"""The clock the sandboxes start at (the demo program's own default)."""


LARGE_MEMBERS = 1500
LARGE_PROGRAM = generate_program(
    members=LARGE_MEMBERS, rewards=120, benefits=30, card_definitions=3, tier_structures=2, seed=3
)
"""A program whose members cost more calls to read than half a 1,000-call window holds."""


def list_calls(program: dict[str, Any]) -> int:
    """What a pull of ``program`` sends before it reads a member: the token and one call per
    page of 100 of every list (one for an empty list), counted from the program file."""
    lists = ("rewards", "benefits", "card_definitions", "tier_structures", "programs")
    per_program = (
        sum(m["program_id"] == p["id"] for m in program["members"]) for p in program["programs"]
    )
    return (
        1
        + sum(pages(len(program[key]), 100) for key in lists)
        + sum(pages(count, 100) for count in per_program)
    )


def client_for(sb: Sandbox) -> LoyaltyClient:
    """A client of sandbox ``sb`` (no ``.env``)."""
    return LoyaltyClient(base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs())


def pull(sb: Sandbox, **kwargs: Any) -> ProgramSnapshot:
    """Everything ``sb`` holds (or what ``kwargs`` ask of the pull), pulled the way users pull
    it."""
    with client_for(sb) as client:
        return ProgramSnapshot.pull(client, progress=False, **kwargs)


def frame(kind: str, *rows: dict[str, Any]) -> pd.DataFrame:
    """A ``kind`` frame of ``rows``; columns a row leaves out are missing."""
    names = SCHEMAS[kind].names
    return SCHEMAS[kind].build([{n: row.get(n) for n in names} for row in rows])


def snapshot(pulled_at: str = NOW, **frames: pd.DataFrame) -> ProgramSnapshot:
    """A snapshot of the given frames (every other kind empty)."""
    return ProgramSnapshot.from_frames(frames, source="http://service.test", pulled_at=pulled_at)


def assert_same_frames(
    a: ProgramSnapshot, b: ProgramSnapshot, kinds: Iterable[str] = FRAME_NAMES
) -> None:
    """Every frame of ``kinds`` of ``a`` equals the one of ``b`` exactly: values, NA, dtypes,
    categories."""
    for name in kinds:
        left, right = getattr(a, name), getattr(b, name)
        pd.testing.assert_frame_equal(left, right, check_exact=True, obj=name)
        for column in left.columns:
            if isinstance(left[column].dtype, pd.CategoricalDtype):
                assert list(left[column].cat.categories) == list(right[column].cat.categories)


def assert_same(a: ProgramSnapshot, b: ProgramSnapshot) -> None:
    """Every frame of ``a`` equals the one of ``b`` exactly (``assert_same_frames``), and so
    do the times they were pulled at and their sources."""
    assert_same_frames(a, b)
    assert a.pulled_at == b.pulled_at and a.source == b.source


def demo_program() -> dict[str, Any]:
    """A fresh copy of the demo program file, free to change."""
    loaded: dict[str, Any] = json.loads(DEMO_PROGRAM.read_text(encoding="utf-8"))
    return loaded
