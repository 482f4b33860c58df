"""Promotion tiers: the page-numbered list and the (deprecated) validation call.

The work is done by the pure engine in ``sandbox.promotions``; this router only
reads the store, maps the engine's exceptions to the error object (a missing
reference is a 404, a bad list parameter a 400) and states the auth: the key
pair, or a bearer token holding both ``api`` and ``promotions``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from ...models import TierValidationRequest
from ..auth import key_pair_or_token
from ..errors import ServiceError, bad_request, not_found, request_id
from ..promotions import (
    ListParameterError,
    ReferenceNotFound,
    UnsupportedDiscount,
    list_tiers,
    validate_tier,
)
from ..promotions.catalog import Doc
from ..state import SandboxState, get_state
from ..store import Store

router = APIRouter(
    prefix="/v1/promotions/tiers",
    dependencies=[Depends(key_pair_or_token("api", "promotions"))],
    tags=["promotions"],
)


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


@router.get("")
def list_promotion_tiers(
    is_available: Annotated[
        bool | None, Query(description="true: only tiers that could apply right now")
    ] = None,
    limit: Annotated[int | None, Query(ge=1, le=100, description="page size, default 10")] = None,
    page: Annotated[int | None, Query(ge=1, le=100, description="page number, from 1")] = None,
    order: Annotated[
        str | None, Query(description="created_at, updated_at; '-' prefix for descending")
    ] = None,
    state: SandboxState = Depends(get_state),
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


@router.post("/{tierId}/validation")
def validate_promotion_tier(
    tierId: Annotated[str, Path(min_length=1, description="promotion tier ID")],
    body: TierValidationRequest,
    request: Request,
    state: SandboxState = Depends(get_state),
) -> dict[str, Any]:
    """Whether the tier's discount applies to this customer's order, and what it saves.

    An invalid outcome is still a 200 carrying ``reason`` and ``error``.
    """
    tier = state.store.get("promotion_tiers", tierId)
    if tier is None:
        raise not_found("promotion_tier", tierId)
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
            request_id=request_id(request),
        )
    except ReferenceNotFound as exc:
        raise not_found(exc.resource_type, exc.resource_id) from exc
    except UnsupportedDiscount as exc:  # the program's data, not the caller, is at fault
        raise ServiceError(500, details=f"promotion tier {tierId}: {exc}") from exc
