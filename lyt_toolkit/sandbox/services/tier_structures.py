"""Tier structures: deletion, which keeps the structure in status DELETED."""

from __future__ import annotations

from typing import Any

from ...models.enums import TierStructureStatus
from ..errors import not_found
from ..state import SandboxState
from .lookup import change_status, require


def delete_tier_structure(state: SandboxState, tier_structure_id: str) -> dict[str, Any]:
    """Delete a tier structure and answer with it; an already deleted one is a 404."""
    with state.store.transaction():
        doc = require(state, "tier_structures", tier_structure_id, "tier_structure")
        if doc["status"] == TierStructureStatus.DELETED:
            raise not_found("tier_structure", tier_structure_id)
        return change_status(state, "tier_structures", doc, TierStructureStatus.DELETED.value)
