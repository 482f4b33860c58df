"""Card definitions and tier structures: read, list, and delete tier structures."""

from __future__ import annotations

from typing import Annotated

from fastapi import Request, Response

from ...models import CardDefinition, Page, TierStructure
from ...models.ids import IdPrefix
from ...models.listing import CARD_DEFINITIONS, TIER_STRUCTURES
from ..deps import state_of
from ..services import tier_structures
from ..store_reads import write_store
from .common import document_response, get_route, id_path, list_route, loyalty_router

router = loyalty_router()

CardDefinitionId = Annotated[
    str, id_path(IdPrefix.CARD_DEFINITION, "cardDefinitionId", "card definition ID")
]
TierStructureId = Annotated[
    str, id_path(IdPrefix.TIER_STRUCTURE, "tierStructureId", "tier structure ID")
]


list_route(
    router,
    "/card-definitions",
    CARD_DEFINITIONS,
    Page[CardDefinition],
    "Card definitions of every status, one page at a time.",
)
get_route(
    router,
    "/card-definitions/{cardDefinitionId}",
    CARD_DEFINITIONS,
    CardDefinition,
    CardDefinitionId,
    "One card definition, whatever its status.",
)
list_route(
    router,
    "/tier-structures",
    TIER_STRUCTURES,
    Page[TierStructure],
    "Tier structures of every status (deleted ones included), one page at a time.",
)
get_route(
    router, "/tier-structures/{tierStructureId}", TIER_STRUCTURES, TierStructure, TierStructureId
)


@router.delete("/tier-structures/{tierStructureId}", response_model=TierStructure)
async def delete_tier_structure(tier_structure_id: TierStructureId, request: Request) -> Response:
    """Delete a tier structure and answer with it, now in status DELETED."""
    state = state_of(request)
    delete = tier_structures.delete_tier_structure
    return document_response(await write_store(state.store, delete, state, tier_structure_id))
