"""Card definitions: list, page through, read."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from typing_extensions import Unpack

from ...models.ids import IdPrefix
from ...models.listing import CARD_DEFINITIONS
from .._core import Call, decoder, path
from .._query import ListParams, ListQuery
from ._base import AsyncResource, SyncResource, check_id, page_call

if TYPE_CHECKING:
    from ...models import CardDefinition, Page

_COLLECTION = "/v2/loyalties/card-definitions"
_ONE = "/v2/loyalties/card-definitions/{card_definition_id}"


def _model() -> Any:
    from ...models import CardDefinition

    return CardDefinition


def _list(query: ListQuery) -> Call[Page[CardDefinition]]:
    return page_call(_COLLECTION, query, _model())


def _get(card_definition_id: str) -> Call[CardDefinition]:
    cid = check_id(IdPrefix.CARD_DEFINITION, card_definition_id, "card_definition_id")
    return Call("GET", path(_ONE, card_definition_id=cid), decode=decoder(_model()))


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class CardDefinitions(SyncResource):
    """``client.card_definitions``: loyalty card definitions."""

    frame_kind = "card_definitions"

    def list(self, **query: Unpack[ListParams]) -> Page[CardDefinition]:
        """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return self._page(CARD_DEFINITIONS, _list, query)

    def iter(self, **query: Unpack[ListParams]) -> Iterator[CardDefinition]:
        """Every card definition matching the query, fetching pages as needed (a call a
        page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(CARD_DEFINITIONS, _list, query)

    def pages(self, **query: Unpack[ListParams]) -> Iterator[Page[CardDefinition]]:
        """Every page of the query, for callers that show progress per page (a
        call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(CARD_DEFINITIONS, _list, query)

    def get(self, card_definition_id: str) -> CardDefinition:
        """One card definition by ID; NotFoundError when the service does not know it."""
        return self._send(_get(card_definition_id))


# unasync: end of the generated sync code; its async source follows
class AsyncCardDefinitions(AsyncResource):
    """Async twin of ``CardDefinitions``."""

    # sync: """``client.card_definitions``: loyalty card definitions."""

    frame_kind = "card_definitions"

    async def list(self, **query: Unpack[ListParams]) -> Page[CardDefinition]:
        """Async twin of ``CardDefinitions.list``."""
        # sync: """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return await self._page(CARD_DEFINITIONS, _list, query)

    def iter(self, **query: Unpack[ListParams]) -> AsyncIterator[CardDefinition]:
        """Async twin of ``CardDefinitions.iter``."""
        # sync: """Every card definition matching the query, fetching pages as needed (a call a
        # sync: page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(CARD_DEFINITIONS, _list, query)

    def pages(self, **query: Unpack[ListParams]) -> AsyncIterator[Page[CardDefinition]]:
        """Async twin of ``CardDefinitions.pages``."""
        # sync: """Every page of the query, for callers that show progress per page (a
        # sync: call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(CARD_DEFINITIONS, _list, query)

    async def get(self, card_definition_id: str) -> CardDefinition:
        """Async twin of ``CardDefinitions.get``."""
        # sync: """One card definition by ID; NotFoundError when the service does not know it."""
        return await self._send(_get(card_definition_id))
