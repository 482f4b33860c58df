"""Loyalty programs, their members (with cards) and the pending point buckets of a card."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from typing_extensions import Unpack

from ..._progress import ProgressBar
from ...models.ids import IdPrefix
from ...models.listing import MEMBERS, PENDING_BUCKETS, PROGRAMS
from ...pull.member_tree import (
    READ_STAGES,
    TREE,
    LevelBar,
    Lists,
    MemberTree,
    OnPage,
    Reads,
    Request,
    Tick,
    awalk_tree,
    level_bars,
    member_tree,
    walk_tree,
)
from .._core import Call, decoder, path
from .._query import ListParams, ListQuery
from ..allowance import DEFAULT_SHARE
from ._base import AsyncResource, SyncResource, check_id, page_call
from ._frame_share import FrameShare, frame_share

if TYPE_CHECKING:
    import pandas as pd

    from ..._progress import Progress
    from ...models import ActivationResult, Member, MemberWithCards, Page, PendingBucket, Program

_PROGRAMS = "/v2/loyalties/programs"
_PROGRAM = _PROGRAMS + "/{program_id}"
_MEMBERS = _PROGRAM + "/members"
_MEMBER = _MEMBERS + "/{member_id}"
_BUCKETS = _MEMBER + "/cards/{card_id}/pending-points"
_ACTIVATE = _BUCKETS + "/{bucket_id}/activate"


def _models() -> Any:
    from ... import models

    return models


def _program_id(value: str) -> str:
    return check_id(IdPrefix.PROGRAM, value, "program_id")


def _member_ids(program_id: str, member_id: str) -> dict[str, str]:
    return {
        "program_id": _program_id(program_id),
        "member_id": check_id(IdPrefix.MEMBER, member_id, "member_id"),
    }


def _card_ids(program_id: str, member_id: str, card_id: str) -> dict[str, str]:
    ids = _member_ids(program_id, member_id)
    ids["card_id"] = check_id(IdPrefix.CARD, card_id, "card_id")
    return ids


def _programs(query: ListQuery) -> Call[Page[Program]]:
    return page_call(_PROGRAMS, query, _models().Program)


def _program(program_id: str) -> Call[Program]:
    return Call(
        "GET", path(_PROGRAM, program_id=_program_id(program_id)), decode=decoder(_models().Program)
    )


def _members(program_id: str) -> Any:
    url = path(_MEMBERS, program_id=_program_id(program_id))
    return lambda query: page_call(url, query, _models().Member)


def _member(program_id: str, member_id: str) -> Call[MemberWithCards]:
    url = path(_MEMBER, **_member_ids(program_id, member_id))
    return Call("GET", url, decode=decoder(_models().MemberWithCards))


def _buckets(program_id: str, member_id: str, card_id: str) -> Any:
    url = path(_BUCKETS, **_card_ids(program_id, member_id, card_id))
    return lambda query: page_call(url, query, _models().PendingBucket)


def _activate(program_id: str, member_id: str, card_id: str, bucket_id: str) -> Call[Any]:
    ids = _card_ids(program_id, member_id, card_id)
    ids["bucket_id"] = check_id(IdPrefix.PENDING_BUCKET, bucket_id, "bucket_id")
    return Call("POST", path(_ACTIVATE, **ids), decode=decoder(_models().ActivationResult))


def _check_card_path(member_id: str | None, card_id: str | None) -> None:
    if member_id is not None or card_id is not None:
        raise TypeError("give member_id and card_id together, or the program_id alone")


def _program_buckets_frame(tree: MemberTree) -> pd.DataFrame:
    """The buckets of a program's walk with the program's and each member's status."""
    from ...frames.members import pending_buckets_frame
    from ...frames.pending import with_statuses

    frame = pending_buckets_frame(tree.pending_buckets)
    programs = {p.id: p.status for p in tree.programs}
    return with_statuses(frame, programs, {m.id: m.status for m in tree.members})


def _within(share: FrameShare, bar: LevelBar) -> LevelBar:
    """``bar``, which first refuses a level of reads (the members one by one, then the
    cards' bucket lists, one call each at least) the frame's ``share`` cannot hold."""

    @contextmanager
    def within(step: Lists | Reads) -> Iterator[Tick]:
        part = step.requests[0].part if step.requests else None
        if part in READ_STAGES:
            share.begin(READ_STAGES[part], len(step.requests))
        with bar(step) as tick:
            yield tick

    return within


def _shown_on(bar: ProgressBar) -> OnPage:
    """Shows ``bar`` once the walk starts on the members, and counts bucket rows on it."""

    def shown(request: Request, page: Any) -> None:
        if request.part == "pending_buckets":
            bar.advance(len(page.data), pages=1)
        elif request.part == "members":
            bar.show()

    return shown


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class Programs(SyncResource):
    """``client.programs``: loyalty programs."""

    frame_kind = "programs"

    def list(self, **query: Unpack[ListParams]) -> Page[Program]:
        """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return self._page(PROGRAMS, _programs, query)

    def iter(self, **query: Unpack[ListParams]) -> Iterator[Program]:
        """Every program matching the query, fetching pages as needed (a call a
        page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(PROGRAMS, _programs, query)

    def pages(self, **query: Unpack[ListParams]) -> Iterator[Page[Program]]:
        """Every page of the query, for callers that show progress per page (a
        call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(PROGRAMS, _programs, query)

    def get(self, program_id: str) -> Program:
        """One program by ID; NotFoundError when the service does not know it."""
        return self._send(_program(program_id))


class Members(SyncResource):
    """``client.members``: members of one program."""

    frame_kind = "members"

    def list(self, program_id: str, **query: Unpack[ListParams]) -> Page[Member]:
        """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return self._page(MEMBERS, _members(program_id), query)

    def iter(self, program_id: str, **query: Unpack[ListParams]) -> Iterator[Member]:
        """Every member matching the query, fetching pages as needed (a call a
        page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(MEMBERS, _members(program_id), query)

    def pages(self, program_id: str, **query: Unpack[ListParams]) -> Iterator[Page[Member]]:
        """Every page of the query, for callers that show progress per page (a
        call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(MEMBERS, _members(program_id), query)

    def get(self, program_id: str, member_id: str) -> MemberWithCards:
        """The member with its cards."""
        return self._send(_member(program_id, member_id))


class PendingBuckets(SyncResource):
    """``client.pending_buckets``: pending point buckets of one card, and their
    activation."""

    frame_kind = "pending_buckets"

    def list(
        self, program_id: str, member_id: str, card_id: str, **query: Unpack[ListParams]
    ) -> Page[PendingBucket]:
        """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return self._page(PENDING_BUCKETS, _buckets(program_id, member_id, card_id), query)

    def iter(
        self, program_id: str, member_id: str, card_id: str, **query: Unpack[ListParams]
    ) -> Iterator[PendingBucket]:
        """Every pending points bucket matching the query, fetching pages as needed
        (a call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(PENDING_BUCKETS, _buckets(program_id, member_id, card_id), query)

    def pages(
        self, program_id: str, member_id: str, card_id: str, **query: Unpack[ListParams]
    ) -> Iterator[Page[PendingBucket]]:
        """Every page of the query, for callers that show progress per page (a
        call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(PENDING_BUCKETS, _buckets(program_id, member_id, card_id), query)

    def frame(  # type: ignore[override]
        self,
        program_id: str,
        member_id: str | None = None,
        card_id: str | None = None,
        *,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
        **query: Any,
    ) -> pd.DataFrame:
        """The ``pending_buckets`` frame of one card, or with the program ID alone of the
        whole program: every member, each of its cards, each card's buckets.

        The program-wide frame fills ``program_status`` and ``member_status`` (what
        activation depends on); ``query`` applies to each card's bucket list. Either
        keeps to ``budget_share`` of the calls left in the window, as ``frame`` does.
        """
        if member_id is not None and card_id is not None:
            return super().frame(
                program_id,
                member_id,
                card_id,
                progress=progress,
                budget_share=budget_share,
                **query,
            )
        _check_card_path(member_id, card_id)
        groups = SimpleNamespace(
            programs=Programs(self._transport),
            members=Members(self._transport),
            pending_buckets=self,
        )
        with (
            ProgressBar(progress, desc="pending_buckets", unit="row", lazy=True) as bar,
            frame_share(
                self._transport.quota,
                budget_share,
                "pending_buckets",
                f"its rows of program {program_id}",
            ) as share,
        ):
            # A card showing no pending points has no PENDING bucket to list (as in a pull).
            walk = member_tree(len(TREE), _program_id(program_id), pending_only=True)
            tree = walk_tree(
                walk,
                groups,
                query=query,
                on_page=_shown_on(bar),
                level_bar=_within(share, level_bars(progress)),
            )
        return _program_buckets_frame(tree)

    def activate(
        self, program_id: str, member_id: str, card_id: str, bucket_id: str
    ) -> ActivationResult:
        """Activate the bucket now. ResourceLockedError when its date is not in the
        future or a precondition fails; never retried after it may have been sent."""
        return self._send(_activate(program_id, member_id, card_id, bucket_id))


# unasync: end of the generated sync code; its async source follows
class AsyncPrograms(AsyncResource):
    """Async twin of ``Programs``."""

    # sync: """``client.programs``: loyalty programs."""

    frame_kind = "programs"

    async def list(self, **query: Unpack[ListParams]) -> Page[Program]:
        """Async twin of ``Programs.list``."""
        # sync: """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return await self._page(PROGRAMS, _programs, query)

    def iter(self, **query: Unpack[ListParams]) -> AsyncIterator[Program]:
        """Async twin of ``Programs.iter``."""
        # sync: """Every program matching the query, fetching pages as needed (a call a
        # sync: page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(PROGRAMS, _programs, query)

    def pages(self, **query: Unpack[ListParams]) -> AsyncIterator[Page[Program]]:
        """Async twin of ``Programs.pages``."""
        # sync: """Every page of the query, for callers that show progress per page (a
        # sync: call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(PROGRAMS, _programs, query)

    async def get(self, program_id: str) -> Program:
        """Async twin of ``Programs.get``."""
        # sync: """One program by ID; NotFoundError when the service does not know it."""
        return await self._send(_program(program_id))


class AsyncMembers(AsyncResource):
    """Async twin of ``Members``."""

    # sync: """``client.members``: members of one program."""

    frame_kind = "members"

    async def list(self, program_id: str, **query: Unpack[ListParams]) -> Page[Member]:
        """Async twin of ``Members.list``."""
        # sync: """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return await self._page(MEMBERS, _members(program_id), query)

    def iter(self, program_id: str, **query: Unpack[ListParams]) -> AsyncIterator[Member]:
        """Async twin of ``Members.iter``."""
        # sync: """Every member matching the query, fetching pages as needed (a call a
        # sync: page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(MEMBERS, _members(program_id), query)

    def pages(self, program_id: str, **query: Unpack[ListParams]) -> AsyncIterator[Page[Member]]:
        """Async twin of ``Members.pages``."""
        # sync: """Every page of the query, for callers that show progress per page (a
        # sync: call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(MEMBERS, _members(program_id), query)

    async def get(self, program_id: str, member_id: str) -> MemberWithCards:
        """Async twin of ``Members.get``."""
        # sync: """The member with its cards."""
        return await self._send(_member(program_id, member_id))


class AsyncPendingBuckets(AsyncResource):
    """Async twin of ``PendingBuckets``."""

    # sync: """``client.pending_buckets``: pending point buckets of one card, and their
    # sync: activation."""

    frame_kind = "pending_buckets"

    async def list(
        self, program_id: str, member_id: str, card_id: str, **query: Unpack[ListParams]
    ) -> Page[PendingBucket]:
        """Async twin of ``PendingBuckets.list``."""
        # sync: """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return await self._page(PENDING_BUCKETS, _buckets(program_id, member_id, card_id), query)

    def iter(
        self, program_id: str, member_id: str, card_id: str, **query: Unpack[ListParams]
    ) -> AsyncIterator[PendingBucket]:
        """Async twin of ``PendingBuckets.iter``."""
        # sync: """Every pending points bucket matching the query, fetching pages as needed
        # sync: (a call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(PENDING_BUCKETS, _buckets(program_id, member_id, card_id), query)

    def pages(
        self, program_id: str, member_id: str, card_id: str, **query: Unpack[ListParams]
    ) -> AsyncIterator[Page[PendingBucket]]:
        """Async twin of ``PendingBuckets.pages``."""
        # sync: """Every page of the query, for callers that show progress per page (a
        # sync: call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(PENDING_BUCKETS, _buckets(program_id, member_id, card_id), query)

    async def frame(  # type: ignore[override]
        self,
        program_id: str,
        member_id: str | None = None,
        card_id: str | None = None,
        *,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
        **query: Any,
    ) -> pd.DataFrame:
        """Async twin of ``PendingBuckets.frame``."""
        # sync: """The ``pending_buckets`` frame of one card, or with the program ID alone of the
        # sync: whole program: every member, each of its cards, each card's buckets.
        # sync:
        # sync: The program-wide frame fills ``program_status`` and ``member_status`` (what
        # sync: activation depends on); ``query`` applies to each card's bucket list. Either
        # sync: keeps to ``budget_share`` of the calls left in the window, as ``frame`` does.
        # sync: """
        if member_id is not None and card_id is not None:
            return await super().frame(
                program_id,
                member_id,
                card_id,
                progress=progress,
                budget_share=budget_share,
                **query,
            )
        _check_card_path(member_id, card_id)
        groups = SimpleNamespace(
            programs=AsyncPrograms(self._transport),
            members=AsyncMembers(self._transport),
            pending_buckets=self,
        )
        with (
            ProgressBar(progress, desc="pending_buckets", unit="row", lazy=True) as bar,
            frame_share(
                self._transport.quota,
                budget_share,
                "pending_buckets",
                f"its rows of program {program_id}",
            ) as share,
        ):
            # A card showing no pending points has no PENDING bucket to list (as in a pull).
            walk = member_tree(len(TREE), _program_id(program_id), pending_only=True)
            tree = await awalk_tree(
                walk,
                groups,
                query=query,
                on_page=_shown_on(bar),
                level_bar=_within(share, level_bars(progress)),
            )
        return _program_buckets_frame(tree)

    async def activate(
        self, program_id: str, member_id: str, card_id: str, bucket_id: str
    ) -> ActivationResult:
        """Async twin of ``PendingBuckets.activate``."""
        # sync: """Activate the bucket now. ResourceLockedError when its date is not in the
        # sync: future or a precondition fails; never retried after it may have been sent."""
        return await self._send(_activate(program_id, member_id, card_id, bucket_id))
