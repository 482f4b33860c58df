"""The clock a ``--db`` file keeps (meta ``CLOCK_SEEN``), read back checked.

A restart without ``now`` takes the clock up from this row, and every restart treats the
instant it says as passed (what had expired by then stays expired). A row edited by hand,
or written by something else, is refused naming its field, not served half-read.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from .clock import Clock, parse_instant
from .store import Store

__all__ = ["CLOCK_SEEN", "ClockSeen", "UnreadableClock", "clock_seen"]

CLOCK_SEEN = "clock_seen"
"""Meta key: the instant the clock last showed (``seen``, epoch seconds; ``at``, ISO 8601),
and a running clock's offset from wall time (``None``: a fixed clock), so a restart without
``now`` takes the clock up where it was and one on an earlier clock does not revive what
had expired."""


class UnreadableClock(ValueError):
    """The clock row of a ``--db`` file is not one this sandbox wrote."""


@dataclass(frozen=True)
class ClockSeen:
    """The row: the instant ``seen`` (epoch seconds), ``at`` (the same to the microsecond;
    None in older files) and a running clock's ``offset`` from wall time (None: fixed)."""

    seen: float
    at: datetime | None
    offset: float | None

    def clock(self) -> Clock:
        """The clock taken up where it was: fixed at its instant, or running at its offset."""
        if self.offset is None:
            return Clock(self.at or datetime.fromtimestamp(self.seen, UTC))
        clock = Clock()
        clock.advance(self.offset)
        return clock

    def last_seen(self) -> float:
        """The latest instant the last run's clock may have shown (epoch seconds): a running
        clock kept going meanwhile."""
        if self.offset is None:
            return self.seen
        return max(self.seen, datetime.now(UTC).timestamp() + self.offset)


def clock_seen(store: Store) -> ClockSeen | None:
    """The row of ``store`` (None when it has none); ``UnreadableClock`` naming the file,
    the field amiss, and what to do."""
    text = store.get_meta(CLOCK_SEEN)
    if text is None:
        return None
    try:
        return _read(text)
    except UnreadableClock as exc:
        raise UnreadableClock(
            f"--db {store.path}: its clock (meta {CLOCK_SEEN!r}) is unreadable: {exc}; serve"
            " it with --now to set the clock afresh (the row is written again), or delete the"
            " file to start afresh"
        ) from None


def _read(text: str) -> ClockSeen:
    try:
        record = json.loads(text)
    except ValueError:
        raise UnreadableClock("not JSON") from None
    if not isinstance(record, dict):
        raise UnreadableClock("not a JSON object")
    seen = _number(record, "seen")
    if seen is None:
        raise UnreadableClock("seen: missing (epoch seconds)")
    offset = _number(record, "offset")
    try:
        datetime.fromtimestamp(seen, UTC)
    except (OverflowError, OSError, ValueError):
        raise UnreadableClock(f"seen: {seen!r} is not an instant") from None
    if offset is not None:
        try:
            datetime.now(UTC) + timedelta(seconds=offset)
        except OverflowError:
            raise UnreadableClock(f"offset: {offset!r} seconds is out of range") from None
    return ClockSeen(seen, _instant(record.get("at")), offset)


def _number(record: dict[str, Any], name: str) -> float | None:
    """The field ``name``: a finite number, or None when absent or null."""
    value = record.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise UnreadableClock(f"{name}: {value!r} is not a number of seconds")
    return float(value)


def _instant(value: object) -> datetime | None:
    """The field ``at``: an ISO 8601 instant, or None when absent or null."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise UnreadableClock(f"at: {value!r} is not an ISO 8601 instant")
    try:
        return parse_instant(value)
    except (ValueError, OverflowError):
        raise UnreadableClock(f"at: {value!r} is not an ISO 8601 instant") from None
