"""Whether the project sent any call since a re-read, told by the budget the service reports.

A stale apply refused after its re-read re-plans from the rows it read and saves that plan
for review (``SavedPlan.apply``); applying it reads the same objects again only if something
may have changed since. Every call of the project, anyone's, counts against its window
(``X-Rate-Limit-Remaining``), and a write is a call: so when the window is the same one, its
count has fallen by this client's own calls since and no more, and the service's date is the
same, nothing was written through the interface in between, and no bucket's date was reached.
``ReadMark`` is what the refusal notes right after its re-read (the plan file keeps it, inside
what ``--sha256`` binds); ``quiet_since`` is that check, with no call of its own. Changes made
from the dashboard count against no budget: those it cannot see (as no re-read sees one made
after it, while the writes go out).
"""

from __future__ import annotations

import datetime as dt
import weakref
from typing import TYPE_CHECKING, NamedTuple

from .reread import service_now

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..client.quota import Quota

__all__ = [
    "ReadMark",
    "hear_since",
    "heard_since",
    "mark_read",
    "none_heard_since",
    "quiet_since",
]


class ReadMark(NamedTuple):
    """The project's window right after a re-read, as the service's answers told it."""

    window_ends: dt.datetime
    """When the window the re-read ended in resets (UTC, the service's clock)."""
    remaining: int
    """The calls the window had left once every call of the re-read was answered."""
    today: dt.date
    """The service's date then (by which a pending bucket's date is judged)."""


_SENT_AT: weakref.WeakKeyDictionary[Quota, dict[ReadMark, int]] = weakref.WeakKeyDictionary()
"""A client's quota -> the calls it had sent at each mark it made (its later ones are its own)."""


def mark_read(client: LoyaltyClient) -> ReadMark | None:
    """The mark of ``client``'s window now (None: its answers carry no budget)."""
    quota = client.quota
    ends, remaining = quota.resets_at, quota.remaining
    if ends is None or remaining is None:
        return None
    mark = ReadMark(ends, remaining, service_now(client).date())
    _SENT_AT.setdefault(quota, {})[mark] = quota.calls_used
    return mark


def hear_since(mark: ReadMark, client: LoyaltyClient) -> None:
    """Make ``client`` hear the window after ``mark``: one call (a new token) when it sent
    none since (the count it holds is then the one it heard before, and the clock too)."""
    if _sent_since(mark, client) == 0:
        client.fetch_token(fresh=True)


def heard_since(mark: ReadMark, client: LoyaltyClient) -> bool:
    """Whether ``client`` sent a call since ``mark`` (heard the window since: ``quiet_since``
    can tell; else its first call will)."""
    return _sent_since(mark, client) > 0


def quiet_since(mark: ReadMark, client: LoyaltyClient) -> bool:
    """Whether ``client``'s answers show no call of the project but its own since ``mark``:
    it heard the service since (``hear_since``), the same window, its count lower by exactly
    this client's calls since (all it sent, for a client that did not make the mark) and the
    same service date. No call is sent."""
    quota = client.quota
    sent = _sent_since(mark, client)
    return (
        sent > 0
        and quota.resets_at == mark.window_ends
        and quota.remaining == mark.remaining - sent
        and service_now(client).date() == mark.today
    )


def none_heard_since(mark: ReadMark | None, client: LoyaltyClient) -> bool:
    """Whether ``client`` heard of no call of the project but its own since ``mark``
    (``quiet_since``), or sent none since (so waited for no window); no ``mark`` (the budget
    unknown when it was to be made): not. No call is sent."""
    if mark is None:
        return False
    return _sent_since(mark, client) == 0 or quiet_since(mark, client)


def _sent_since(mark: ReadMark, client: LoyaltyClient) -> int:
    """The calls ``client`` sent since ``mark`` (all it sent, if another client made it)."""
    quota = client.quota
    return quota.calls_used - _SENT_AT.get(quota, {}).get(mark, 0)
