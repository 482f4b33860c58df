"""The fast pass over relative times in a program section agrees with the plain walk."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lyt_toolkit.sandbox.loader import resolve_times
from lyt_toolkit.sandbox.timeexpr import (
    RelativeFormatter,
    format_timestamp,
    resolve,
    resolve_date,
    resolve_tree,
)

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


_KEYS = st.sampled_from(["date", "created_at", "a:", 'q"k', "b\\s", "", "now", "créé"])
_EXPRESSIONS = st.builds(
    lambda terms: "now" + "".join(terms),
    st.lists(
        st.builds(
            lambda sign, amount, unit: f"{sign}{amount}{unit}",
            st.sampled_from("+-"),
            st.integers(0, 10**5),
            st.sampled_from("dhms"),
        ),
        max_size=3,
    ),
)
_VALUES = st.one_of(
    _EXPRESSIONS,
    st.sampled_from(["nowhere", " now ", ':"now', 'x":"now-1d', "now-1x", "now+"]),
    st.text(max_size=5),
    st.integers(),
    st.none(),
)
_JSON = st.recursive(
    _VALUES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(_KEYS, _JSON, max_size=5), max_size=3))
def test_resolve_times_matches_the_walk_on_any_section(section: list[Any]) -> None:
    assert resolve_times(section, NOW) == resolve_tree(section, NOW)


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(3000, 1, 1)),
    _EXPRESSIONS,
)
def test_relative_formatter_spells_as_resolve(now: datetime, expr: str) -> None:
    formatter = RelativeFormatter(now)
    for spell in (formatter.spell, formatter.spelled):
        assert spell(expr, date_only=False) == format_timestamp(resolve(expr, now))
        assert spell(expr, date_only=True) == resolve_date(expr, now).isoformat()


@pytest.mark.parametrize(
    "value", ["now-", "now-3", "now-3y", " now-3d", "now-3d ", "2026-01-01", "nowhere", ""]
)
def test_relative_formatter_spells_only_what_is_exactly_an_expression(value: str) -> None:
    assert RelativeFormatter(NOW).spelled(value, date_only=False) is None
