"""What the program-file tests share: the ID prefix each section's rows carry."""

from __future__ import annotations

from lyt_toolkit.models.ids import IdPrefix

ID_PREFIXES: dict[str, str] = {
    "card_definitions": IdPrefix.CARD_DEFINITION,
    "tier_structures": IdPrefix.TIER_STRUCTURE,
    "rewards": IdPrefix.REWARD,
    "benefits": IdPrefix.BENEFIT,
    "programs": IdPrefix.PROGRAM,
    "members": IdPrefix.MEMBER,
    "cards": IdPrefix.CARD,
    "pending_buckets": IdPrefix.PENDING_BUCKET,
    "products": "prod_",
    "skus": "sku_",
}
"""Sections whose IDs follow a documented pattern, and that pattern's prefix."""
