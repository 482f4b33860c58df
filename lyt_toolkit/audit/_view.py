"""Plain-Python views of the snapshot's frames, so each rule reads like the domain.

Rules iterate rows as dicts whose missing values are ``None`` (not ``pd.NA``,
whose truth value raises) and whose instants are UTC ``pd.Timestamp``. The
time a rule calls "now" is the snapshot's ``pulled_at``: the moment the data
was true, not the moment the audit happens to run.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pandas as pd

from ..frames.pending import rows_of

if TYPE_CHECKING:
    from ..snapshot import ProgramSnapshot

Row = dict[str, Any]

_SPACES = re.compile(r"\s+")


_CACHE: ContextVar[dict[tuple[int, str], list[Row]] | None] = ContextVar("rows", default=None)
_DERIVED: ContextVar[dict[tuple[int, str], Any] | None] = ContextVar("derived", default=None)

T = TypeVar("T")


@contextmanager
def shared_rows() -> Iterator[None]:
    """Within the block, each frame is turned into rows once, and each figure ``derived``
    computed once, however many rules read it."""
    token, derived_token = _CACHE.set({}), _DERIVED.set({})
    try:
        yield
    finally:
        _DERIVED.reset(derived_token)
        _CACHE.reset(token)


def derived(snapshot: ProgramSnapshot, name: str, compute: Callable[[], T]) -> T:
    """``compute()``, a figure of ``snapshot`` named ``name`` that rules only read: inside
    :func:`shared_rows` computed once, however many rules ask for it."""
    cache = _DERIVED.get()
    key = (id(snapshot), name)
    if cache is not None and key in cache:
        return cast(T, cache[key])
    result = compute()
    if cache is not None:
        cache[key] = result
    return result


def rows(snapshot: ProgramSnapshot, kind: str) -> list[Row]:
    """The rows of the snapshot's ``kind`` frame as dicts (``None`` for missing values).

    Rules only read these dicts; inside :func:`shared_rows` they are shared.
    """
    cache = _CACHE.get()
    key = (id(snapshot), kind)
    if cache is not None and key in cache:
        return cache[key]
    frame: pd.DataFrame | None = getattr(snapshot, kind, None)
    result: list[Row] = []
    if frame is not None and not frame.empty:
        result = rows_of(frame)  # one conversion of the whole frame, no copy masked first
    if cache is not None:
        cache[key] = result
    return result


def timestamp(value: Any) -> pd.Timestamp | None:
    """``value`` as a UTC timestamp, or ``None``."""
    if value is None or value == "":
        return None
    stamp = pd.Timestamp(value)
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def as_date(value: Any) -> dt.date | None:
    """A calendar date from a date, timestamp or ISO string."""
    if value is None or (isinstance(value, dt.date) and not isinstance(value, dt.datetime)):
        return value
    stamp = timestamp(value)
    return None if stamp is None else stamp.date()


def now_of(snapshot: ProgramSnapshot) -> pd.Timestamp:
    """The service's notion of now when the snapshot was pulled."""
    stamp = timestamp(snapshot.pulled_at)
    if stamp is None:
        raise ValueError("the snapshot has no pulled_at time")
    return stamp


def today_of(snapshot: ProgramSnapshot) -> dt.date:
    """The UTC calendar date of the snapshot (pending buckets are dated in UTC)."""
    return now_of(snapshot).date()


def name_key(name: str) -> str:
    """A name as people read it: case-folded, whitespace collapsed and trimmed."""
    return _SPACES.sub(" ", name.casefold()).strip()


def daily_windows(row: Row) -> list[dict[str, Any]] | None:
    """The DAILY validity windows of a reward or program row."""
    value = row.get("validity_daily")
    if isinstance(value, str):
        value = json.loads(value)
    return value
