"""Relative time expressions used by program files ("now", "now+3d", "now-2h").

A demo program must keep its "future" buckets in the future whatever day it is
loaded, so its dates are written relative to the sandbox clock and resolved once,
at load time, by the functions here. Absolute ISO 8601 values pass through.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

_TERM = re.compile(r"([+-])(\d+)([dhms])")
RELATIVE = re.compile(r"now(?:[+-]\d+[dhms])*")
"""A relative expression, exactly (``now``, ``now-40d``, ``now+1d-2h``...)."""
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_ONE_TERM = re.compile(r"now([+-])(\d+)([dhms])")
"""A relative expression of one term, as programs nearly always write them."""
_SIGNED = {
    (sign, unit): factor * seconds
    for unit, seconds in _SECONDS.items()
    for sign, factor in (("+", 1), ("-", -1))
}
"""Seconds a term's sign and unit stand for (``("-", "d")``: -86400)."""

DATE_ONLY_KEYS: frozenset[str] = frozenset({"date"})
"""Keys whose values are calendar dates (a pending bucket's activation ``date``)."""

USER_DATA_KEYS: frozenset[str] = frozenset({"metadata"})
"""Keys whose values are the user's own data: never rewritten, whatever keys they hold."""


def is_time_key(key: object) -> bool:
    """True for a key whose values are times: ``date``, or a name ending in ``_at`` or ``_date``
    (``created_at``, ``expiration_date``...). Relative expressions apply only there."""
    return isinstance(key, str) and (key in DATE_ONLY_KEYS or key.endswith(("_at", "_date")))


class TimeExpressionError(ValueError):
    """A value is neither a relative expression nor an ISO 8601 date or date-time."""


def is_relative(value: object) -> bool:
    """True when ``value`` is a relative expression such as ``"now-40d"``."""
    return isinstance(value, str) and RELATIVE.fullmatch(value.strip()) is not None


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def resolve(value: str, now: datetime) -> datetime:
    """Turn ``value`` into a UTC datetime, relative expressions counted from ``now``.

    Relative form: ``now`` followed by zero or more ``+N<unit>`` / ``-N<unit>`` terms,
    unit one of ``d`` (days), ``h`` (hours), ``m`` (minutes), ``s`` (seconds), e.g.
    ``now-1d+2h``. Absolute values are ISO 8601; naive ones are taken as UTC and a
    bare date means midnight UTC.
    """
    if not isinstance(value, str):
        raise TimeExpressionError(f"time value must be a string, got {type(value).__name__}")
    text = value.strip()
    if RELATIVE.fullmatch(text):
        seconds = sum(
            int(amount) * _SECONDS[unit] * (1 if sign == "+" else -1)
            for sign, amount, unit in _TERM.findall(text, 3)
        )
        return _aware(now) + timedelta(seconds=seconds)
    try:
        return _aware(datetime.fromisoformat(text))
    except ValueError:
        raise TimeExpressionError(
            f"not a time value: {value!r} (use ISO 8601 or 'now', 'now+3d', 'now-2h', ...)"
        ) from None


def resolve_date(value: str, now: datetime) -> date:
    """Like :func:`resolve` but keep only the calendar date (in UTC)."""
    return resolve(value, now).date()


def format_timestamp(moment: datetime) -> str:
    """The service's timestamp spelling: UTC with milliseconds and a ``Z``."""
    return _aware(moment).isoformat(timespec="milliseconds")[:-6] + "Z"


class RelativeFormatter:
    """Spell relative expressions counted from one ``now``, as :func:`resolve_tree` does,
    for many expressions at once (a large program has one per record, nearly all distinct).

    The offset is summed in whole seconds and the result spelled from its day number and
    second of day; the calendar date of each day is worked out once. Values agree with
    ``format_timestamp(resolve(expr, now))`` and ``resolve_date(expr, now).isoformat()``.
    """

    def __init__(self, now: datetime) -> None:
        self._now = now
        start = _aware(now)
        self._midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
        self._second_of_day = start.hour * 3600 + start.minute * 60 + start.second
        self._fraction = f".{start.microsecond // 1000:03d}Z"
        self._days: dict[int, str] = {}

    @property
    def now(self) -> datetime:
        """The moment expressions are counted from."""
        return self._now

    def spell(self, expr: str, *, date_only: bool) -> str:
        """``expr`` (a relative expression) as a timestamp, or a date when ``date_only``."""
        seconds = self._second_of_day
        for sign, amount, unit in _TERM.findall(expr, 3):
            seconds += int(amount) * _SIGNED[sign, unit]
        return self._spelled_at(seconds, expr, date_only)

    def spelled(self, value: str, *, date_only: bool) -> str | None:
        """``value`` as ``spell`` spells it when it is exactly a relative expression, else
        ``None``; a one-term expression is matched and read in one step."""
        if value[:3] != "now":
            return None
        one = _ONE_TERM.fullmatch(value)
        if one is not None:
            sign, amount, unit = one.groups()
            seconds = self._second_of_day + int(amount) * _SIGNED[sign, unit]
            return self._spelled_at(seconds, value, date_only)
        return self.spell(value, date_only=date_only) if RELATIVE.fullmatch(value) else None

    def _spelled_at(self, seconds: int, expr: str, date_only: bool) -> str:
        """The moment ``seconds`` after today's midnight (``expr`` names it in errors)."""
        days, second = divmod(seconds, 86400)
        day = self._days.get(days)
        if day is None:
            try:
                day = (self._midnight + timedelta(days=days)).date().isoformat()
            except OverflowError:  # out of the calendar: let resolve() say so, as before
                resolve(expr, self._now)
                raise
            self._days[days] = day
        if date_only:
            return day
        hours, second = divmod(second, 3600)
        minutes, second = divmod(second, 60)
        return f"{day}T{hours:02d}:{minutes:02d}:{second:02d}{self._fraction}"


def resolve_tree(data: Any, now: datetime) -> Any:
    """Copy ``data`` with every relative expression of a time field replaced by an absolute value.

    Only string values of a time key (``is_time_key``, outside ``metadata``) that are exactly a
    relative expression change: a key in :data:`DATE_ONLY_KEYS` gets ``YYYY-MM-DD``, every
    other a full timestamp. Absolute values and all other strings (names, metadata) are
    returned untouched.
    """
    return _walk(data, now, key=None)


def resolve_under(value: Any, now: datetime, key: str) -> Any:
    """``value`` as :func:`resolve_tree` leaves it when it is found under ``key``."""
    return _walk(value, now, key)


def _walk(node: Any, now: datetime, key: str | None) -> Any:
    if isinstance(node, dict):
        return {k: v if k in USER_DATA_KEYS else _walk(v, now, k) for k, v in node.items()}
    if isinstance(node, list):
        return [_walk(item, now, key) for item in node]
    if is_time_key(key) and is_relative(node):
        if key in DATE_ONLY_KEYS:
            return resolve_date(node, now).isoformat()
        return format_timestamp(resolve(node, now))
    return node
