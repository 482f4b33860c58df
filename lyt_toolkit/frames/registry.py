"""Every declared frame kind, its schema and its builder, looked up by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd

from .._keyed import keyed
from .benefits import BENEFITS, benefits_frame
from .definitions import (
    CARD_DEFINITIONS,
    TIER_STRUCTURES,
    card_definitions_frame,
    tier_structures_frame,
)
from .members import (
    CARDS,
    MEMBERS,
    PENDING_BUCKETS,
    PROGRAMS,
    cards_frame,
    members_frame,
    pending_buckets_frame,
    programs_frame,
)
from .rewards import (
    REWARD_COSTS,
    REWARDS,
    reward_costs_frame,
    rewards_frame,
)
from .schema import Schema

__all__ = [
    "BUILDERS",
    "FRAME_NAMES",
    "SCHEMAS",
    "describe_schema",
    "empty_frame",
    "schema",
    "schemas_markdown",
]

SCHEMAS: dict[str, Schema] = keyed(
    "kind",
    REWARDS,
    REWARD_COSTS,
    BENEFITS,
    CARD_DEFINITIONS,
    TIER_STRUCTURES,
    PROGRAMS,
    MEMBERS,
    CARDS,
    PENDING_BUCKETS,
)
"""Schema per frame kind, in the order a snapshot lists its frames."""

FRAME_NAMES: tuple[str, ...] = tuple(SCHEMAS)
"""The frames of a snapshot, in the order they are listed, exported and documented."""

BUILDERS: dict[str, Callable[[Iterable[Any]], pd.DataFrame]] = {
    "rewards": rewards_frame,
    "reward_costs": reward_costs_frame,
    "benefits": benefits_frame,
    "card_definitions": card_definitions_frame,
    "tier_structures": tier_structures_frame,
    "programs": programs_frame,
    "members": members_frame,
    "cards": cards_frame,
    "pending_buckets": pending_buckets_frame,
}
"""Builder per kind: an iterable of models (or API dicts) -> a frame of that kind."""


def schema(kind: str) -> Schema:
    """The declared schema of ``kind``; a clear error names the known kinds."""
    try:
        return SCHEMAS[kind]
    except KeyError:
        raise ValueError(f"unknown frame kind {kind!r}; known: {', '.join(SCHEMAS)}") from None


def describe_schema(kind: str) -> pd.DataFrame:
    """The columns of ``kind``: name, dtype, categories and what each one means."""
    return schema(kind).describe()


def empty_frame(kind: str) -> pd.DataFrame:
    """A frame of ``kind`` with no rows and the declared columns and dtypes."""
    return schema(kind).empty()


def schemas_markdown(schemas: Iterable[Schema] | None = None) -> str:
    """Schemas as Markdown tables, every frame kind's by default (the docs' frame schemas page is
    generated from this)."""
    parts = []
    for s in SCHEMAS.values() if schemas is None else schemas:
        parts.append(f"### `{s.kind}`\n\n{s.doc}\n\n| column | dtype | meaning |\n|---|---|---|")
        for c in s.columns:
            dtype = "category" if c.dtype_name == "category" else f"`{c.dtype_name}`"
            if c.categories:
                dtype += " (" + ", ".join(c.categories) + ")"
            parts.append(f"| `{c.name}` | {dtype} | {c.doc} |")
        parts.append("")
    return "\n".join(parts)
