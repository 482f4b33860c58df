"""Benefits: list, read and create (the reference checks live in ``services.benefits``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Response

from ...models import Benefit, BenefitCreate, Page
from ...models.ids import IdPrefix
from ...models.listing import BENEFITS
from ..deps import state_of
from ..services import benefits
from ..store_reads import read_store, write_store
from .common import (
    document_response,
    id_path,
    json_response,
    list_route,
    loyalty_router,
    require_json,
)

router = loyalty_router("/benefits")

BenefitId = Annotated[str, id_path(IdPrefix.BENEFIT, "benefitId", "benefit ID")]


list_route(
    router, "", BENEFITS, Page[Benefit], "Benefits that are not deleted, one page at a time."
)


@router.get("/{benefitId}", response_model=Benefit)
async def get_benefit(benefit_id: BenefitId, request: Request) -> Response:
    state = state_of(request)
    return json_response(await read_store(state.store, benefits.benefit_json, state, benefit_id))


@router.post("", dependencies=[Depends(require_json)], response_model=Benefit)
async def create_benefit(body: BenefitCreate, request: Request) -> Response:
    """Create a benefit after checking the name and every resource it references."""
    state = state_of(request)
    return document_response(await write_store(state.store, benefits.create_benefit, state, body))
