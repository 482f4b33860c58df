"""Pending points by activation month and the expiry estimate, checked against hand figures."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from frame_reads import records
from snapshot.helpers import frame, snapshot

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.economics import ECONOMICS_SCHEMAS, expiry_schedule, pending_schedule

from .owed_program import (
    BEANS,
    NOW,
    STARS,
    cards_of,
    owed_program,
    pending_of,
    pull_program,
)

TODAY = dt.date.fromisoformat(NOW[:10])


@pytest.fixture(scope="module")
def owed(start_sandbox: Callable[..., Any], make_client: Callable[..., Any]) -> ProgramSnapshot:
    return pull_program(start_sandbox, make_client, owed_program())


def _activation(bucket: dict[str, Any]) -> dt.date:
    """A bucket's date from the program file's ``now+Nd``."""
    return TODAY + dt.timedelta(days=int(bucket["date"].removeprefix("now+").removesuffix("d")))


def _month(day: dt.date) -> pd.Timestamp:
    return pd.Timestamp(day.year, day.month, 1, tz="UTC")


def test_pending_points_by_activation_month_by_hand(owed: ProgramSnapshot) -> None:
    program = owed_program()
    expected: dict[tuple[str, pd.Timestamp], list[int]] = {}
    for definition in (BEANS, STARS):
        for bucket in pending_of(program, definition):
            key = (definition, _month(_activation(bucket)))
            expected.setdefault(key, []).append(bucket["points"]["total"])
    schedule = pending_schedule(owed)
    got = {(r.card_definition_id, r.month): (r.points, r.buckets) for r in schedule.itertuples()}
    assert got == {k: (sum(v), len(v)) for k, v in expected.items()}
    assert list(schedule["card_definition_name"]) == ["Beans", "Beans", "Stars"]


def _quarter_end_month(day: dt.date) -> pd.Timestamp:
    """12 months later, rounded up to the end of its quarter (Beans' settings)."""
    month = ((day.month - 1) // 3 + 1) * 3
    return pd.Timestamp(day.year + 1, month, 1, tz="UTC")


def _next_calendar_month(day: dt.date) -> pd.Timestamp:
    """The month of the first of 30 June / 31 December after ``day`` (Stars' settings)."""
    after = min(d for d in (dt.date(day.year, 6, 30), dt.date(day.year, 12, 31)) if d > day)
    return _month(after)


def test_expiry_estimate_by_hand(owed: ProgramSnapshot) -> None:
    program = owed_program()
    current = "current balance, assumed earned 2026-01-15 (the latest)"
    pending = "pending bucket, assumed earned on its activation date"
    expected: dict[tuple[str, pd.Timestamp, str], int] = {}
    for definition, expires in ((BEANS, _quarter_end_month), (STARS, _next_calendar_month)):
        balance = sum(c["balance"]["points"] for c in cards_of(program, definition))
        expected[(definition, expires(TODAY), current)] = balance
        for bucket in pending_of(program, definition):
            key = (definition, expires(_activation(bucket)), pending)
            expected[key] = expected.get(key, 0) + bucket["points"]["total"]
    schedule = expiry_schedule(owed)
    got = {(r.card_definition_id, r.month, r.assumption): r.points for r in schedule.itertuples()}
    assert got == expected  # Spare (NO_EXPIRATION) has no row
    types = dict(zip(schedule["card_definition_id"], schedule["expiration_type"], strict=False))
    assert types == {BEANS: "ROLLING_EXPIRATION", STARS: "CALENDAR_EXPIRATION"}


def _rolling_definition(
    value: int | None, unit: str | None, rounding: str | None, target: int | None
) -> Any:
    return frame(
        "card_definitions",
        {
            "id": BEANS,
            "name": "Beans",
            "points_expiration_type": "ROLLING_EXPIRATION",
            "points_expiration_period_value": value,
            "points_expiration_period_unit": unit,
            "points_expiration_rounding_type": rounding,
            "points_expiration_rounding_value": target,
        },
    )


@pytest.mark.parametrize(
    ("value", "unit", "rounding", "target", "month"),
    [  # earned 2026-01-15; the expiry month worked out by hand
        (90, "DAY", None, None, "2026-04"),  # 15 April
        (90, "DAY", "END_OF_MONTH", None, "2026-04"),
        (2, "MONTH", "END_OF_QUARTER", None, "2026-03"),  # 15 March: its quarter ends in March
        (3, "MONTH", "END_OF_HALF_YEAR", None, "2026-06"),
        (1, "WEEK", "END_OF_YEAR", None, "2026-12"),
        (6, "MONTH", "END_OF_PARTICULAR_MONTH", 3, "2027-03"),  # July -> next March
        (1, "MONTH", "END_OF_PARTICULAR_MONTH", 3, "2026-03"),  # February -> this March
        (1, "YEAR", None, None, "2027-01"),
    ],
)
def test_rolling_periods_and_roundings(
    value: int, unit: str, rounding: str | None, target: int | None, month: str
) -> None:
    owed = snapshot(
        card_definitions=_rolling_definition(value, unit, rounding, target),
        cards=frame("cards", {"id": "lcrd_1", "card_definition_id": BEANS, "balance_points": 70}),
    )
    schedule = expiry_schedule(owed)
    assert list(schedule["month"]) == [pd.Timestamp(f"{month}-01", tz="UTC")]
    assert list(schedule["points"]) == [70]


def test_missing_period_gives_na_month_and_today_is_a_parameter() -> None:
    owed = snapshot(
        card_definitions=_rolling_definition(None, None, None, None),
        cards=frame("cards", {"id": "lcrd_1", "card_definition_id": BEANS, "balance_points": 70}),
    )
    assert expiry_schedule(owed)["month"].isna().all()
    dated = snapshot(
        card_definitions=_rolling_definition(1, "MONTH", None, None),
        cards=frame("cards", {"id": "lcrd_1", "card_definition_id": BEANS, "balance_points": 70}),
    )
    row = expiry_schedule(dated, today="2026-05-02").iloc[0]
    assert row["month"] == pd.Timestamp("2026-06-01", tz="UTC")
    assert "2026-05-02" in row["assumption"]


def test_empty_program_gives_the_declared_dtypes() -> None:
    empty = ProgramSnapshot.from_frames({})
    for name, built in (
        ("pending_schedule", pending_schedule(empty)),
        ("expiry_schedule", expiry_schedule(empty)),
    ):
        assert built.empty
        assert dict(built.dtypes) == ECONOMICS_SCHEMAS[name].dtypes, name


def test_pending_buckets_that_can_never_activate_are_marked_as_the_audit_flags_them(
    start_sandbox: Callable[..., Any], make_client: Callable[..., Any]
) -> None:
    from lyt_toolkit.audit import run

    program = owed_program()
    program["members"][1]["status"] = "INACTIVE"  # member 2: its Beans buckets 2 and 3
    program["pending_buckets"].append(
        {**program["pending_buckets"][0], "id": "lcppb_b0e0000009", "date": "now-3d"}
    )  # card 1, 120 Beans, dated before today
    program["cards"][0]["balance"]["pending_points"] = 240  # as its buckets hold
    pulled = pull_program(start_sandbox, make_client, program)
    schedule = pending_schedule(pulled)
    got = {
        (r.card_definition_id, r.month.strftime("%Y-%m")): (
            r.points,
            r.buckets,
            r.cannot_activate_points,
            r.cannot_activate_buckets,
        )
        for r in records(schedule)
    }
    assert got == {
        (BEANS, "2026-01"): (240, 2, 120, 1),
        (BEANS, "2026-02"): (120, 2, 120, 2),
        (STARS, "2026-07"): (300, 1, 0, 0),
    }
    flagged = run(pulled, ["pending-bucket-not-activatable"])["resource_id"]
    stuck = pulled.pending_buckets[pulled.pending_buckets["id"].isin(flagged)]
    assert int(stuck["points_total"].sum()) == int(schedule["cannot_activate_points"].sum())
