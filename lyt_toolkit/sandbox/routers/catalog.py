"""Card definitions and tier structures: read, list, and delete tier structures."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Request, Response

from ...models import CardDefinition, Page, TierStructure
from ...models.ids import IdPrefix
from ...models.listing import CARD_DEFINITIONS, TIER_STRUCTURES
from ..deps import StateDep
from ..services import tier_structures
from ..services.lookup import require
from .common import PAGING, id_path, list_answer, loyalty_router

router = loyalty_router()

CardDefinitionId = Annotated[
    str, id_path(IdPrefix.CARD_DEFINITION, "cardDefinitionId", "card definition ID")
]
TierStructureId = Annotated[
    str, id_path(IdPrefix.TIER_STRUCTURE, "tierStructureId", "tier structure ID")
]


@router.get("/card-definitions", dependencies=[PAGING], response_model=Page[CardDefinition])
def list_card_definitions(request: Request, state: StateDep) -> Response:
    """Card definitions of every status, one page at a time."""
    return list_answer(request, state, "card_definitions", CARD_DEFINITIONS)


@router.get("/card-definitions/{cardDefinitionId}", response_model=CardDefinition)
def get_card_definition(card_definition_id: CardDefinitionId, state: StateDep) -> dict[str, Any]:
    """One card definition, whatever its status."""
    return require(state, "card_definitions", card_definition_id, "card_definition")


@router.get("/tier-structures", dependencies=[PAGING], response_model=Page[TierStructure])
def list_tier_structures(request: Request, state: StateDep) -> Response:
    """Tier structures of every status (deleted ones included), one page at a time."""
    return list_answer(request, state, "tier_structures", TIER_STRUCTURES)


@router.get("/tier-structures/{tierStructureId}", response_model=TierStructure)
def get_tier_structure(tier_structure_id: TierStructureId, state: StateDep) -> dict[str, Any]:
    return require(state, "tier_structures", tier_structure_id, "tier_structure")


@router.delete("/tier-structures/{tierStructureId}", response_model=TierStructure)
def delete_tier_structure(tier_structure_id: TierStructureId, state: StateDep) -> dict[str, Any]:
    """Delete a tier structure and answer with it, now in status DELETED."""
    return tier_structures.delete_tier_structure(state, tier_structure_id)
