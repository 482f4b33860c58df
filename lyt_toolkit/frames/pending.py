"""When a pending points bucket can be activated, told the same way everywhere.

The service activates a bucket only while its program and member are ACTIVE,
its card definition holds points as pending (not ``IMMEDIATE``), the bucket is
PENDING and its date is still ahead of the service's today (UTC). The audit
rule ``pending-bucket-not-activatable`` and the preview of
``actions.activate_pending_buckets`` both ask :func:`blocked_reasons`, so they
can never disagree; :func:`blocked_mask` tells the same by whole columns (whether
there is any reason, not which), for frames too large to ask row by row.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..models.enums import MemberStatus, PendingBucketStatus, PendingPointsType, ProgramStatus
from .definitions import referenced_definition
from .members import PENDING_BUCKETS

__all__ = [
    "blocked_mask",
    "blocked_reasons",
    "bucket_date",
    "buckets_blocked",
    "rows_by_id",
    "rows_of",
    "with_statuses",
]

Rows = Mapping[str, Mapping[str, Any]]
"""Rows (as dicts) by their ID."""

Mask = npt.NDArray[np.bool_]
"""One flag per row of a frame."""

Values = npt.NDArray[np.object_]
"""A column's values as ``rows_of`` gives them."""


def bucket_date(value: Any) -> dt.date | None:
    """A bucket's activation date from a date, timestamp or ISO string (``None`` if missing)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    stamp = pd.Timestamp(value)
    stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
    return stamp.date()


def blocked_reasons(
    bucket: Mapping[str, Any],
    *,
    today: dt.date,
    program_status: str | None,
    member_status: str | None,
    definition: Mapping[str, Any] | None,
) -> list[str]:
    """Why the service would refuse to activate ``bucket`` today; empty when it would not.

    ``bucket`` is a row or dict with ``status``, ``date``, ``program_id``,
    ``member_id`` and ``card_definition_id``. A status of ``None`` means the
    program or member was not found; ``definition`` (with ``id`` and
    ``pending_points_type``) is ``None`` when the card definition does not exist.
    """
    reasons = []
    status = bucket.get("status")
    if status != PendingBucketStatus.PENDING:
        reasons.append(f"the bucket is {status}, not PENDING")
    date = bucket_date(bucket.get("date"))
    if date is not None and date <= today:
        reasons.append(f"its date {date:%Y-%m-%d} is not after {today:%Y-%m-%d}")
    if program_status != ProgramStatus.ACTIVE:
        reasons.append(f"program {bucket.get('program_id')} is {program_status or 'MISSING'}")
    if member_status != MemberStatus.ACTIVE:
        reasons.append(f"member {bucket.get('member_id')} is {member_status or 'MISSING'}")
    if definition is None:
        reasons.append(f"card definition {bucket.get('card_definition_id')} does not exist")
    elif definition.get("pending_points_type") == PendingPointsType.IMMEDIATE:
        reasons.append(
            f"card definition {definition.get('id')} does not hold points as pending (IMMEDIATE)"
        )
    return reasons


def buckets_blocked(
    buckets: Iterable[Mapping[str, Any]],
    *,
    today: dt.date,
    programs: Rows,
    members: Rows,
    definitions: Rows,
) -> list[list[str]]:
    """``blocked_reasons`` of each bucket, its program, member and card definition looked
    up by ID in ``programs``, ``members`` and ``definitions`` (a program or member not there:
    the status joined onto the bucket, ``program_status``/``member_status``, else missing;
    the card definition as ``referenced_definition`` finds it)."""
    return [
        blocked_reasons(
            bucket,
            today=today,
            program_status=_status(
                programs.get(bucket["program_id"]), bucket.get("program_status")
            ),
            member_status=_status(members.get(bucket["member_id"]), bucket.get("member_status")),
            definition=referenced_definition(definitions, bucket)[1],
        )
        for bucket in buckets
    ]


def blocked_mask(
    pending: pd.DataFrame,
    *,
    today: dt.date,
    programs: pd.DataFrame,
    members: pd.DataFrame,
    card_definitions: pd.DataFrame,
) -> pd.Series:
    """Whether each bucket of ``pending`` is blocked: ``bool`` of each of
    ``buckets_blocked(rows_of(pending), programs=rows_by_id(programs), ...)``, by whole
    columns. Indexed as ``pending``."""
    blocked = (
        ~_is(_values(pending, "status"), PendingBucketStatus.PENDING)
        | _due(pending, today)
        | ~_active(pending, "program", programs, ProgramStatus.ACTIVE)
        | ~_active(pending, "member", members, MemberStatus.ACTIVE)
        | _definition_blocks(pending, card_definitions)
    )
    return pd.Series(blocked, index=pending.index, dtype=bool)


def _values(frame: pd.DataFrame, name: str) -> Values:
    """A column's values as ``rows_of`` gives them: None where missing (all, with no column)."""
    if name not in frame.columns:
        return np.full(len(frame), None, dtype=object)
    # pandas takes any na_value (None included); its stubs list only scalar types.
    return frame[name].to_numpy(dtype=object, na_value=None)  # type: ignore[call-overload]


def _text(values: Values) -> Values:
    """``str`` of each value (of None: ``"None"``)."""
    return np.array([str(value) for value in values], dtype=object)


def _is(values: Values, word: str) -> Mask:
    """Where a value equals ``word`` (None never does)."""
    return np.asarray(values == word, dtype=bool)


def _truthy(values: Values) -> Mask:
    """Where a value is true as Python tests it (None never is)."""
    return np.array([bool(value) for value in values], dtype=bool)


def _by_id(rows: pd.DataFrame, values: npt.NDArray[Any]) -> pd.Series:
    """``values`` (one per row of ``rows``) by ID as ``rows_by_id`` keys them: the ID's text,
    the last of a repeated ID winning."""
    by_id = pd.Series(values, index=pd.Index(_text(_values(rows, "id")), dtype=object))
    return by_id[~by_id.index.duplicated(keep="last")]


def _look_up(by_id: pd.Series, ids: Values) -> tuple[Mask, Values]:
    """Which ``ids`` are in ``by_id``, and their values there (None where not)."""
    positions = by_id.index.get_indexer(pd.Index(ids, dtype=object))
    found = positions >= 0
    values = np.full(len(ids), None, dtype=object)
    values[found] = by_id.to_numpy(dtype=object)[positions[found]]
    return found, values


def _due(pending: pd.DataFrame, today: dt.date) -> Mask:
    """Where a bucket's date (``bucket_date``) is on or before ``today``; none without a date."""
    dates = pending["date"]
    if pd.api.types.is_datetime64_any_dtype(dates):
        stamps = dates.dt.tz_localize("UTC") if dates.dt.tz is None else dates
        tomorrow = pd.Timestamp(today + dt.timedelta(days=1), tz="UTC")
        return (stamps < tomorrow).to_numpy(dtype=bool)
    days = [bucket_date(value) for value in _values(pending, "date")]
    return np.array([day is not None and day <= today for day in days], dtype=bool)


def _active(pending: pd.DataFrame, subject: str, rows: pd.DataFrame, active: str) -> Mask:
    """Where a bucket's ``subject`` (program or member) has status ``active``: its status in
    ``rows`` by ID, else the one joined onto the bucket (``{subject}_status``), as ``_status``."""
    statuses = _by_id(rows, _text(_values(rows, "status")))
    found, status = _look_up(statuses, _values(pending, f"{subject}_id"))
    joined = _values(pending, f"{subject}_status")
    return _is(_text(np.where(found, status, joined)), active)


def _definition_blocks(pending: pd.DataFrame, card_definitions: pd.DataFrame) -> Mask:
    """Where the card definition ``referenced_definition`` finds is missing or IMMEDIATE."""
    refs = _values(pending, "card_definition_id")
    types = _values(card_definitions, "pending_points_type")
    listed, immediate = _look_up(
        _by_id(card_definitions, _is(types, PendingPointsType.IMMEDIATE)), refs
    )
    found = np.array(
        [value is True for value in _values(pending, "card_definition_found")], dtype=bool
    )
    fetched = found & _truthy(_values(pending, "card_definition_status"))
    missing = ~_truthy(refs) | (~listed & ~fetched)
    return missing | (listed & immediate.astype(bool))


def _status(row: Mapping[str, Any] | None, joined: object) -> str | None:
    """A row's status, else the status joined in elsewhere, else None (missing)."""
    if row is not None:
        return str(row.get("status"))
    return str(joined) if joined else None


def rows_of(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame's rows as dicts, NA as None (a snapshot's column names are all text)."""
    names = [str(name) for name in frame.columns]
    # pandas takes any na_value (None included); its stubs list only scalar types.
    values = frame.to_numpy(dtype=object, na_value=None)  # type: ignore[arg-type]
    return [dict(zip(names, row, strict=True)) for row in values]


def rows_by_id(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """``rows_of(frame)`` by their ``id``."""
    return {str(r["id"]): r for r in rows_of(frame)}


def with_statuses(
    frame: pd.DataFrame,
    program_status: Mapping[str, object],
    member_status: Mapping[str, object],
) -> pd.DataFrame:
    """The ``pending_buckets`` frame with its ``program_status`` and ``member_status`` filled
    from program ID -> status and member ID -> status (NA where an ID is not known)."""
    columns = PENDING_BUCKETS.by_name
    frame["program_status"] = columns["program_status"].array(
        [program_status.get(i) for i in frame["program_id"].astype(object)]
    )
    frame["member_status"] = columns["member_status"].array(
        [member_status.get(i) for i in frame["member_id"].astype(object)]
    )
    return frame
