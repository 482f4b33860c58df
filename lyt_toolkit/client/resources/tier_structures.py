"""Tier structures: list, page through, read, delete."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from typing_extensions import Unpack

from ...models.ids import IdPrefix
from ...models.listing import TIER_STRUCTURES
from .._core import Call, decoder, path
from .._query import ListParams, ListQuery
from ._base import AsyncResource, SyncResource, check_id, page_call

if TYPE_CHECKING:
    from ...models import Page, TierStructure

_COLLECTION = "/v2/loyalties/tier-structures"
_ONE = "/v2/loyalties/tier-structures/{tier_structure_id}"


def _model() -> Any:
    from ...models import TierStructure

    return TierStructure


def _list(query: ListQuery) -> Call[Page[TierStructure]]:
    return page_call(_COLLECTION, query, _model())


def _one(method: str, tier_structure_id: str) -> Call[TierStructure]:
    tid = check_id(IdPrefix.TIER_STRUCTURE, tier_structure_id, "tier_structure_id")
    return Call(method, path(_ONE, tier_structure_id=tid), decode=decoder(_model()))


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class TierStructures(SyncResource):
    """``client.tier_structures``: tier structures of the project."""

    frame_kind = "tier_structures"

    def list(self, **query: Unpack[ListParams]) -> Page[TierStructure]:
        """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return self._page(TIER_STRUCTURES, _list, query)

    def iter(self, **query: Unpack[ListParams]) -> Iterator[TierStructure]:
        """Every tier structure matching the query, fetching pages as needed (a call a
        page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(TIER_STRUCTURES, _list, query)

    def pages(self, **query: Unpack[ListParams]) -> Iterator[Page[TierStructure]]:
        """Every page of the query, for callers that show progress per page (a
        call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(TIER_STRUCTURES, _list, query)

    def get(self, tier_structure_id: str) -> TierStructure:
        """One tier structure by ID; NotFoundError when the service does not know it."""
        return self._send(_one("GET", tier_structure_id))

    def delete(self, tier_structure_id: str) -> TierStructure:
        """Delete it; the service answers with the deleted tier structure."""
        return self._send(_one("DELETE", tier_structure_id))


# unasync: end of the generated sync code; its async source follows
class AsyncTierStructures(AsyncResource):
    """Async twin of ``TierStructures``."""

    # sync: """``client.tier_structures``: tier structures of the project."""

    frame_kind = "tier_structures"

    async def list(self, **query: Unpack[ListParams]) -> Page[TierStructure]:
        """Async twin of ``TierStructures.list``."""
        # sync: """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return await self._page(TIER_STRUCTURES, _list, query)

    def iter(self, **query: Unpack[ListParams]) -> AsyncIterator[TierStructure]:
        """Async twin of ``TierStructures.iter``."""
        # sync: """Every tier structure matching the query, fetching pages as needed (a call a
        # sync: page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(TIER_STRUCTURES, _list, query)

    def pages(self, **query: Unpack[ListParams]) -> AsyncIterator[Page[TierStructure]]:
        """Async twin of ``TierStructures.pages``."""
        # sync: """Every page of the query, for callers that show progress per page (a
        # sync: call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(TIER_STRUCTURES, _list, query)

    async def get(self, tier_structure_id: str) -> TierStructure:
        """Async twin of ``TierStructures.get``."""
        # sync: """One tier structure by ID; NotFoundError when the service does not know it."""
        return await self._send(_one("GET", tier_structure_id))

    async def delete(self, tier_structure_id: str) -> TierStructure:
        """Async twin of ``TierStructures.delete``."""
        # sync: """Delete it; the service answers with the deleted tier structure."""
        return await self._send(_one("DELETE", tier_structure_id))
