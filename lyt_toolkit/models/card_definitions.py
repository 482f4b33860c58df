"""Card definitions: the template every loyalty card of a program follows.

Every sub-object defaults to what the service fills in when it was never set,
so a minimal payload parses into the same object the service would return.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .common import OMIT_IF_NONE, ApiModel, Metadata, Open, Timestamp
from .enums import (
    CardDefinitionStatus,
    CardDefinitionType,
    LimitsType,
    PayWithPointsType,
    PendingPointsType,
    PeriodUnit,
    RefundType,
    RoundingType,
)
from .enums import PointsExpirationType as ExpirationType
from .ids import CardDefinitionId

__all__ = [
    "BalanceSettings",
    "CalendarDate",
    "CalendarExpiration",
    "CardDefinition",
    "CardRefunds",
    "CodeConfig",
    "EarningLimits",
    "EventBasedPending",
    "ExchangeRatio",
    "ExpirationRounding",
    "FixedDatesPending",
    "LimitEntry",
    "LimitGroup",
    "PayWithPoints",
    "PendingPoints",
    "Period",
    "PeriodBasedPending",
    "PointsExpiration",
    "RefundMethod",
    "RefundPolicy",
    "RollingExpiration",
    "SlidingExpiration",
    "SpendingLimits",
]

DEFAULT_CHARSET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Period(ApiModel):
    """A length of time such as 30 days."""

    value: int
    unit: Open[PeriodUnit]


class CalendarDate(ApiModel):
    """A day of the year (no year): day and month."""

    day: int = Field(ge=1, le=31)
    month: int = Field(ge=1, le=12)


class CodeConfig(ApiModel):
    """How card codes are generated; each ``#`` of the pattern is one random character."""

    pattern: str = "#" * 8
    length: int = 8
    charset: str = DEFAULT_CHARSET
    prefix: str = ""
    postfix: str = ""


class ExpirationRounding(ApiModel):
    """Rounding of a rolling expiration date (e.g. to the end of the month)."""

    type: Open[RoundingType]
    value: Annotated[int | None, OMIT_IF_NONE] = None


class RollingExpiration(ApiModel):
    """Points expire a fixed period after they are earned."""

    period: Period
    rounding: ExpirationRounding | None = None


class CalendarExpiration(ApiModel):
    """Points expire on fixed days of the year."""

    expiration_dates: list[CalendarDate]


class SlidingExpiration(ApiModel):
    """Points expire after a period without qualifying activity."""

    earning_activity: Annotated[bool | None, OMIT_IF_NONE] = None
    spending_activity: Annotated[bool | None, OMIT_IF_NONE] = None
    custom_activity: Annotated[bool | None, OMIT_IF_NONE] = None
    custom_activity_types: list[str] = Field(default_factory=list)
    period: Period


class PointsExpiration(ApiModel):
    """When earned points expire; only the object matching ``type`` is sent."""

    type: Open[ExpirationType] = ExpirationType.NO_EXPIRATION
    rolling_expiration: Annotated[RollingExpiration | None, OMIT_IF_NONE] = None
    calendar_expiration: Annotated[CalendarExpiration | None, OMIT_IF_NONE] = None
    sliding_expiration: Annotated[SlidingExpiration | None, OMIT_IF_NONE] = None


class PeriodBasedPending(ApiModel):
    """Pending points activate a period after they are earned."""

    period: Period


class FixedDatesPending(ApiModel):
    """Pending points activate on fixed days of the year."""

    dates: list[CalendarDate]


class EventBasedPending(ApiModel):
    """Pending points activate on an event, unless canceled within a period."""

    event_types: list[str] = Field(default_factory=list)
    cancel_period: Period


class PendingPoints(ApiModel):
    """Whether earned points wait before they can be spent, and how they activate."""

    type: Open[PendingPointsType] = PendingPointsType.IMMEDIATE
    period_based: Annotated[PeriodBasedPending | None, OMIT_IF_NONE] = None
    fixed_dates: Annotated[FixedDatesPending | None, OMIT_IF_NONE] = None
    event_based: Annotated[EventBasedPending | None, OMIT_IF_NONE] = None


class LimitEntry(ApiModel):
    """One limit rule; which of the optional fields is sent depends on ``type``."""

    type: str
    max: Annotated[int | None, OMIT_IF_NONE] = None
    min_amount: Annotated[int | None, OMIT_IF_NONE] = None
    period: Annotated[dict | None, OMIT_IF_NONE] = None
    points: Annotated[dict | None, OMIT_IF_NONE] = None


class LimitGroup(ApiModel):
    """A set of limit rules, or ``NO_LIMIT``."""

    type: Open[LimitsType] = LimitsType.NO_LIMIT
    limits: list[LimitEntry] = Field(default_factory=list)


class EarningLimits(ApiModel):
    """Caps on how many points a card can earn overall and per transaction."""

    global_: LimitGroup = Field(default_factory=LimitGroup, alias="global")
    transactions: LimitGroup = Field(default_factory=LimitGroup)


class SpendingLimits(ApiModel):
    """Caps on how many points a card can spend overall and per transaction."""

    global_: LimitGroup = Field(default_factory=LimitGroup, alias="global")
    transactions: LimitGroup = Field(default_factory=LimitGroup)


class RefundMethod(ApiModel):
    """How points move when a refund happens (e.g. RETURN_POINTS / REFUND_ALL)."""

    type: str
    mode: Annotated[str | None, OMIT_IF_NONE] = None


class RefundPolicy(ApiModel):
    """Whether one side of a card (spent or earned points) reacts to refunds."""

    type: Open[RefundType] = RefundType.NONE
    methods: list[RefundMethod] = Field(default_factory=list)


class CardRefunds(ApiModel):
    """Refund behaviour for spent and for earned points."""

    spent_points: RefundPolicy = Field(default_factory=RefundPolicy)
    earned_points: RefundPolicy = Field(default_factory=RefundPolicy)


class BalanceSettings(ApiModel):
    """Whether a card balance may go below zero."""

    allow_negative: bool = False


class ExchangeRatio(ApiModel):
    """Formula turning points into order currency."""

    formula: str


class PayWithPoints(ApiModel):
    """Whether points can pay for orders, and at what rate."""

    type: Open[PayWithPointsType] = PayWithPointsType.NO_PAYMENTS
    exchange_ratio: Annotated[ExchangeRatio | None, OMIT_IF_NONE] = None


class CardDefinition(ApiModel):
    """The template of a program's loyalty cards: codes, expiry, limits and refunds."""

    id: CardDefinitionId
    name: str
    type: CardDefinitionType = CardDefinitionType.INDIVIDUAL
    status: CardDefinitionStatus
    code_config: CodeConfig = Field(default_factory=CodeConfig)
    points_expiration: PointsExpiration = Field(default_factory=PointsExpiration)
    pending_points: PendingPoints = Field(default_factory=PendingPoints)
    earning_limits: EarningLimits = Field(default_factory=EarningLimits)
    spending_limits: SpendingLimits = Field(default_factory=SpendingLimits)
    refunds: CardRefunds = Field(default_factory=CardRefunds)
    balance_settings: BalanceSettings = Field(default_factory=BalanceSettings)
    pay_with_points: PayWithPoints = Field(default_factory=PayWithPoints)
    metadata: Metadata = Field(default_factory=dict)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["card_definition"] = "card_definition"

    @property
    def has_pending_points(self) -> bool:
        """True when earned points wait before activation (needed to activate buckets)."""
        return self.pending_points.type != PendingPointsType.IMMEDIATE
