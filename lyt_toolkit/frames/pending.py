"""When a pending points bucket can be activated, told the same way everywhere.

The service activates a bucket only while its program and member are ACTIVE,
its card definition holds points as pending (not ``IMMEDIATE``), the bucket is
PENDING and its date is still ahead of the service's today (UTC). The audit
rule ``pending-bucket-not-activatable`` and the preview of
``actions.activate_pending_buckets`` both ask :func:`blocked_reasons`, so they
can never disagree.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any, cast

import pandas as pd

from ..models.enums import MemberStatus, PendingBucketStatus, PendingPointsType, ProgramStatus
from .definitions import referenced_definition
from .members import PENDING_BUCKETS

__all__ = [
    "blocked_reasons",
    "bucket_date",
    "buckets_blocked",
    "rows_by_id",
    "rows_of",
    "with_statuses",
]

Rows = Mapping[str, Mapping[str, Any]]
"""Rows (as dicts) by their ID."""


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


def _status(row: Mapping[str, Any] | None, joined: object) -> str | None:
    """A row's status, else the status joined in elsewhere, else None (missing)."""
    if row is not None:
        return str(row.get("status"))
    return str(joined) if joined else None


def rows_of(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame's rows as dicts, NA as None (a snapshot's column names are all text)."""
    return cast(
        list[dict[str, Any]], frame.astype(object).where(frame.notna(), None).to_dict("records")
    )


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
