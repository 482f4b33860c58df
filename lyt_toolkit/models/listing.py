"""What each list endpoint accepts: ordering fields, filter fields and their conditions.

Both the sandbox (to reject what the service rejects) and the client (to catch a
mistake before sending it) read these specs, so they cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .._keyed import keyed
from .enums import (
    BenefitType,
    CardDefinitionType,
    RewardType,
    TierStructureStatus,
    TierStructureType,
)
from .ids import CUSTOMER_ID_PATTERN, CursorPrefix, IdPrefix, hex_pattern

MIN_LIMIT = 1
MAX_LIMIT = 100
DEFAULT_LIMIT = 10


class FieldKind(StrEnum):
    ID = "id"
    STRING = "string"
    ENUM = "enum"
    DATE = "date"


# condition -> (min values, max values); a ``0`` minimum marks a presence check.
CONDITIONS: dict[FieldKind, dict[str, tuple[int, int]]] = {
    FieldKind.ID: {"$is": (1, 1), "$is_not": (1, 1), "$in": (1, 100), "$not_in": (1, 100)},
    FieldKind.STRING: {
        "$is": (1, 1),
        "$is_not": (1, 1),
        "$contains": (1, 1),
        "$not_contain": (1, 1),
        "$starts_with": (1, 1),
        "$ends_with": (1, 1),
        "$in": (1, 10),
        "$not_in": (1, 10),
        "$has_value": (0, 1),
        "$is_unknown": (0, 1),
    },
    FieldKind.ENUM: {"$is": (1, 1), "$is_not": (1, 1), "$in": (1, 10), "$not_in": (1, 10)},
    FieldKind.DATE: {
        "$before": (1, 1),
        "$after": (1, 1),
        "$is": (1, 1),
        "$more_than": (1, 1),
        "$less_than": (1, 1),
        "$has_value": (0, 1),
        "$is_unknown": (0, 1),
    },
}
"""Conditions allowed per field kind, with how many values each takes.

Date conditions: ``$before``/``$after`` take an ISO 8601 date-time; ``$is``,
``$more_than`` and ``$less_than`` take a whole number of days ago.
"""


@dataclass(frozen=True)
class FilterField:
    name: str
    kind: FieldKind
    pattern: str | None = None
    """For ID fields: the pattern every value must match."""
    values: tuple[str, ...] = ()
    """For enum fields: the values allowed."""

    @property
    def conditions(self) -> dict[str, tuple[int, int]]:
        return CONDITIONS[self.kind]


@dataclass(frozen=True)
class ListSpec:
    """The query language of one list endpoint."""

    name: str
    cursor_prefix: str
    order_fields: tuple[str, ...]
    default_order: str = "-created_at"
    filters: dict[str, FilterField] = field(default_factory=dict)

    @property
    def order_values(self) -> frozenset[str]:
        return frozenset(self.order_fields) | {f"-{f}" for f in self.order_fields}


def _id(name: str, prefix: str) -> FilterField:
    return FilterField(name, FieldKind.ID, pattern=hex_pattern(prefix))


def _enum(name: str, values: type[StrEnum] | tuple[str, ...]) -> FilterField:
    return FilterField(name, FieldKind.ENUM, values=tuple(str(v) for v in values))


def _fields(*fields: FilterField) -> dict[str, FilterField]:
    return {f.name: f for f in fields}


_NAME = FilterField("name", FieldKind.STRING)
_CREATED = FilterField("created_at", FieldKind.DATE)

CARD_DEFINITIONS = ListSpec(
    "card_definitions",
    CursorPrefix.CARD_DEFINITIONS,
    ("name", "type", "status", "created_at"),
    filters=_fields(
        _id("id", IdPrefix.CARD_DEFINITION),
        _NAME,
        _enum("type", CardDefinitionType),
        _enum("status", ("ACTIVE", "DRAFT")),
        _CREATED,
        FilterField("updated_at", FieldKind.DATE),
    ),
)
TIER_STRUCTURES = ListSpec(
    "tier_structures",
    CursorPrefix.TIER_STRUCTURES,
    ("created_at", "name", "type", "status"),
    filters=_fields(
        _id("id", IdPrefix.TIER_STRUCTURE),
        _NAME,
        _enum("type", TierStructureType),
        _enum("status", TierStructureStatus),
        _CREATED,
    ),
)
REWARDS = ListSpec(
    "rewards",
    CursorPrefix.REWARDS,
    ("created_at", "name"),
    filters=_fields(_id("id", IdPrefix.REWARD), _NAME, _enum("type", RewardType), _CREATED),
)
BENEFITS = ListSpec(
    "benefits",
    CursorPrefix.BENEFITS,
    ("created_at", "name", "type"),
    filters=_fields(
        _id("id", IdPrefix.BENEFIT),
        _NAME,
        _enum("status", ("ACTIVE", "DRAFT")),
        _enum("type", BenefitType),
        _CREATED,
    ),
)
PROGRAMS = ListSpec(
    "programs",
    CursorPrefix.PROGRAMS,
    ("created_at", "name"),
    filters=_fields(
        _id("id", IdPrefix.PROGRAM),
        _NAME,
        _enum("status", ("ACTIVE", "INACTIVE", "DRAFT")),
        _CREATED,
    ),
)
MEMBERS = ListSpec(
    "members",
    CursorPrefix.MEMBERS,
    ("created_at", "status", "customer_id"),
    filters=_fields(
        _id("id", IdPrefix.MEMBER),
        _enum("status", ("ACTIVE", "INACTIVE")),
        FilterField("customer_id", FieldKind.ID, pattern=CUSTOMER_ID_PATTERN),
        _CREATED,
    ),
)
PENDING_BUCKETS = ListSpec(
    "pending_buckets",
    CursorPrefix.PENDING_BUCKETS,
    ("date",),
    default_order="date",
)

LIST_SPECS: dict[str, ListSpec] = keyed(
    "name", CARD_DEFINITIONS, TIER_STRUCTURES, REWARDS, BENEFITS, PROGRAMS, MEMBERS, PENDING_BUCKETS
)
