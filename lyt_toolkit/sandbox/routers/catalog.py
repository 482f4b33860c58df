"""Card definitions and tier structures: read, list, and delete tier structures."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from ...models.enums import TierStructureStatus
from ...models.ids import IdPrefix
from ...models.listing import CARD_DEFINITIONS, TIER_STRUCTURES
from ..auth import require_loyalty_access
from ..errors import not_found
from ..loader import store_resource
from ..state import SandboxState, get_state
from .common import Cursor, Limit, Order, id_path, list_answer, require

router = APIRouter(
    prefix="/v2/loyalties", dependencies=[Depends(require_loyalty_access)], tags=["loyalties"]
)

CardDefinitionPath = Annotated[str, id_path(IdPrefix.CARD_DEFINITION, "card definition ID")]
TierStructurePath = Annotated[str, id_path(IdPrefix.TIER_STRUCTURE, "tier structure ID")]


@router.get("/card-definitions")
def list_card_definitions(
    request: Request,
    limit: Limit = None,
    order: Order = None,
    cursor: Cursor = None,
    state: SandboxState = Depends(get_state),
) -> dict[str, Any]:
    """Card definitions of every status, one page at a time."""
    return list_answer(request, state, "card_definitions", CARD_DEFINITIONS)


@router.get("/card-definitions/{cardDefinitionId}")
def get_card_definition(
    cardDefinitionId: CardDefinitionPath, state: SandboxState = Depends(get_state)
) -> dict[str, Any]:
    """One card definition, whatever its status."""
    return require(state, "card_definitions", cardDefinitionId, "card_definition")


@router.get("/tier-structures")
def list_tier_structures(
    request: Request,
    limit: Limit = None,
    order: Order = None,
    cursor: Cursor = None,
    state: SandboxState = Depends(get_state),
) -> dict[str, Any]:
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
