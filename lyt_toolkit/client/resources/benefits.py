"""Benefits: list, page through, read, and create (checked locally first)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from typing_extensions import Unpack

from ...models.ids import IdPrefix
from ...models.listing import BENEFITS
from .._core import Call, decoder, path
from .._query import ListParams, ListQuery
from ._base import AsyncResource, SyncResource, check_id, page_call, validate_body

if TYPE_CHECKING:
    from ...models import Benefit, BenefitCreate, Page

_COLLECTION = "/v2/loyalties/benefits"
_ONE = "/v2/loyalties/benefits/{benefit_id}"


def _model() -> Any:
    from ...models import Benefit

    return Benefit


def _list(query: ListQuery) -> Call[Page[Benefit]]:
    return page_call(_COLLECTION, query, _model())


def _get(benefit_id: str) -> Call[Benefit]:
    bid = check_id(IdPrefix.BENEFIT, benefit_id, "benefit_id")
    return Call("GET", path(_ONE, benefit_id=bid), decode=decoder(_model()))


def _create(body: BenefitCreate | Mapping[str, Any]) -> Call[Benefit]:
    from ...models import BenefitCreate

    checked = validate_body(BenefitCreate, body, "benefit")
    return Call("POST", _COLLECTION, json=checked.body(), decode=decoder(_model()))


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class Benefits(SyncResource):
    """``client.benefits``: the project's benefits (deleted ones are never listed)."""

    frame_kind = "benefits"

    def list(self, **query: Unpack[ListParams]) -> Page[Benefit]:
        """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return self._page(BENEFITS, _list, query)

    def iter(self, **query: Unpack[ListParams]) -> Iterator[Benefit]:
        """Every benefit matching the query, fetching pages as needed (a call a
        page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(BENEFITS, _list, query)

    def pages(self, **query: Unpack[ListParams]) -> Iterator[Page[Benefit]]:
        """Every page of the query, for callers that show progress per page (a
        call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(BENEFITS, _list, query)

    def get(self, benefit_id: str) -> Benefit:
        """One benefit by ID; NotFoundError when the service does not know it."""
        return self._send(_get(benefit_id))

    def create(self, benefit: BenefitCreate | Mapping[str, Any]) -> Benefit:
        """Create a benefit. The body is validated locally (RequestValidationError
        names the field); the service answers DuplicateFoundError for a taken name,
        ResourceLockedError when created ACTIVE on a card definition that is not.

        Never retried after it may have reached the service, so it cannot run twice.
        """
        return self._send(_create(benefit))


# unasync: end of the generated sync code; its async source follows
class AsyncBenefits(AsyncResource):
    """Async twin of ``Benefits``."""

    # sync: """``client.benefits``: the project's benefits (deleted ones are never listed)."""

    frame_kind = "benefits"

    async def list(self, **query: Unpack[ListParams]) -> Page[Benefit]:
        """Async twin of ``Benefits.list``."""
        # sync: """One page: ``limit``, ``order``, ``filters``, ``junction``, ``cursor``."""
        return await self._page(BENEFITS, _list, query)

    def iter(self, **query: Unpack[ListParams]) -> AsyncIterator[Benefit]:
        """Async twin of ``Benefits.iter``."""
        # sync: """Every benefit matching the query, fetching pages as needed (a call a
        # sync: page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._items(BENEFITS, _list, query)

    def pages(self, **query: Unpack[ListParams]) -> AsyncIterator[Page[Benefit]]:
        """Async twin of ``Benefits.pages``."""
        # sync: """Every page of the query, for callers that show progress per page (a
        # sync: call a page as the caller takes it, held to no budget share: ``frame`` is)."""
        return self._pages(BENEFITS, _list, query)

    async def get(self, benefit_id: str) -> Benefit:
        """Async twin of ``Benefits.get``."""
        # sync: """One benefit by ID; NotFoundError when the service does not know it."""
        return await self._send(_get(benefit_id))

    async def create(self, benefit: BenefitCreate | Mapping[str, Any]) -> Benefit:
        """Async twin of ``Benefits.create``."""
        # sync: """Create a benefit. The body is validated locally (RequestValidationError
        # sync: names the field); the service answers DuplicateFoundError for a taken name,
        # sync: ResourceLockedError when created ACTIVE on a card definition that is not.
        # sync:
        # sync: Never retried after it may have reached the service, so it cannot run twice.
        # sync: """
        return await self._send(_create(benefit))
