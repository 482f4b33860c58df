"""Tier structures: how members move between tiers of a program."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .card_definitions import CalendarDate, Period
from .common import ApiModel, Metadata, Open, Timestamp
from .enums import TierStructureStatus, TierStructureType
from .ids import CardDefinitionId, TierStructureId
from .subtypes import DowngradeType, PeriodUnit, PointEarnedType, TierExpirationType

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

    omit_if_none = frozenset({"earning_activity", "spending_activity", "custom_activity", "period"})

    earning_activity: bool | None = None
    spending_activity: bool | None = None
    custom_activity: bool | None = None
    custom_activity_types: list[str] = Field(default_factory=list)
    period: Period | None = None


class TierExpiration(ApiModel):
    """How long a reached tier is kept; only the object matching ``type`` is sent."""

    omit_if_none = frozenset({"fixed_duration", "calendar_expiration", "sliding_expiration"})

    type: Open[TierExpirationType] = TierExpirationType.NO_EXPIRATION
    fixed_duration: TierFixedDuration | None = None
    calendar_expiration: TierCalendarExpiration | None = None
    sliding_expiration: TierSlidingExpiration | None = None


class GracePeriod(ApiModel):
    """Delay before a downgrade takes effect."""

    omit_if_none = frozenset({"value", "unit", "round_up"})

    value: int | None = None
    unit: Open[PeriodUnit] | None = None
    round_up: bool | None = None


class TierDowngrade(ApiModel):
    """How a member drops tiers when the qualification lapses."""

    omit_if_none = frozenset({"grace_period"})

    type: Open[DowngradeType] = DowngradeType.MULTI_LEVEL
    grace_period: GracePeriod | None = None


class PointBalance(ApiModel):
    """Tiers follow the current balance of cards of one definition."""

    card_definition_id: CardDefinitionId


class PointEarned(ApiModel):
    """Tiers follow points earned over a period on cards of one definition."""

    omit_if_none = frozenset({"period", "type"})

    card_definition_id: CardDefinitionId
    period: Period | None = None
    type: Open[PointEarnedType] | None = None


class TierStructure(ApiModel):
    """The rules that place members into tiers."""

    omit_if_none = frozenset({"point_balance", "point_earned"})

    id: TierStructureId
    name: str
    type: TierStructureType
    point_balance: PointBalance | None = None
    point_earned: PointEarned | None = None
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
