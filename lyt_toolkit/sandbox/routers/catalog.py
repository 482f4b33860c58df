"""Card definitions and tier structures: read, list, and delete tier structures."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request, Response

from ...models.enums import TierStructureStatus
from ...models.ids import IdPrefix
from ...models.listing import CARD_DEFINITIONS, TIER_STRUCTURES
from ..errors import not_found
from ..loader import store_resource
from ..state import SandboxState, get_state
from .common import PAGING, id_path, list_answer, loyalty_router, require

router = loyalty_router()

CardDefinitionPath = Annotated[str, id_path(IdPrefix.CARD_DEFINITION, "card definition ID")]
TierStructurePath = Annotated[str, id_path(IdPrefix.TIER_STRUCTURE, "tier structure ID")]


@router.get("/card-definitions", dependencies=[PAGING])
def list_card_definitions(request: Request, state: SandboxState = Depends(get_state)) -> Response:
    """Card definitions of every status, one page at a time."""
    return list_answer(request, state, "card_definitions", CARD_DEFINITIONS)


@router.get("/card-definitions/{cardDefinitionId}")
def get_card_definition(
    cardDefinitionId: CardDefinitionPath, state: SandboxState = Depends(get_state)
) -> dict[str, Any]:
    """One card definition, whatever its status."""
    return require(state, "card_definitions", cardDefinitionId, "card_definition")


@router.get("/tier-structures", dependencies=[PAGING])
def list_tier_structures(request: Request, state: SandboxState = Depends(get_state)) -> Response:
    """Tier structures of every status (deleted ones included), one page at a time."""
    return list_answer(request, state, "tier_structures", TIER_STRUCTURES)


@router.get("/tier-structures/{tierStructureId}")
def get_tier_structure(
    tierStructureId: TierStructurePath, state: SandboxState = Depends(get_state)
) -> dict[str, Any]:
    return require(state, "tier_structures", tierStructureId, "tier_structure")


@router.delete("/tier-structures/{tierStructureId}")
def delete_tier_structure(
    tierStructureId: TierStructurePath, state: SandboxState = Depends(get_state)
) -> dict[str, Any]:
    """Delete a tier structure and answer with it, now in status DELETED."""
    with state.store.transaction():
        doc = require(state, "tier_structures", tierStructureId, "tier_structure")
        if doc["status"] == TierStructureStatus.DELETED:
            raise not_found("tier_structure", tierStructureId)
        doc.update(status=TierStructureStatus.DELETED.value, updated_at=state.now_iso())
        return store_resource(state.store, "tier_structures", doc)
