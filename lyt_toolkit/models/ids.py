"""Identifier prefixes and patterns of every resource, declared once."""

from __future__ import annotations

import re
from enum import StrEnum
from functools import cache
from typing import Annotated

from pydantic import StringConstraints

__all__ = [
    "CUSTOMER_ID_PATTERN",
    "BenefitId",
    "CardDefinitionId",
    "CardId",
    "CursorPrefix",
    "IdPrefix",
    "MemberId",
    "PendingBucketId",
    "ProgramId",
    "RewardId",
    "TierStructureId",
    "hex_pattern",
    "matches",
]


class IdPrefix(StrEnum):
    CARD_DEFINITION = "lcdef_"
    TIER_STRUCTURE = "lts_"
    REWARD = "lrew_"
    REWARD_COST = "lrcst_"
    REWARD_COST_SPENDING = "lrspn_"
    BENEFIT = "lben_"
    PROGRAM = "lprg_"
    MEMBER = "lmbr_"
    CARD = "lcrd_"
    PENDING_BUCKET = "lcppb_"
    CARD_TRANSACTION = "lctx_"


class CursorPrefix(StrEnum):
    """Prefix of the opaque ``cursor.next`` value of each list."""

    CARD_DEFINITIONS = "lcrscdef_"
    TIER_STRUCTURES = "lcrsts_"
    REWARDS = "lcrsrew_"
    BENEFITS = "lcrsben_"
    PROGRAMS = "lcrsprg_"
    MEMBERS = "lcrsmbr_"
    PENDING_BUCKETS = "lcrscppb_"


def hex_pattern(prefix: str) -> str:
    """The ``^prefix[a-f0-9]+$`` pattern the interface uses for loyalty IDs."""
    return f"^{re.escape(prefix)}[a-f0-9]+$"


CUSTOMER_ID_PATTERN = r"^cust_[a-zA-Z0-9]+"

CardDefinitionId = Annotated[str, StringConstraints(pattern=hex_pattern(IdPrefix.CARD_DEFINITION))]
TierStructureId = Annotated[str, StringConstraints(pattern=hex_pattern(IdPrefix.TIER_STRUCTURE))]
RewardId = Annotated[str, StringConstraints(pattern=hex_pattern(IdPrefix.REWARD))]
BenefitId = Annotated[str, StringConstraints(pattern=hex_pattern(IdPrefix.BENEFIT))]
ProgramId = Annotated[str, StringConstraints(pattern=hex_pattern(IdPrefix.PROGRAM))]
MemberId = Annotated[str, StringConstraints(pattern=hex_pattern(IdPrefix.MEMBER))]
CardId = Annotated[str, StringConstraints(pattern=hex_pattern(IdPrefix.CARD))]
PendingBucketId = Annotated[str, StringConstraints(pattern=hex_pattern(IdPrefix.PENDING_BUCKET))]


def matches(prefix: str, value: str) -> bool:
    """True when ``value`` is a well-formed ID with the given prefix."""
    return _id_pattern(prefix).fullmatch(value) is not None


@cache
def _id_pattern(prefix: str) -> re.Pattern[str]:
    return re.compile(f"{re.escape(prefix)}[a-f0-9]+")
