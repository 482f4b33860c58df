"""Promotion tiers: the page-numbered list and the (deprecated) validation call.

The work is done in ``services.promotions`` over the pure engine of
``sandbox.promotions``; this router states the parameters and the auth: the key
pair, or a bearer token holding both ``api`` and ``promotions``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from ...models import TierValidationRequest
from ..auth import key_pair_or_token
from ..deps import StateDep
from ..responses import request_id
from ..services import promotions

router = APIRouter(
    prefix="/v1/promotions/tiers",
    dependencies=[Depends(key_pair_or_token("api", "promotions"))],
    tags=["promotions"],
)


@router.get("")
def list_promotion_tiers(
    state: StateDep,
    is_available: Annotated[
        bool | None, Query(description="true: only tiers that could apply right now")
    ] = None,
    limit: Annotated[int | None, Query(ge=1, le=100, description="page size, default 10")] = None,
    page: Annotated[int | None, Query(ge=1, le=100, description="page number, from 1")] = None,
    order: Annotated[
        str | None, Query(description="created_at, updated_at; '-' prefix for descending")
    ] = None,
) -> dict[str, Any]:
    """Promotion tiers of every campaign, newest first unless ``order`` says otherwise."""
    return promotions.list_promotion_tiers(
        state, is_available=is_available, limit=limit, page=page, order=order
    )


@router.post("/{tierId}/validation")
def validate_promotion_tier(
    tier_id: Annotated[str, Path(alias="tierId", min_length=1, description="promotion tier ID")],
    body: TierValidationRequest,
    request: Request,
    state: StateDep,
) -> dict[str, Any]:
    """Whether the tier's discount applies to this customer's order, and what it saves.

    An invalid outcome is still a 200 carrying ``reason`` and ``error``.
    """
    return promotions.validate_promotion_tier(state, tier_id, body, request_id(request))
