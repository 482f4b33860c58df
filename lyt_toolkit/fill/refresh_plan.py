"""What a refresh asks the service for: which lists are re-read whole, and since when the
others are listed.

The interface has no change feed: a list can only be filtered by its ``created_at`` (and the
card definitions' by their ``updated_at``), and ``$after`` is strict. So a refresh lists
what was created after the old snapshot's newest ``created_at`` of the kind (or its
``pulled_at``, if earlier), less an ``overlap`` (an object created at exactly that instant,
or written a little late with an earlier time, is then listed again, and is kept once: rows
are deduplicated by ID, the newer read winning). The short lists are re-read whole instead,
which finds their edits and deletions too. The filters go out in the wire form: ISO 8601
UTC to the millisecond, rounded down (a wider window, never a narrower one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import pandas as pd

from ..frames.sample import Sample
from ..models.listing import MAX_LIMIT
from ..pull.member_tree import InThreads
from ..pull.threaded import ThreadedClient
from ..snapshot.cost import pages
from ..snapshot.defaults import REFRESH_OVERLAP, MembersChoice
from ..snapshot.record import Frames

__all__ = [
    "WHOLE_PAGES",
    "FilteredClient",
    "FilteredThreads",
    "MembersChoice",
    "RefreshPlan",
    "Refreshed",
    "checked_members",
    "wire_instant",
]


T = TypeVar("T")


class Refreshed(Frames, Protocol):
    """What a refresh reads of the old snapshot (``ProgramSnapshot`` is one). The planning
    modules read it through this, not the model, which imports ``fill.refresh`` and
    ``fill.refresh_probe`` for ``ProgramSnapshot.refresh`` and ``refresh_cost``."""

    @property
    def read_at(self) -> Mapping[str, pd.Timestamp]: ...


WHOLE_PAGES = 5
"""Benefits and card definitions are re-read whole while the old snapshot held at most this
many pages of them (a list filtered by date finds new and edited rows, not deleted ones)."""

_CHOICES = ("all", "new", "none")


def checked_members(members: object, old: Refreshed) -> str | Sample:
    """``members`` as a refresh takes it, or a ``ValueError`` naming the parameter."""
    if isinstance(members, Sample):
        return members
    if not isinstance(members, str) or members not in _CHOICES:
        raise ValueError(f"members: give 'all', 'new', 'none' or a Sample, not {members!r}")
    if old.sample is not None and members != "all":
        raise ValueError(
            f"members: {members!r} would add unsampled members' cards to a sample ("
            f"{old.sample}); refresh a sampled snapshot with members='all' or a Sample"
        )
    return members


def wire_instant(moment: pd.Timestamp) -> str:
    """``moment`` as the service's filters take it: UTC, milliseconds, rounded down."""
    stamp = moment.tz_convert("UTC").floor("ms")
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _newest(frame: pd.DataFrame, column: str) -> pd.Timestamp | None:
    if column not in frame.columns or not len(frame):
        return None
    newest = frame[column].max()
    return None if pd.isna(newest) else pd.Timestamp(newest)


@dataclass(frozen=True)
class RefreshPlan:
    """The lists of one refresh of ``old``: what is re-read whole and the filters of the rest."""

    old: Refreshed
    members: str | Sample
    overlap: pd.Timedelta = REFRESH_OVERLAP

    def __post_init__(self) -> None:
        if not isinstance(self.overlap, pd.Timedelta) or self.overlap < pd.Timedelta(0):
            raise ValueError(f"overlap: give a Timedelta of 0 or more, not {self.overlap!r}")

    def whole(self, kind: str) -> bool:
        """Whether the list of ``kind`` (benefits or card definitions) is re-read whole."""
        frame = getattr(self.old, kind)
        if kind == "card_definitions":
            frame = frame[frame["listed"].astype(bool)]
        return pages(len(frame), MAX_LIMIT) <= WHOLE_PAGES

    def since(self, kind: str, rows: pd.DataFrame | None = None) -> str:
        """The ``$after`` of the ``created_at`` filter of ``kind`` (``rows``: the old rows it
        is taken from, by default the old snapshot's frame)."""
        read = self.old.read_at.get(kind, self.old.pulled_at)
        newest = _newest(self.old_frame(kind) if rows is None else rows, "created_at")
        start = read if newest is None else min(newest, read)
        return wire_instant(start - self.overlap)

    def old_frame(self, kind: str) -> pd.DataFrame:
        frame: pd.DataFrame = getattr(self.old, kind)
        return frame

    def created_since(self, kind: str) -> dict[str, Any]:
        """The filters of the rows of ``kind`` created since the old snapshot."""
        return {"created_at": {"$after": self.since(kind)}}

    def changed_definitions(self) -> dict[str, Any]:
        """The filters of the card definitions created or edited since the old snapshot."""
        read = self.old.read_at.get("card_definitions", self.old.pulled_at)
        return {
            "created_at": {"$after": self.since("card_definitions")},
            "updated_at": {"$after": wire_instant(read - self.overlap)},
            "junction": "OR",
        }

    def member_filters(self, program_id: str) -> dict[str, Any]:
        """The filters of one program's member list: none for ``members="all"`` or a program
        the old snapshot did not hold (every member is new), else those created since."""
        programs = set(self.old.programs["id"].astype(object))
        if self.members == "all" or program_id not in programs:
            return {}
        members = self.old.members
        return {
            "created_at": {
                "$after": self.since("members", members[members["program_id"] == program_id])
            }
        }

    def list_filters(self) -> dict[str, Callable[..., dict[str, Any]]]:
        """Each filtered list's filters, by the client's resource group (called with its IDs)."""
        kinds = self.old.kinds
        found: dict[str, Callable[..., dict[str, Any]]] = {}
        if "rewards" in kinds or "reward_costs" in kinds:
            rewards = self.created_since("rewards")
            found["rewards"] = lambda: rewards
        if "benefits" in kinds and not self.whole("benefits"):
            benefits = self.created_since("benefits")
            found["benefits"] = lambda: benefits
        if "card_definitions" in kinds and not self.whole("card_definitions"):
            definitions = self.changed_definitions()
            found["card_definitions"] = lambda: definitions
        found["members"] = self.member_filters
        return found


class FilteredGroup:
    """A resource group whose list walks carry the filters ``filters(*ids)`` gives."""

    def __init__(self, group: Any, filters: Callable[..., dict[str, Any]]) -> None:
        self._group = group
        self._filters = filters

    def __getattr__(self, name: str) -> Any:
        return getattr(self._group, name)

    def pages(self, *ids: str, **query: Any) -> Any:
        return self._group.pages(*ids, **self._query(ids, query))

    def plain_pages(self, *ids: str, **query: Any) -> Any:
        return self._group.plain_pages(*ids, **self._query(ids, query))

    def _query(self, ids: Iterable[str], query: dict[str, Any]) -> dict[str, Any]:
        filters = self._filters(*ids)
        return {**query, "filters": filters} if filters else query


class FilteredClient:
    """A client (async, or a sync one seen as async) whose named groups list with filters;
    everything else is the client's own (its quota, token and address)."""

    def __init__(self, client: Any, filters: Mapping[str, Callable[..., dict[str, Any]]]) -> None:
        self._client = client
        self._filters = dict(filters)

    def __getattr__(self, name: str) -> Any:
        group = getattr(self._client, name)
        if name in self._filters:
            return FilteredGroup(group, self._filters[name])
        return group

    @property
    def in_threads(self) -> InThreads | None:
        """Over a sync client (a ``ThreadedClient``), its threads, the sync client's lists
        filtered alike: a level handed to them whole (``awalk_tree(in_threads=)``) sends what
        this client sends. None over an async client."""
        if not isinstance(self._client, ThreadedClient):
            return None
        return FilteredThreads(self._client, self._filters)


class FilteredThreads:
    """A ``ThreadedClient``'s threads (``each``) over its sync ``client`` whose named groups
    list with filters, as ``FilteredClient`` lists."""

    def __init__(
        self, threads: ThreadedClient, filters: Mapping[str, Callable[..., dict[str, Any]]]
    ) -> None:
        self.client = FilteredClient(threads.client, filters)
        self._threads = threads

    async def each(self, calls: Sequence[Callable[[], T]]) -> list[T]:
        """The threads' ``each``: ``calls`` (of ``client``) a level at once, their results."""
        return await self._threads.each(calls)
