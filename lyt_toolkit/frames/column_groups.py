"""Column groups several schemas share, declared once."""

from __future__ import annotations

from ..models.enums import CardDefinitionStatus
from .schema import Column, enum, flag, timestamp

__all__ = ["card_definition_check", "created_updated"]


def created_updated() -> tuple[Column, Column]:
    """``created_at`` and ``updated_at``, which every stored resource has."""
    return (
        timestamp("created_at", "creation time"),
        timestamp("updated_at", "last update (NA: never updated)"),
    )


def card_definition_check(*, optional: bool = False) -> tuple[Column, Column]:
    """``card_definition_found`` / ``card_definition_status``, filled by a snapshot's check.

    ``optional``: the row may reference no card definition at all (NA then too).
    """
    found_na, status_na = (
        ("none or not", "missing, none or not") if optional else ("not", "missing or not")
    )
    return (
        flag(
            "card_definition_found",
            f"snapshot: the card definition exists (False: dangling; NA: {found_na} checked)",
        ),
        enum(
            "card_definition_status",
            CardDefinitionStatus,
            f"snapshot: status of the card definition (NA: {status_na} checked)",
        ),
    )
