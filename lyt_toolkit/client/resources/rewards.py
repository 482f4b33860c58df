"""Rewards: list, page through, read, and move back to draft."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from typing_extensions import Unpack

from ...models.ids import IdPrefix
from ...models.listing import REWARDS
from .._core import Call, decoder, path
from .._query import ListParams, ListQuery
from ..allowance import DEFAULT_SHARE
from ._base import AsyncResource, SyncResource, check_id, page_call, plain_page_call

if TYPE_CHECKING:
    import pandas as pd

    from ..._progress import Progress
    from ...models import Page, Reward

_COLLECTION = "/v2/loyalties/rewards"
_ONE = "/v2/loyalties/rewards/{reward_id}"


def _model() -> Any:
    from ...models import Reward

    return Reward


def _list(query: ListQuery) -> Call[Page[Reward]]:
    return page_call(_COLLECTION, query, _model())


def _plain_list(query: ListQuery) -> Call[Any]:
    return plain_page_call(_COLLECTION, query, _model())


def _get(reward_id: str) -> Call[Reward]:
    rid = check_id(IdPrefix.REWARD, reward_id, "reward_id")
    return Call("GET", path(_ONE, reward_id=rid), decode=decoder(_model()))


def _draft(reward_id: str) -> Call[Reward]:
    rid = check_id(IdPrefix.REWARD, reward_id, "reward_id")
    return Call("POST", path(_ONE, reward_id=rid) + "/draft", decode=decoder(_model()))


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class Rewards(SyncResource):
    """``client.rewards``: the program's rewards (``/v2/loyalties/rewards``)."""

    frame_kind = "rewards"

    def list(self, **query: Unpack[ListParams]) -> Page[Reward]:
        """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return self._page(REWARDS, _list, query)

    def iter(self, **query: Unpack[ListParams]) -> Iterator[Reward]:
        """Every reward matching the query, fetching pages as needed (a call a
        page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(REWARDS, _list, query)

    def pages(self, **query: Unpack[ListParams]) -> Iterator[Page[Reward]]:
        """Every page of the query, for callers that show progress per page (a
        call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(REWARDS, _list, query)

    def plain_pages(self, **query: Unpack[ListParams]) -> Iterator[Any]:
        """Every page of the query parsed but not validated (``client._core.PlainPage``):
        what ``frame()`` and snapshots read rows from, falling back to models per page."""
        return self._pages(REWARDS, _plain_list, query)

    def get(self, reward_id: str) -> Reward:
        """One reward by ID; NotFoundError when the service does not know it."""
        return self._send(_get(reward_id))

    def draft(self, reward_id: str) -> Reward:
        """Move an ACTIVE reward back to DRAFT; any other status raises ConflictError."""
        return self._send(_draft(reward_id))

    def costs_frame(
        self,
        *,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
        **query: Unpack[ListParams],
    ) -> pd.DataFrame:
        """One row per reward x cost x spending entry, as a typed DataFrame (within
        ``budget_share`` of the window, as ``frame``)."""
        return self.frame(
            kind="reward_costs", progress=progress, budget_share=budget_share, **query
        )


# unasync: end of the generated sync code; its async source follows
class AsyncRewards(AsyncResource):
    """Async twin of ``Rewards``."""

    # sync: """``client.rewards``: the program's rewards (``/v2/loyalties/rewards``)."""

    frame_kind = "rewards"

    async def list(self, **query: Unpack[ListParams]) -> Page[Reward]:
        """Async twin of ``Rewards.list``."""
        # sync: """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return await self._page(REWARDS, _list, query)

    def iter(self, **query: Unpack[ListParams]) -> AsyncIterator[Reward]:
        """Async twin of ``Rewards.iter``."""
        # sync: """Every reward matching the query, fetching pages as needed (a call a
        # sync: page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(REWARDS, _list, query)

    def pages(self, **query: Unpack[ListParams]) -> AsyncIterator[Page[Reward]]:
        """Async twin of ``Rewards.pages``."""
        # sync: """Every page of the query, for callers that show progress per page (a
        # sync: call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(REWARDS, _list, query)

    def plain_pages(self, **query: Unpack[ListParams]) -> AsyncIterator[Any]:
        """Async twin of ``Rewards.plain_pages``."""
        # sync: """Every page of the query parsed but not validated (``client._core.PlainPage``):
        # sync: what ``frame()`` and snapshots read rows from, falling back to models per page."""
        return self._pages(REWARDS, _plain_list, query)

    async def get(self, reward_id: str) -> Reward:
        """Async twin of ``Rewards.get``."""
        # sync: """One reward by ID; NotFoundError when the service does not know it."""
        return await self._send(_get(reward_id))

    async def draft(self, reward_id: str) -> Reward:
        """Async twin of ``Rewards.draft``."""
        # sync: """Move an ACTIVE reward back to DRAFT; any other status raises ConflictError."""
        return await self._send(_draft(reward_id))

    async def costs_frame(
        self,
        *,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
        **query: Unpack[ListParams],
    ) -> pd.DataFrame:
        """Async twin of ``Rewards.costs_frame``."""
        # sync: """One row per reward x cost x spending entry, as a typed DataFrame (within
        # sync: ``budget_share`` of the window, as ``frame``)."""
        return await self.frame(
            kind="reward_costs", progress=progress, budget_share=budget_share, **query
        )
