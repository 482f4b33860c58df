"""Promotion tiers over the store: the pure engine of ``sandbox.promotions`` fed the
stored tiers, campaigns and catalog, its exceptions mapped to the error object
(a missing reference is a 404, a bad list parameter a 400)."""

from __future__ import annotations

from typing import Any

from ...models import TierValidationRequest
from ..errors import ServiceError, bad_request, not_found
from ..promotions import (
    ListParameterError,
    ReferenceNotFound,
    UnsupportedDiscount,
    list_tiers,
    validate_tier,
)
from ..promotions.catalog import Doc
from ..state import SandboxState
from ..store import Store


class StoreCatalog:
    """The engine's ``Catalog`` over the sandbox store (source IDs found by a scan)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._by_source: dict[str, dict[str, Doc]] = {}

    def _find(self, kind: str, id: str | None, source_id: str | None) -> Doc | None:
        if id is not None:
            return self._store.get(kind, id)
        if source_id is None:
            return None
        if kind not in self._by_source:
            docs = self._store.all(kind)
            self._by_source[kind] = {d["source_id"]: d for d in docs if d.get("source_id")}
        return self._by_source[kind].get(source_id)

    def product(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None:
        return self._find("products", id, source_id)

    def sku(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None:
        return self._find("skus", id, source_id)

    def customer(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None:
        return self._find("customers", id, source_id)

    def order(self, *, id: str | None = None, source_id: str | None = None) -> Doc | None:
        return self._find("orders", id, source_id)


def list_promotion_tiers(
    state: SandboxState,
    *,
    is_available: bool | None,
    limit: int | None,
    page: int | None,
    order: str | None,
) -> dict[str, Any]:
    """Promotion tiers of every campaign, newest first unless ``order`` says otherwise."""
    try:
        return list_tiers(
            state.store.all("promotion_tiers"),
            state.store.all("campaigns"),
            is_available=is_available,
            limit=limit,
            page=page,
            order=order,
            now=state.clock.now(),
        )
    except ListParameterError as exc:
        raise bad_request(str(exc)) from exc


def validate_promotion_tier(
    state: SandboxState, tier_id: str, body: TierValidationRequest, request_id: str
) -> dict[str, Any]:
    """Whether the tier's discount applies to this customer's order, and what it saves."""
    tier = state.store.get("promotion_tiers", tier_id)
    if tier is None:
        raise not_found("promotion_tier", tier_id)
    campaign_id = tier.get("campaign_id")
    campaign = (state.store.get("campaigns", campaign_id) if campaign_id else None) or {
        "id": campaign_id
    }
    try:
        return validate_tier(
            tier,
            campaign=campaign,
            request=body.model_dump(mode="json", exclude_none=True),
            catalog=StoreCatalog(state.store),
            now=state.clock.now(),
            request_id=request_id,
        )
    except ReferenceNotFound as exc:
        raise not_found(exc.resource_type, exc.resource_id) from exc
    except UnsupportedDiscount as exc:  # the program's data, not the caller, is at fault
        raise ServiceError(500, details=f"promotion tier {tier_id}: {exc}") from exc
