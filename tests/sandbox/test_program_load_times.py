"""The fast pass over relative times in a program section agrees with the plain walk."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from lyt_toolkit.sandbox.loader import resolve_times
from lyt_toolkit.sandbox.timeexpr import resolve_tree

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)

SECTIONS: list[list[Any]] = [
    [{"id": "a", "created_at": "now-3d", "date": "now+27d", "note": "now is the time"}],
    [{"id": "é", "créé": "now-1d+2h", "plain": "2026-01-01T00:00:00Z", "n": 10**30, "f": 0.1}],
    [{"id": "b", "dates": ["now", "now-1s"], "nested": {"date": "now-40d", "x": None}}],
    [{"id": "c", "quoted": 'say \\"k\\":\\"now\\"', "spaced": " now-1d "}],
    [{"id": "d", "created_at": "2026-01-15T12:00:00.000Z"}],
    [],
]


@pytest.mark.parametrize("section", SECTIONS)
def test_resolve_times_matches_the_walk(section: list[Any]) -> None:
    assert resolve_times(section, NOW) == resolve_tree(section, NOW)


def test_resolve_times_writes_dates_and_timestamps() -> None:
    [doc] = resolve_times([{"id": "a", "created_at": "now-1d", "date": "now+1d"}], NOW)
    assert doc == {"id": "a", "created_at": "2026-01-14T12:00:00.000Z", "date": "2026-01-16"}
