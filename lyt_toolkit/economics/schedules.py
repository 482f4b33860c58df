"""When points arrive and when they would leave: pending points by activation month, and an
estimate of expiry by month under each card definition's expiration settings."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import pandas as pd

from ..frames.pending import blocked_mask
from ..models.enums import PendingBucketStatus, PointsExpirationType, RoundingType
from ..snapshot.model import ProgramSnapshot
from ._common import definition_names, first_of_month, sum_by, weighted, whole
from ._frames import columns
from .liability import points_by_definition
from .schemas import EXPIRY_SCHEDULE, PENDING_SCHEDULE

__all__ = ["expiry_from", "expiry_schedule", "pending_schedule"]

ROLLING = PointsExpirationType.ROLLING_EXPIRATION
CALENDAR = PointsExpirationType.CALENDAR_EXPIRATION

_MONTHS_TO_ROUND = {  # month index (0 = January) -> months to add to reach the rounded end
    RoundingType.END_OF_MONTH: lambda m: 0 * m,
    RoundingType.END_OF_QUARTER: lambda m: 2 - m % 3,
    RoundingType.END_OF_HALF_YEAR: lambda m: 5 - m % 6,
    RoundingType.END_OF_YEAR: lambda m: 11 - m,
}


def pending_schedule(snapshot: ProgramSnapshot) -> pd.DataFrame:
    """One row per card definition x month: the PENDING points activating that month.

    ``month`` is the first day of the bucket's activation month (00:00 UTC); ``points``
    sums its buckets (NA when one is unknown) and ``buckets`` counts them. Of these,
    ``cannot_activate_points`` and ``cannot_activate_buckets`` are the buckets that can never
    activate (program or member not ACTIVE, date not after the snapshot's day, card definition
    missing or IMMEDIATE: those the audit rule ``pending-bucket-not-activatable`` flags).
    Buckets without a date are left out. Ordered by card definition, then month. On a
    sampled snapshot all four are weighted: estimates of the program's, to the nearest whole
    number.
    """
    buckets = snapshot.pending_buckets
    pending = buckets[(buckets["status"] == PendingBucketStatus.PENDING) & buckets["date"].notna()]
    points = weighted(snapshot, pending, "points_total")
    count = pending["weight"] if snapshot.sample is not None else pd.Series(1, index=pending.index)
    stuck = _cannot_activate(snapshot, pending)
    keys = pd.DataFrame(
        {
            "card_definition_id": pending["card_definition_id"].astype("string"),
            "month": first_of_month(pending["date"]),
            "points": points,
            "buckets": count,
            "cannot_activate_points": points.where(stuck, 0),
            "cannot_activate_buckets": count.where(stuck, 0),
        }
    )
    grouped = keys.groupby(["card_definition_id", "month"], sort=True)
    frame = pd.DataFrame(
        {
            "points": whole(sum_by(grouped["points"])),
            "buckets": whole(grouped["buckets"].sum()),
            "cannot_activate_points": whole(sum_by(grouped["cannot_activate_points"])),
            "cannot_activate_buckets": whole(grouped["cannot_activate_buckets"].sum()),
        }
    ).reset_index()
    frame.insert(1, "card_definition_name", definition_names(snapshot, frame["card_definition_id"]))
    return PENDING_SCHEDULE.conform(frame)


def _cannot_activate(snapshot: ProgramSnapshot, pending: pd.DataFrame) -> pd.Series:
    """Whether each of the ``pending`` buckets can never activate (``blocked_mask``)."""
    return blocked_mask(
        pending,
        today=snapshot.pulled_at.tz_convert("UTC").date(),
        programs=snapshot.programs,
        members=snapshot.members,
        card_definitions=snapshot.card_definitions,
    )


def expiry_schedule(
    snapshot: ProgramSnapshot, today: str | datetime | pd.Timestamp | None = None
) -> pd.DataFrame:
    """An estimate: when current and pending points would expire, per card definition and month.

    Only card definitions with ROLLING or CALENDAR expiration are scheduled (SLIDING
    expiry depends on future activity, NO_EXPIRATION never comes). The snapshot does not
    say when a balance was earned, so each row states its assumption: the current
    balance is taken as earned ``today`` (default: the snapshot's ``pulled_at`` day),
    the latest it can expire; a PENDING bucket's points as earned on its activation date
    (or today, if that has passed). ROLLING: earned date + the period, rounded up to the
    end of the month, quarter, half year, year or given month as set. CALENDAR: the first
    calendar expiration date after the earned date. ``month`` is NA when the settings
    needed are missing. Ordered by card definition, then month. On a sampled snapshot the
    points are weighted estimates of the program's.
    """
    return expiry_from(snapshot, points_by_definition(snapshot), today)


def expiry_from(
    snapshot: ProgramSnapshot,
    points: pd.DataFrame,
    today: str | datetime | pd.Timestamp | None = None,
) -> pd.DataFrame:
    """``expiry_schedule`` from the points owed (``points_by_definition`` of ``snapshot``)
    already summed, as ``summarise`` has them for the liability."""
    day = _day(snapshot.pulled_at if today is None else today)
    lots = _lots(snapshot, points, day)
    definitions = columns(snapshot.card_definitions, "card_definitions", _SETTINGS)
    definitions = definitions.drop_duplicates("id").set_index("id")
    settings_of = definitions.to_dict("index")
    kinds = definitions["points_expiration_type"].reindex(lots["card_definition_id"].array)
    lots["expiration_type"] = kinds.astype("string").array
    lots = lots[lots["expiration_type"].isin([ROLLING, CALENDAR])]
    expiry = pd.Series(pd.NaT, index=lots.index, dtype="datetime64[ns, UTC]")
    for definition_id, earned in lots.groupby("card_definition_id")["earned"]:
        settings = settings_of[definition_id]
        if settings["points_expiration_type"] == ROLLING:
            expiry[earned.index] = _rolling(earned, settings)
        else:
            expiry[earned.index] = _calendar(earned, settings["points_expiration_calendar_dates"])
    lots["month"] = first_of_month(expiry)
    keys = ["card_definition_id", "expiration_type", "month", "assumption"]
    grouped = lots.groupby(keys, dropna=False, sort=True)["points"]
    frame = whole(sum_by(grouped)).reset_index()
    frame.insert(1, "card_definition_name", definition_names(snapshot, frame["card_definition_id"]))
    return EXPIRY_SCHEDULE.conform(frame)


def _day(value: str | datetime | pd.Timestamp) -> pd.Timestamp:
    stamp = pd.Timestamp(value)
    stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
    return stamp.normalize()


def _lots(snapshot: ProgramSnapshot, points: pd.DataFrame, day: pd.Timestamp) -> pd.DataFrame:
    """Points with the day they are assumed earned: each balance today, each bucket its date."""
    owed = points[points["outstanding_points"] != 0]
    buckets = snapshot.pending_buckets
    pending = buckets[buckets["status"] == PendingBucketStatus.PENDING]
    dates = pending["date"]
    earned = dates.where(dates.notna() & (dates > day), day)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "card_definition_id": owed["card_definition_id"].array,
                    "earned": day,
                    "points": owed["outstanding_points"].array,
                    "assumption": f"current balance, assumed earned {day:%Y-%m-%d} (the latest)",
                }
            ),
            pd.DataFrame(
                {
                    "card_definition_id": pending["card_definition_id"].astype("string").array,
                    "earned": earned.array,
                    "points": weighted(snapshot, pending, "points_total").array,
                    "assumption": "pending bucket, assumed earned on its activation date",
                }
            ),
        ],
        ignore_index=True,
    ).astype({"earned": "datetime64[ns, UTC]"})  # the two parts' units may differ


_SETTINGS = [
    "id",
    "points_expiration_type",
    "points_expiration_period_value",
    "points_expiration_period_unit",
    "points_expiration_rounding_type",
    "points_expiration_rounding_value",
    "points_expiration_calendar_dates",
]
"""The card definitions' columns the expiry estimate reads."""

_UNITS = {"HOUR": "hours", "DAY": "days", "WEEK": "weeks", "MONTH": "months", "YEAR": "years"}


def _rolling(earned: pd.Series, settings: Mapping[Any, Any]) -> pd.Series:
    """Earned dates + the rolling period, rounded up as the card definition sets."""
    value = settings["points_expiration_period_value"]
    unit = settings["points_expiration_period_unit"]
    if pd.isna(value) or str(unit) not in _UNITS:
        return pd.Series(pd.NaT, index=earned.index, dtype="datetime64[ns, UTC]")
    period: dict[str, Any] = {_UNITS[str(unit)]: int(value)}
    expiry = earned + pd.DateOffset(**period)
    rounding = settings["points_expiration_rounding_type"]
    target = settings["points_expiration_rounding_value"]
    month = expiry.dt.month - 1
    if rounding in _MONTHS_TO_ROUND:
        shift = _MONTHS_TO_ROUND[RoundingType(rounding)](month)
    elif rounding == RoundingType.END_OF_PARTICULAR_MONTH and not pd.isna(target):
        shift = (int(target) - 1 - month) % 12
    else:
        return expiry
    return _add_months(first_of_month(expiry), shift)


def _add_months(months: pd.Series, shift: pd.Series) -> pd.Series:
    """First-of-month instants moved by ``shift`` whole months (vectorised)."""
    index = months.dt.year * 12 + months.dt.month - 1 + shift
    return pd.to_datetime(
        pd.DataFrame({"year": index // 12, "month": index % 12 + 1, "day": 1}), utc=True
    ).astype("datetime64[ns, UTC]")


def _calendar(earned: pd.Series, dates: object) -> pd.Series:
    """The first calendar expiration date strictly after each earned date."""
    days = json.loads(dates) if isinstance(dates, str) else []
    best = pd.Series(pd.NaT, index=earned.index, dtype="datetime64[ns, UTC]")
    for entry in days:
        start = _add_months(first_of_month(earned), entry["month"] - earned.dt.month)
        day = start.dt.days_in_month.clip(upper=entry["day"]) - 1
        candidate = start + pd.to_timedelta(day, unit="D")
        later = candidate.where(candidate > earned, candidate + pd.DateOffset(years=1))
        best = best.where(best.notna() & (best <= later), later)
    return best
