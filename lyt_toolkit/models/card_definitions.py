"""Card definitions: the template every loyalty card of a program follows.

Every sub-object defaults to what the service fills in when it was never set,
so a minimal payload parses into the same object the service would return.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import ApiModel, Metadata, Open, Timestamp
from .enums import CardDefinitionStatus, CardDefinitionType, LimitsType, PendingPointsType
from .enums import PointsExpirationType as ExpirationType
from .ids import CardDefinitionId
from .subtypes import PayWithPointsType, PeriodUnit, RefundType, RoundingType

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

    omit_if_none = frozenset({"value"})

    type: Open[RoundingType]
    value: int | None = None


class RollingExpiration(ApiModel):
    """Points expire a fixed period after they are earned."""

    period: Period
    rounding: ExpirationRounding | None = None


class CalendarExpiration(ApiModel):
    """Points expire on fixed days of the year."""

    expiration_dates: list[CalendarDate]


class SlidingExpiration(ApiModel):
    """Points expire after a period without qualifying activity."""

    omit_if_none = frozenset({"earning_activity", "spending_activity", "custom_activity"})

    earning_activity: bool | None = None
    spending_activity: bool | None = None
    custom_activity: bool | None = None
    custom_activity_types: list[str] = Field(default_factory=list)
    period: Period


class PointsExpiration(ApiModel):
    """When earned points expire; only the object matching ``type`` is sent."""

    omit_if_none = frozenset({"rolling_expiration", "calendar_expiration", "sliding_expiration"})

    type: Open[ExpirationType] = ExpirationType.NO_EXPIRATION
    rolling_expiration: RollingExpiration | None = None
    calendar_expiration: CalendarExpiration | None = None
    sliding_expiration: SlidingExpiration | None = None


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

    omit_if_none = frozenset({"period_based", "fixed_dates", "event_based"})

    type: Open[PendingPointsType] = PendingPointsType.IMMEDIATE
    period_based: PeriodBasedPending | None = None
    fixed_dates: FixedDatesPending | None = None
    event_based: EventBasedPending | None = None


class LimitEntry(ApiModel):
    """One limit rule; which of the optional fields is sent depends on ``type``."""

    omit_if_none = frozenset({"max", "min_amount", "period", "points"})

    type: str
    max: int | None = None
    min_amount: int | None = None
    period: dict | None = None
    points: dict | None = None


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

    omit_if_none = frozenset({"mode"})

    type: str
    mode: str | None = None


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

    omit_if_none = frozenset({"exchange_ratio"})

    type: Open[PayWithPointsType] = PayWithPointsType.NO_PAYMENTS
    exchange_ratio: ExchangeRatio | None = None


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
