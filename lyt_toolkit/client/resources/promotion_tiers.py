"""Promotion tiers (``/v1``): list them, validate one against a customer and order, and
ask what a tier would do to several orders (``what_if``).

Amounts are integers in minor units (cents): ``1040`` is 10.40. An order amount,
item amount or item price from 1 to 99 gives a ``MinorUnitsWarning``, as it most
likely was meant in major units (``amount: 10`` is 0.10, not 10.00).
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from typing_extensions import Unpack

from ..._shares import share_of
from ..._text import counted
from ...errors import BudgetExceededError, RequestValidationError
from .._core import Call, decoder, path
from ..allowance import DEFAULT_SHARE, checked_share
from ..pagination import awalk, walk
from ._base import AsyncResource, SyncResource, agather, check_text, gather, validate_body
from ._frame_share import frame_share

if TYPE_CHECKING:
    import pandas as pd

    from ..._progress import Progress
    from ...models import (
        OrderRef,
        PromotionTier,
        PromotionTierList,
        TierValidationRequest,
        TierValidationResult,
    )
    from ..quota import Quota

__all__ = ["WHAT_IF_COLUMNS", "AsyncPromotionTiers", "MinorUnitsWarning", "PromotionTiers"]

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
    _warn_major_units(checked)
    url = path(_VALIDATE, tier_id=check_text(tier_id, "tier_id"))
    return Call("POST", url, json=checked.body(), decode=decoder(TierValidationResult))


class MinorUnitsWarning(UserWarning):
    """An amount that looks like major units where the service counts minor units."""


_LIKELY_MAJOR = range(1, 100)


def _warn_major_units(request: TierValidationRequest) -> None:
    """Warn, naming the field, for each amount from 1 to 99 in the request's order."""
    order = request.order
    if order is None:
        return
    amounts: list[tuple[str, int | None]] = [("order.amount", order.amount)]
    for number, item in enumerate(order.items or ()):
        amounts += [(f"order.items.{number}.amount", item.amount)]
        amounts += [(f"order.items.{number}.price", item.price)]
    for field, value in amounts:
        if value is not None and value in _LIKELY_MAJOR:
            warnings.warn(
                f"{field}={value} is in minor units ({value / 100:.2f} in major units);"
                f" write {value * 100} for {value}.00",
                MinorUnitsWarning,
                stacklevel=4,
            )


WHAT_IF_COLUMNS = (
    "amount", "valid", "reason", "discount_amount", "applied_discount_amount",
)  # fmt: skip
"""The columns of ``what_if``'s frame, one row per order (index ``order``: its position)."""


def _orders(orders: Sequence[Any]) -> list[OrderRef]:
    from ...models import OrderRef

    if isinstance(orders, str | bytes | Mapping) or not isinstance(orders, Sequence):
        raise RequestValidationError("orders must be a list of orders", field="orders")
    return [
        validate_body(OrderRef, order, f"orders[{number}]") for number, order in enumerate(orders)
    ]


def _check_share(quota: Quota, share: float, tier_id: str, orders: int) -> None:
    """Refuse (``BudgetExceededError``, nothing more sent) the validations of ``orders`` when
    they do not fit ``share`` of the calls the window has left, once the budget is known."""
    remaining = quota.remaining
    if remaining is None or orders <= share_of(remaining, share):
        return
    raise BudgetExceededError(
        f"the what-if of tier {tier_id} ({counted(orders, 'order')} to validate)",
        needed=orders,
        remaining=remaining,
        limit=quota.limit,
        resets_at=quota.resets_at,
        partial=False,
        share=share,
    )


def _what_if_frame(orders: list[OrderRef], results: Iterable[TierValidationResult]) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for order, result in zip(orders, results, strict=True):
        priced = getattr(result, "order", None)
        rows.append(
            {
                "amount": order.amount if priced is None else priced.amount,
                "valid": result.valid,
                "reason": getattr(result, "reason", None),
                "discount_amount": getattr(result, "discount_amount", None),
                "applied_discount_amount": getattr(result, "applied_discount_amount", None),
            }
        )
    frame = pd.DataFrame(rows, columns=list(WHAT_IF_COLUMNS))
    frame.index = pd.RangeIndex(len(rows), name="order")
    return frame.astype(
        {
            "amount": "Int64",
            "valid": "boolean",
            "reason": "str",
            "discount_amount": "Int64",
            "applied_discount_amount": "Int64",
        }
    )


TIER_COLUMNS = (
    "id", "name", "campaign_id", "campaign_name", "active", "start_date", "expiration_date",
    "hierarchy", "discount_type", "created_at", "updated_at",
)  # fmt: skip


def _tiers_frame(tiers: Iterable[PromotionTier]) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for tier in tiers:
        discount = tier.effective_discount
        rows.append(
            {
                "id": tier.id,
                "name": tier.name,
                "campaign_id": tier.campaign_id or (tier.campaign.id if tier.campaign else None),
                "campaign_name": tier.campaign.name if tier.campaign else None,
                "active": tier.active,
                "start_date": tier.start_date,
                "expiration_date": tier.expiration_date,
                "hierarchy": tier.hierarchy,
                "discount_type": None if discount is None else str(discount.type),
                "created_at": tier.created_at,
                "updated_at": tier.updated_at,
            }
        )
    frame = pd.DataFrame(rows, columns=list(TIER_COLUMNS))
    for column in ("start_date", "expiration_date", "created_at", "updated_at"):
        frame[column] = pd.to_datetime(frame[column], utc=True)
    text = ("id", "name", "campaign_id", "campaign_name", "discount_type")
    return frame.astype({**dict.fromkeys(text, "str"), "active": "boolean", "hierarchy": "Int64"})


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class PromotionTiers(SyncResource):
    """``client.promotion_tiers``: promotion tiers and their (deprecated) validation."""

    def list(self, *, page: int | None = None, **query: Unpack[TierQuery]) -> PromotionTierList:
        """One numbered page: ``is_available``, ``limit``, ``page``, ``order``; ``has_more``
        says whether another follows."""
        return self._send(_list(page=page, **query))

    def iter(self, **query: Unpack[TierQuery]) -> Iterator[PromotionTier]:
        """Every tier, page after page (a call a page as the caller takes it, held to
        no budget share: ``frame`` is)."""
        for result in walk(lambda page: self.list(page=page, **query), 1, _next_page):
            for tier in result.tiers:
                yield tier

    def validate(self, tier_id: str, **check: Unpack[TierCheck]) -> TierValidationResult:
        """Check the tier against ``customer``, ``order`` and ``metadata``. An invalid
        outcome is a result (``valid`` false, with ``reason`` and ``error``), not an
        exception."""
        return self._send(_validate(tier_id, **check))

    def what_if(
        self,
        tier_id: str,
        *,
        orders: Sequence[Any],
        customer: Any = None,
        metadata: Mapping[str, Any] | None = None,
        budget_share: float = DEFAULT_SHARE,
    ) -> pd.DataFrame:
        """Validate the tier against each of ``orders`` for ``customer``; nothing is
        redeemed.

        One row per order (index ``order``, its position): ``amount`` (the order's,
        minor units), ``valid``, ``reason`` (why not), ``discount_amount`` and
        ``applied_discount_amount`` (minor units; NA where invalid). One request per order.

        The call budget: the orders keep to ``budget_share`` of the calls the window has
        left (half unless told otherwise, as a pull's), the rest staying for the project's
        other traffic. More orders than that are refused with ``BudgetExceededError``
        before any is sent, except the first order's when the client has read no budget
        yet (its answer tells it); a share that shrinks as other traffic spends the window
        stops the rest unsent (``AllowanceSpent``).
        """
        checked, share = _orders(orders), checked_share(budget_share)
        quota = self._transport.quota
        results: list[TierValidationResult] = []
        with quota.allowance(share):
            if checked and quota.remaining is None:  # the first answer tells the budget
                first = checked[0]
                results.append(
                    self.validate(tier_id, customer=customer, order=first, metadata=metadata)
                )
            _check_share(quota, share, tier_id, len(checked) - len(results))
            results += gather(
                self.validate(tier_id, customer=customer, order=order, metadata=metadata)
                for order in checked[len(results) :]
            )
        return _what_if_frame(checked, results)

    def frame(  # type: ignore[override]
        self,
        *,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
        **query: Unpack[TierQuery],
    ) -> pd.DataFrame:
        """Every tier (as ``iter``) as a DataFrame, one row per tier (``TIER_COLUMNS``):
        dates tz-aware UTC, ``active`` boolean, ``discount_type`` the discount's wire type.
        Tiers come in numbered pages, so ``progress`` shows nothing. Keeps to
        ``budget_share`` of the calls left in the window, as every ``frame`` does."""
        quota = self._transport.quota
        with frame_share(quota, budget_share, "promotion_tiers", "") as held:
            held.begin("promotion_tiers list", 1)
            return _tiers_frame([tier for tier in self.iter(**query)])


# unasync: end of the generated sync code; its async source follows
class AsyncPromotionTiers(AsyncResource):
    """Async twin of ``PromotionTiers``."""

    # sync: """``client.promotion_tiers``: promotion tiers and their (deprecated) validation."""

    async def list(
        self, *, page: int | None = None, **query: Unpack[TierQuery]
    ) -> PromotionTierList:
        """Async twin of ``PromotionTiers.list``."""
        # sync: """One numbered page: ``is_available``, ``limit``, ``page``, ``order``; ``has_more``
        # sync: says whether another follows."""
        return await self._send(_list(page=page, **query))

    async def iter(self, **query: Unpack[TierQuery]) -> AsyncIterator[PromotionTier]:
        """Async twin of ``PromotionTiers.iter``."""
        # sync: """Every tier, page after page (a call a page as the caller takes it, held to
        # sync: no budget share: ``frame`` is)."""
        async for result in awalk(lambda page: self.list(page=page, **query), 1, _next_page):
            for tier in result.tiers:
                yield tier

    async def validate(self, tier_id: str, **check: Unpack[TierCheck]) -> TierValidationResult:
        """Async twin of ``PromotionTiers.validate``."""
        # sync: """Check the tier against ``customer``, ``order`` and ``metadata``. An invalid
        # sync: outcome is a result (``valid`` false, with ``reason`` and ``error``), not an
        # sync: exception."""
        return await self._send(_validate(tier_id, **check))

    async def what_if(
        self,
        tier_id: str,
        *,
        orders: Sequence[Any],
        customer: Any = None,
        metadata: Mapping[str, Any] | None = None,
        budget_share: float = DEFAULT_SHARE,
    ) -> pd.DataFrame:
        """Async twin of ``PromotionTiers.what_if`` (the orders validated concurrently)."""
        # sync: """Validate the tier against each of ``orders`` for ``customer``; nothing is
        # sync: redeemed.
        # sync:
        # sync: One row per order (index ``order``, its position): ``amount`` (the order's,
        # sync: minor units), ``valid``, ``reason`` (why not), ``discount_amount`` and
        # sync: ``applied_discount_amount`` (minor units; NA where invalid). One request per order.
        # sync:
        # sync: The call budget: the orders keep to ``budget_share`` of the calls the window has
        # sync: left (half unless told otherwise, as a pull's), the rest staying for the project's
        # sync: other traffic. More orders than that are refused with ``BudgetExceededError``
        # sync: before any is sent, except the first order's when the client has read no budget
        # sync: yet (its answer tells it); a share that shrinks as other traffic spends the window
        # sync: stops the rest unsent (``AllowanceSpent``).
        # sync: """
        checked, share = _orders(orders), checked_share(budget_share)
        quota = self._transport.quota
        results: list[TierValidationResult] = []
        with quota.allowance(share):
            if checked and quota.remaining is None:  # the first answer tells the budget
                first = checked[0]
                results.append(
                    await self.validate(tier_id, customer=customer, order=first, metadata=metadata)
                )
            _check_share(quota, share, tier_id, len(checked) - len(results))
            results += await agather(
                self.validate(tier_id, customer=customer, order=order, metadata=metadata)
                for order in checked[len(results) :]
            )
        return _what_if_frame(checked, results)

    async def frame(  # type: ignore[override]
        self,
        *,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
        **query: Unpack[TierQuery],
    ) -> pd.DataFrame:
        """Async twin of ``PromotionTiers.frame``."""
        # sync: """Every tier (as ``iter``) as a DataFrame, one row per tier (``TIER_COLUMNS``):
        # sync: dates tz-aware UTC, ``active`` boolean, ``discount_type`` the discount's wire type.
        # sync: Tiers come in numbered pages, so ``progress`` shows nothing. Keeps to
        # sync: ``budget_share`` of the calls left in the window, as every ``frame`` does."""
        quota = self._transport.quota
        with frame_share(quota, budget_share, "promotion_tiers", "") as held:
            held.begin("promotion_tiers list", 1)
            return _tiers_frame([tier async for tier in self.iter(**query)])
