"""Tier structures: how members move between tiers of a program."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .card_definitions import CalendarDate, Period
from .common import OMIT_IF_NONE, ApiModel, Metadata, Open, Timestamp
from .enums import (
    DowngradeType,
    PeriodUnit,
    PointEarnedType,
    TierExpirationType,
    TierStructureStatus,
    TierStructureType,
)
from .ids import CardDefinitionId, TierStructureId

__all__ = [
    "GracePeriod",
    "PointBalance",
    "PointEarned",
    "TierCalendarExpiration",
    "TierDowngrade",
    "TierExpiration",
    "TierFixedDuration",
    "TierSlidingExpiration",
    "TierStructure",
]


class TierFixedDuration(ApiModel):
    """A tier is kept for a fixed period."""

    period: Period | None = None


class TierCalendarExpiration(ApiModel):
    """A tier is reassessed on fixed days of the year."""

    calendar_dates: list[CalendarDate] = Field(default_factory=list)


class TierSlidingExpiration(ApiModel):
    """A tier lapses after a period without qualifying activity."""

    earning_activity: Annotated[bool | None, OMIT_IF_NONE] = None
    spending_activity: Annotated[bool | None, OMIT_IF_NONE] = None
    custom_activity: Annotated[bool | None, OMIT_IF_NONE] = None
    custom_activity_types: list[str] = Field(default_factory=list)
    period: Annotated[Period | None, OMIT_IF_NONE] = None


class TierExpiration(ApiModel):
    """How long a reached tier is kept; only the object matching ``type`` is sent."""

    type: Open[TierExpirationType] = TierExpirationType.NO_EXPIRATION
    fixed_duration: Annotated[TierFixedDuration | None, OMIT_IF_NONE] = None
    calendar_expiration: Annotated[TierCalendarExpiration | None, OMIT_IF_NONE] = None
    sliding_expiration: Annotated[TierSlidingExpiration | None, OMIT_IF_NONE] = None


class GracePeriod(ApiModel):
    """Delay before a downgrade takes effect."""

    value: Annotated[int | None, OMIT_IF_NONE] = None
    unit: Annotated[Open[PeriodUnit] | None, OMIT_IF_NONE] = None
    round_up: Annotated[bool | None, OMIT_IF_NONE] = None


class TierDowngrade(ApiModel):
    """How a member drops tiers when the qualification lapses."""

    type: Open[DowngradeType] = DowngradeType.MULTI_LEVEL
    grace_period: Annotated[GracePeriod | None, OMIT_IF_NONE] = None


class PointBalance(ApiModel):
    """Tiers follow the current balance of cards of one definition."""

    card_definition_id: CardDefinitionId


class PointEarned(ApiModel):
    """Tiers follow points earned over a period on cards of one definition."""

    card_definition_id: CardDefinitionId
    period: Annotated[Period | None, OMIT_IF_NONE] = None
    type: Annotated[Open[PointEarnedType] | None, OMIT_IF_NONE] = None


class TierStructure(ApiModel):
    """The rules that place members into tiers."""

    id: TierStructureId
    name: str
    type: TierStructureType
    point_balance: Annotated[PointBalance | None, OMIT_IF_NONE] = None
    point_earned: Annotated[PointEarned | None, OMIT_IF_NONE] = None
    expiration: TierExpiration = Field(default_factory=TierExpiration)
    downgrade: TierDowngrade = Field(default_factory=TierDowngrade)
    metadata: Metadata = Field(default_factory=dict)
    status: TierStructureStatus
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["tier_structure"] = "tier_structure"

    @property
    def card_definition_id(self) -> str | None:
        """The card definition the tiers are computed from, whichever the type."""
        source = self.point_balance or self.point_earned
        return source.card_definition_id if source else None
