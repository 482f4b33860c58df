"""Time and identity for the sandbox, both fixable so runs reproduce."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta


def _aware(value: str | datetime) -> datetime:
    """An aware datetime, at its own offset, from an ISO 8601 string or datetime (naive: UTC)."""
    if isinstance(value, datetime):
        moment = value
    else:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def parse_instant(value: str | datetime) -> datetime:
    """An aware UTC datetime from an ISO 8601 string (``Z`` accepted) or datetime."""
    return _aware(value).astimezone(UTC)


_FIRST, _LAST = "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"


def sortable_iso(value: str | datetime) -> str:
    """``iso(parse_instant(value))``, or for an instant whose UTC form falls outside years
    1-9999 (year 0 or 10000: a program file copied from answers may hold one) the first or
    last wire instant, so it sorts and filters at its end."""
    try:
        return iso(parse_instant(value))
    except OverflowError:
        return _FIRST if _aware(value).year == 1 else _LAST


def iso(moment: datetime) -> str:
    """The wire form of an instant: UTC, millisecond precision, ``Z`` suffix."""
    utc = moment.astimezone(UTC)  # one %-format: about 3x faster than strftime's
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (  # noqa: UP031
        utc.year,
        utc.month,
        utc.day,
        utc.hour,
        utc.minute,
        utc.second,
        utc.microsecond // 1000,
    )


class Clock:
    """Wall time shifted by an offset, or a fixed instant that only moves when told.

    A fixed clock makes notebook outputs reproducible; ``advance`` lets tests
    cross token and cursor expiry without waiting.
    """

    def __init__(self, fixed: str | datetime | None = None) -> None:
        self._lock = threading.Lock()
        self._fixed = parse_instant(fixed) if fixed is not None else None
        self._offset = timedelta()

    def now(self) -> datetime:
        with self._lock:
            if self._fixed is not None:
                return self._fixed + self._offset
            return datetime.now(UTC) + self._offset

    def advance(self, seconds: float) -> datetime:
        with self._lock:
            self._offset += timedelta(seconds=seconds)
        return self.now()

    def set(self, moment: str | datetime) -> datetime:
        """Jump to ``moment``; a fixed clock stays fixed, a running one keeps running."""
        target = parse_instant(moment)
        with self._lock:
            if self._fixed is not None:
                self._fixed, self._offset = target, timedelta()
            else:
                self._offset = target - datetime.now(UTC)
        return self.now()

    @property
    def is_fixed(self) -> bool:
        return self._fixed is not None


class IdGenerator:
    """Prefixed lowercase-hex IDs; deterministic when seeded.

    ``drawn`` counts the IDs minted from the seed, so a generator rebuilt with
    the same seed and ``skip=drawn`` continues exactly where the last one stopped.
    """

    def __init__(self, seed: int | None = None, length: int = 16, *, skip: int = 0) -> None:
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._length = length
        self.drawn = 0
        for _ in range(skip):
            self._draw()

    def _draw(self) -> int:
        self.drawn += 1
        return self._random.getrandbits(self._length * 4)

    def new(self, prefix: str) -> str:
        with self._lock:
            return prefix + f"{self._draw():0{self._length}x}"

    def token(self) -> str:
        """A bearer token: long, random, never derived from the seed."""
        return random.SystemRandom().getrandbits(256).to_bytes(32, "big").hex()
