"""Relative time expressions of program files."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from lyt_toolkit.sandbox.timeexpr import (
    TimeExpressionError,
    format_timestamp,
    is_relative,
    resolve,
    resolve_date,
    resolve_tree,
)

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("now", timedelta()),
        ("now+3d", timedelta(days=3)),
        ("now-2h", timedelta(hours=-2)),
        ("now+90m", timedelta(minutes=90)),
        ("now-30s", timedelta(seconds=-30)),
        ("now-1d+2h", timedelta(days=-1, hours=2)),
        (" now+1d ", timedelta(days=1)),
    ],
)
def test_relative(text: str, delta: timedelta) -> None:
    assert resolve(text, NOW) == NOW + delta
    assert is_relative(text)


def test_absolute_values_pass_through() -> None:
    assert resolve("2025-03-01T08:30:00Z", NOW) == datetime(2025, 3, 1, 8, 30, tzinfo=UTC)
    assert resolve("2025-03-01T08:30:00", NOW).tzinfo is UTC  # naive means UTC
    assert resolve("2025-03-01", NOW) == datetime(2025, 3, 1, tzinfo=UTC)
    cet = timezone(timedelta(hours=1))
    shifted = resolve("2025-03-01T09:30:00+01:00", NOW)
    assert shifted == datetime(2025, 3, 1, 9, 30, tzinfo=cet)
    assert shifted.tzinfo is UTC  # always normalised to UTC


def test_naive_clock_is_taken_as_utc() -> None:
    assert resolve("now+1h", datetime(2026, 1, 15, 12)) == NOW + timedelta(hours=1)


@pytest.mark.parametrize("bad", ["now+3", "now+3w", "Now", "tomorrow", "now + 3d", "", "3d"])
def test_rejects_garbage(bad: str) -> None:
    assert not is_relative(bad)
    with pytest.raises(TimeExpressionError):
        resolve(bad, NOW)


def test_rejects_non_strings() -> None:
    with pytest.raises(TimeExpressionError):
        resolve(5, NOW)  # type: ignore[arg-type]


def test_resolve_date() -> None:
    assert resolve_date("now", NOW) == date(2026, 1, 15)
    assert resolve_date("now+13h", NOW) == date(2026, 1, 16)


def test_format_timestamp() -> None:
    moment = datetime(2026, 1, 15, 12, 0, 1, 987654, tzinfo=UTC)
    assert format_timestamp(moment) == "2026-01-15T12:00:01.987Z"


def test_resolve_tree_converts_only_exact_expressions() -> None:
    data = {
        "created_at": "now-1d",
        "updated_at": None,
        "date": "now+2d",
        "name": "now is the time",
        "nested": [{"start_date": "now", "end_date": "2026-02-01T00:00:00Z", "n": 3}],
    }
    out = resolve_tree(data, NOW)
    assert out == {
        "created_at": "2026-01-14T12:00:00.000Z",
        "updated_at": None,
        "date": "2026-01-17",
        "name": "now is the time",
        "nested": [
            {"start_date": "2026-01-15T12:00:00.000Z", "end_date": "2026-02-01T00:00:00Z", "n": 3}
        ],
    }
    assert data["created_at"] == "now-1d"  # input untouched
