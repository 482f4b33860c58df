"""What a checkpointed pull's runs spent of a budget window, so a resumed run takes no new share.

A paced pull keeps to ``budget_share`` of each window across all its runs: a run resumed in
the window an earlier run was in counts the calls sent there before it (``Allowance.carry``).
Two records say what they were:

- the manifest's ``window`` (``checkpoint.json``): the window the last run was in (its end on
  the service's clock and its budget), what it held for the pull when the pull's first run
  there heard of it (``held``), and the calls the pull's runs sent in it (``sent``, token
  requests, retries and calls whose answer never came included). Each run writes it before
  a call goes out that it does not count yet, ``pull.SPENT_AHEAD`` calls ahead (a run
  killed with calls in flight leaves them counted, a few more at most), once a second and as
  it ends (Ctrl-C included), those two exact. A paced plan's log counts the same way, each
  call's line written before it goes out (``actions.log``);
- the manifest's ``window`` also says when that window ends on this machine's clock
  (``here``): a run resumed while it may not be over counts its first call, the token
  request that learns the window, against that window's share (``Allowance.presumed``);
- the journal: every answer names the window the service counted it in (its
  ``X-Rate-Limit-Retry``), a floor for a manifest an older toolkit wrote, once a second (it
  misses the calls in flight and the token requests).

The calls sent before are the larger of the two. An answer naming no window (stored by
an older toolkit, or from a service that sent no budget headers) counts in a window
when the service's time of it lies in the hour before the window's end, the longest window
the service has: for a minute's window that counts earlier minutes too, so the resumed run
waits for the next window rather than spend beyond its share. An answer names its window by
its end only: after a plan put in force at the same moment (a sandbox's ``set_plan``) the
old window's answers are counted in the new one, as sent there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeGuard

from ..client.allowance import WindowCalls
from ..client.quota import WINDOW_SLACK
from .answers import Stored

__all__ = [
    "LONGEST_WINDOW",
    "WINDOW",
    "earlier_calls",
    "entry_of",
    "entry_problem",
    "later",
    "recorded_window",
    "same_window",
]

WINDOW = "window"
"""The manifest's key for the window the pull's last run was in."""
LONGEST_WINDOW = 3600.0
"""Seconds of the longest budget window (an hour): how far back an answer naming no window
may have been counted in one."""


def entry_of(use: WindowCalls) -> dict[str, Any]:
    """The manifest's record of ``use`` (``here`` only when known)."""
    entry = {"ends": use.ends, "limit": use.limit, "held": use.held, "sent": use.sent}
    if use.here is not None:
        entry["here"] = use.here
    return entry


def entry_problem(entry: Any) -> str | None:
    """What is wrong with a manifest's ``window`` record, or None when it is one this
    toolkit writes."""
    if not isinstance(entry, dict):
        return "must be an object"
    ends = entry.get("ends")
    if not (_number(ends) and math.isfinite(ends)):
        return "ends must be a finite number (Unix seconds)"
    here = entry.get("here")
    if here is not None and not (_number(here) and math.isfinite(here)):
        return "here must be a finite number (Unix seconds) or absent"
    for key, may_lack in (("limit", True), ("held", True), ("sent", False)):
        value = entry.get(key)
        if not (value is None and may_lack) and not _whole(value):
            return f"{key} must be a whole number from 0{' or null' if may_lack else ''}"
    return None


def earlier_calls(
    entry: Mapping[str, Any] | None,
    answers: Iterable[Stored],
    run: int,
    ends: float,
    limit: int | None,
) -> WindowCalls:
    """What the runs before ``run`` spent of the window ending at ``ends`` under ``limit``:
    the manifest's record ``entry`` when it is of that window, and the answers they stored
    in it (see the module)."""
    sent, held = 0, None
    if entry is not None and same_window(entry["ends"], ends) and entry.get("limit") == limit:
        sent, held = entry["sent"], entry.get("held")
    answered = sum(1 for a in answers if a.run < run and _counted_in(a, ends))
    return WindowCalls(ends, limit, max(sent, answered), held)


def recorded_window(
    entry: Mapping[str, Any] | None, answers: Iterable[Stored], run: int
) -> WindowCalls | None:
    """The window the record ``entry`` is of, with what the runs before ``run`` spent there
    (``earlier_calls``) and its end on this machine's clock; None without a record."""
    if entry is None:
        return None
    spent = earlier_calls(entry, answers, run, entry["ends"], entry.get("limit"))
    return replace(spent, here=entry.get("here"))


def _counted_in(answer: Stored, ends: float) -> bool:
    """Whether ``answer`` may have been counted in the window ending at ``ends``."""
    if answer.window is not None:
        return same_window(answer.window, ends)
    return answer.at is not None and ends - LONGEST_WINDOW <= answer.at < ends


def later(ends: float, than: float) -> bool:
    """Whether the window ending at ``ends`` comes after the one ending at ``than``."""
    return ends > than and not same_window(ends, than)


def same_window(one: float, other: float) -> bool:
    """Whether two windows' ends name the same window (as ``Quota`` tells them apart)."""
    return abs(one - other) <= WINDOW_SLACK


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
