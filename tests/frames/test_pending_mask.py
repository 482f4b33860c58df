"""``blocked_mask`` over generated buckets, programs, members and card definitions: it blocks
exactly the buckets ``buckets_blocked`` gives a reason for, whatever is missing or odd."""

from __future__ import annotations

import datetime as dt
import functools
from enum import Enum
from typing import Any

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lyt_toolkit.frames import SCHEMAS
from lyt_toolkit.frames.pending import blocked_mask, buckets_blocked, rows_by_id, rows_of
from lyt_toolkit.models.enums import (
    MemberStatus,
    PendingBucketStatus,
    PendingPointsType,
    ProgramStatus,
)

TODAY = dt.date(2026, 1, 15)
PROGRAMS = ["lprg_a", "lprg_b"]
MEMBERS = ["lmbr_a", "lmbr_b", "lmbr_c"]
DEFINITIONS = ["lcdef_a", "lcdef_b", "lcdef_c"]


def _mostly(good: Any, *others: Any) -> st.SearchStrategy[Any]:
    """``good`` three times in four, else one of ``others`` (so some buckets are not blocked)."""
    return st.sampled_from([good] * 3 * len(others) + list(others))


def _statuses(active: Any, statuses: type[Enum]) -> st.SearchStrategy[Any]:
    return _mostly(active, None, *statuses)


def _frame(kind: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """A ``kind`` frame of ``rows``; columns a row leaves out are missing. Built once for
    rows drawn again (a copy each time: the owners' few rows repeat across examples)."""
    names = SCHEMAS[kind].names
    typed = tuple(tuple((type(row.get(n)), row.get(n)) for n in names) for row in rows)
    return _built(kind, typed).copy()  # typed: an enum member is not taken for its text


@functools.cache
def _built(kind: str, rows: tuple[tuple[tuple[type, Any], ...], ...]) -> pd.DataFrame:
    """``_frame``'s frame of ``rows``: per row, the type and value of each of the ``kind``
    schema's columns."""
    names = SCHEMAS[kind].names
    return SCHEMAS[kind].build(
        [{n: v for n, (_, v) in zip(names, row, strict=True)} for row in rows]
    )


def _owners(kind: str, ids: list[str], statuses: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A programs or members frame: IDs from ``ids`` (repeated, missing or absent) with statuses."""
    row = st.fixed_dictionaries({"id": st.sampled_from([*ids, None]), "status": statuses})
    return st.lists(row, max_size=5).map(lambda rows: _frame(kind, rows))


_definition = st.fixed_dictionaries(
    {
        "id": st.sampled_from([*DEFINITIONS, None]),
        "pending_points_type": _mostly(PendingPointsType.FIXED_DATES, None, *PendingPointsType),
    }
)
definitions = st.lists(_definition, max_size=5).map(lambda rows: _frame("card_definitions", rows))

_day = st.integers(-2, 2).map(lambda n: TODAY + dt.timedelta(days=n))
dates = st.one_of(
    st.none(),
    st.builds(
        lambda day, minutes: (
            dt.datetime.combine(day, dt.time(), dt.UTC) + dt.timedelta(minutes=minutes)
        ),
        _day,
        st.sampled_from([0, 1, 720, 1439]),
    ),
)

_bucket = st.fixed_dictionaries(
    {
        "status": _mostly(PendingBucketStatus.PENDING, None, *PendingBucketStatus),
        "date": dates,
        "program_id": _mostly(PROGRAMS[0], None, "lprg_z", *PROGRAMS),
        "member_id": _mostly(MEMBERS[0], None, "lmbr_z", *MEMBERS),
        "card_definition_id": _mostly(DEFINITIONS[0], None, "lcdef_z", *DEFINITIONS),
        "program_status": _statuses(ProgramStatus.ACTIVE, ProgramStatus),
        "member_status": _statuses(MemberStatus.ACTIVE, MemberStatus),
    }
)


@st.composite
def buckets(draw: st.DrawFn) -> pd.DataFrame:
    """A ``pending_buckets`` frame, indexed as a filtered one is; some with the fetched card
    definition columns ``referenced_definition`` falls back on."""
    rows = draw(st.lists(_bucket, max_size=12))
    frame = _frame("pending_buckets", [{"id": f"lcppb_{i}", **r} for i, r in enumerate(rows)])
    frame.index = pd.RangeIndex(3, 3 + 2 * len(frame), 2)
    if draw(st.booleans()):
        found = st.lists(
            st.sampled_from([True, False, None]), min_size=len(frame), max_size=len(frame)
        )
        status = st.lists(
            st.sampled_from(["ACTIVE", "", None]), min_size=len(frame), max_size=len(frame)
        )
        frame["card_definition_found"] = pd.array(draw(found), dtype="boolean")
        frame["card_definition_status"] = pd.array(draw(status), dtype="str")
    return frame


def _date_forms(frame: pd.DataFrame, forms: list[int]) -> pd.DataFrame:
    """``frame`` with its dates as an object column of the other forms ``bucket_date`` reads."""
    out = frame.copy()
    out["date"] = pd.Series(
        [_form(stamp, form) for stamp, form in zip(frame["date"], forms, strict=False)],
        index=frame.index,
        dtype=object,
    )
    return out


def _form(stamp: pd.Timestamp, form: int) -> object:
    if pd.isna(stamp):
        return None
    return [
        stamp.date(),
        stamp.isoformat(),
        stamp.tz_convert("America/Sao_Paulo"),
        stamp.tz_convert("Asia/Tokyo").isoformat(),
        stamp.tz_localize(None),
    ][form]


def _expected(
    pending: pd.DataFrame,
    programs: pd.DataFrame,
    members: pd.DataFrame,
    card_definitions: pd.DataFrame,
) -> list[bool]:
    blocked = buckets_blocked(
        rows_of(pending),
        today=TODAY,
        programs=rows_by_id(programs),
        members=rows_by_id(members),
        definitions=rows_by_id(card_definitions),
    )
    return [bool(reasons) for reasons in blocked]


@settings(max_examples=200, derandomize=True)
@given(
    buckets(),
    _owners("programs", PROGRAMS, _statuses(ProgramStatus.ACTIVE, ProgramStatus)),
    _owners("members", MEMBERS, _statuses(MemberStatus.ACTIVE, MemberStatus)),
    definitions,
)
def test_blocked_mask_is_buckets_blocked(
    pending: pd.DataFrame,
    programs: pd.DataFrame,
    members: pd.DataFrame,
    card_definitions: pd.DataFrame,
) -> None:
    mask = blocked_mask(
        pending,
        today=TODAY,
        programs=programs,
        members=members,
        card_definitions=card_definitions,
    )
    assert mask.dtype == bool
    assert mask.index.equals(pending.index)
    assert list(mask) == _expected(pending, programs, members, card_definitions)


@settings(max_examples=60, derandomize=True)
@given(buckets(), definitions, st.lists(st.integers(0, 4), min_size=12, max_size=12))
def test_blocked_mask_reads_every_date_form(
    pending: pd.DataFrame, card_definitions: pd.DataFrame, forms: list[int]
) -> None:
    """Dates as dates, ISO text, timestamps in other zones or none: the day is UTC's."""
    programs = _frame("programs", [{"id": PROGRAMS[0], "status": "ACTIVE"}])
    members = _frame("members", [{"id": MEMBERS[0], "status": "ACTIVE"}])
    odd = _date_forms(pending, forms)
    mask = blocked_mask(
        odd, today=TODAY, programs=programs, members=members, card_definitions=card_definitions
    )
    assert list(mask) == _expected(odd, programs, members, card_definitions)
    assert list(mask) == _expected(pending, programs, members, card_definitions)


def test_blocked_mask_on_the_odd_cases_by_hand() -> None:
    """A repeated ID's last row counts; a fetched card definition counts only when the bucket
    names one; an unknown program or member falls back on the joined status."""
    good = {"status": "PENDING", "date": "2026-01-16T00:00:00Z", "member_id": MEMBERS[0],
            "card_definition_id": DEFINITIONS[0]}  # fmt: skip
    rows: list[dict[str, str | None]] = [
        {**good, "program_id": PROGRAMS[0]},
        {**good, "program_id": PROGRAMS[1]},
        {**good, "program_id": "lprg_z", "program_status": "ACTIVE"},
        {**good, "program_id": PROGRAMS[0], "card_definition_id": "lcdef_z"},
        {**good, "program_id": PROGRAMS[0], "card_definition_id": None},
        {**good, "program_id": PROGRAMS[0], "date": "2026-01-15T23:59:59Z"},
    ]
    pending = _frame("pending_buckets", [{"id": f"lcppb_{i}", **r} for i, r in enumerate(rows)])
    pending["card_definition_found"] = pd.array([True] * len(rows), dtype="boolean")
    pending["card_definition_status"] = pd.array(["ACTIVE", None, None, "ACTIVE", "ACTIVE", None])
    programs = _frame("programs", [{"id": PROGRAMS[0], "status": "DRAFT"},
                                   {"id": PROGRAMS[0], "status": "ACTIVE"},
                                   {"id": PROGRAMS[1], "status": "ACTIVE"},
                                   {"id": PROGRAMS[1], "status": "INACTIVE"}])  # fmt: skip
    members = _frame("members", [{"id": MEMBERS[0], "status": "ACTIVE"}])
    card_definitions = _frame("card_definitions", [{"id": DEFINITIONS[0]}])
    mask = blocked_mask(
        pending, today=TODAY, programs=programs, members=members, card_definitions=card_definitions
    )
    assert list(mask) == [False, True, False, False, True, True]
    assert list(mask) == _expected(pending, programs, members, card_definitions)
