"""When a paced pull should end, as its bar says: the calls to do over the windows to come."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lyt_toolkit.fill.pace import expected_end

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def test_calls_this_window_holds_end_now() -> None:
    assert expected_end(100, 150, 1500, 600, 3600, NOW) == NOW


def test_calls_beyond_this_window_end_in_the_window_that_holds_the_last() -> None:
    # 100 now, then 1,500 in each window: 3,000 more need two more windows, 3,001 three
    end = expected_end(3100, 100, 1500, 600, 3600, NOW)
    assert end == NOW + timedelta(seconds=600 + 3600)
    assert expected_end(3101, 100, 1500, 600, 3600, NOW) == NOW + timedelta(seconds=600 + 7200)


def test_a_window_that_allows_nothing_still_ends() -> None:
    assert expected_end(10, 0, 0, 30, 60, NOW) == NOW + timedelta(seconds=30 + 9 * 60)
