"""Promotion tiers (``/v1``): list them and validate one against a customer and order."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from typing_extensions import Unpack

from ...errors import RequestValidationError
from .._core import Call, decoder, path
from ..pagination import awalk, walk
from ._base import AsyncResource, SyncResource, check_text, validate_body

if TYPE_CHECKING:
    from ...models import PromotionTier, PromotionTierList, TierValidationResult

_COLLECTION = "/v1/promotions/tiers"
_VALIDATE = "/v1/promotions/tiers/{tier_id}/validation"
_ORDERS = ("created_at", "-created_at", "updated_at", "-updated_at")
_MAX_PAGE = 100


class TierQuery(TypedDict, total=False):
    """What a promotion tier list may ask for, besides the page number."""

    is_available: bool | None
    limit: int | None
    order: str | None


def _list(
    *,
    page: int | None = None,
    is_available: bool | None = None,
    limit: int | None = None,
    order: str | None = None,
) -> Call[Any]:
    from ...models import PromotionTierList

    params: list[tuple[str, str]] = []
    if is_available is not None:
        params.append(("is_available", "true" if is_available else "false"))
    if limit is not None:
        params.append(("limit", _whole_number(limit, "limit", 100)))
    if page is not None:
        params.append(("page", _whole_number(page, "page", _MAX_PAGE)))
    if order is not None:
        if order not in _ORDERS:
            allowed = ", ".join(_ORDERS)
            raise RequestValidationError(f"order must be one of {allowed}", field="order")
        params.append(("order", order))
    return Call("GET", _COLLECTION, params=params, decode=decoder(PromotionTierList))


def _whole_number(value: int, name: str, highest: int) -> str:
    """``value`` as a query parameter, once it is an integer from 1 to ``highest``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= highest:
        raise RequestValidationError(f"{name} must be an integer from 1 to {highest}", field=name)
    return str(value)


def _next_page(result: PromotionTierList, page: int) -> int | None:
    """The page ``iter`` fetches after this one, or None (the service caps page numbers)."""
    if not result.has_more or not result.tiers or page >= _MAX_PAGE:
        return None
    return page + 1


class TierCheck(TypedDict, total=False):
    """What a tier is validated against: a customer and an order (models or dicts)."""

    customer: Any
    order: Any
    metadata: Mapping[str, Any] | None


def _validate(
    tier_id: str,
    *,
    customer: Any = None,
    order: Any = None,
    metadata: Mapping[str, Any] | None = None,
) -> Call[TierValidationResult]:
    from ...models import TierValidationRequest, TierValidationResult

    given = {"customer": customer, "order": order, "metadata": metadata}
    body = {name: value for name, value in given.items() if value is not None}
    checked = validate_body(TierValidationRequest, body, "promotion tier validation")
    url = path(_VALIDATE, tier_id=check_text(tier_id, "tier_id"))
    return Call("POST", url, json=checked.body(), decode=decoder(TierValidationResult))


class PromotionTiers(SyncResource):
    """``client.promotion_tiers``: promotion tiers and their (deprecated) validation."""

    def list(self, *, page: int | None = None, **query: Unpack[TierQuery]) -> PromotionTierList:
        """One numbered page: ``is_available``, ``limit``, ``page``, ``order``; ``has_more``
        says whether another follows."""
        return self._send(_list(page=page, **query))

    def iter(self, **query: Unpack[TierQuery]) -> Iterator[PromotionTier]:
        """Every tier, page after page."""
        for result in walk(lambda page: self.list(page=page, **query), 1, _next_page):
            yield from result.tiers

    def validate(self, tier_id: str, **check: Unpack[TierCheck]) -> TierValidationResult:
        """Check the tier against ``customer``, ``order`` and ``metadata``. An invalid
        outcome is a result (``valid`` false, with ``reason`` and ``error``), not an exception."""
        return self._send(_validate(tier_id, **check))


class AsyncPromotionTiers(AsyncResource):
    """Async twin of ``PromotionTiers``."""

    async def list(
        self, *, page: int | None = None, **query: Unpack[TierQuery]
    ) -> PromotionTierList:
        """Async twin of ``PromotionTiers.list``."""
        return await self._send(_list(page=page, **query))

    async def iter(self, **query: Unpack[TierQuery]) -> AsyncIterator[PromotionTier]:
        """Async twin of ``PromotionTiers.iter``."""
        async for result in awalk(lambda page: self.list(page=page, **query), 1, _next_page):
            for tier in result.tiers:
                yield tier

    async def validate(self, tier_id: str, **check: Unpack[TierCheck]) -> TierValidationResult:
        """Async twin of ``PromotionTiers.validate``."""
        return await self._send(_validate(tier_id, **check))
