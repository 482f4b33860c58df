"""Every enumeration of the service interface, declared once: the resources' own, then the
values nested inside them.

The sandbox, the client, the frames and the widgets import these instead of
spelling the values again. Members are ``str`` enums so they compare equal to
the raw JSON values.
"""

from __future__ import annotations

from enum import StrEnum, auto

__all__ = [
    "SCOPES",
    "ActivationStatus",
    "AmountEffect",
    "BenefitCreateStatus",
    "BenefitStatus",
    "BenefitType",
    "CalculationType",
    "CampaignType",
    "CardDefinitionStatus",
    "CardDefinitionType",
    "CardTransactionStatus",
    "CardTransactionType",
    "Cluster",
    "DigitalBenefitType",
    "DiscountType",
    "DowngradeType",
    "FixedEffect",
    "GrantType",
    "ItemEffect",
    "Junction",
    "LimitsType",
    "MaterialType",
    "MemberRole",
    "MemberStatus",
    "OrderStatus",
    "PayWithPointsType",
    "PendingBucketStatus",
    "PendingPointsType",
    "PercentEffect",
    "PeriodUnit",
    "PointEarnedType",
    "PointsExpirationType",
    "ProgramStatus",
    "RefundType",
    "RewardDigitalType",
    "RewardStatus",
    "RewardType",
    "RoundingType",
    "StockType",
    "TierExpirationType",
    "TierStructureStatus",
    "TierStructureType",
    "UnitEffect",
    "ValidityHoursType",
    "WireEnum",
]


class WireEnum(StrEnum):
    """A ``str`` enum whose members' values are their names, as the interface spells
    them: ``DRAFT = auto()`` is ``"DRAFT"``."""

    @staticmethod
    def _generate_next_value_(name: str, start: int, count: int, last_values: list[str]) -> str:
        return name


class CardDefinitionType(WireEnum):
    INDIVIDUAL = auto()


class CardDefinitionStatus(WireEnum):
    DRAFT = auto()
    ACTIVE = auto()
    DELETED = auto()


class TierStructureType(WireEnum):
    POINT_BALANCE = auto()
    POINT_EARNED = auto()


class TierStructureStatus(WireEnum):
    DRAFT = auto()
    ACTIVE = auto()
    INACTIVE = auto()
    DELETED = auto()


class RewardType(WireEnum):
    MATERIAL = auto()
    DIGITAL = auto()


class RewardStatus(WireEnum):
    ACTIVE = auto()
    DRAFT = auto()
    INACTIVE = auto()
    DELETED = auto()


class ValidityHoursType(WireEnum):
    ANY_TIME = auto()
    DAILY = auto()


class BenefitType(WireEnum):
    POINTS = auto()
    POINTS_PROPORTIONAL = auto()
    MATERIAL = auto()
    DIGITAL = auto()


class BenefitStatus(WireEnum):
    DRAFT = auto()
    ACTIVE = auto()
    DELETED = auto()


class BenefitCreateStatus(WireEnum):
    """Statuses a benefit may be created with."""

    DRAFT = auto()
    ACTIVE = auto()


class StockType(WireEnum):
    UNLIMITED = auto()
    LIMITED = auto()


class DigitalBenefitType(WireEnum):
    GIFT_VOUCHERS = auto()
    DISCOUNT_COUPONS = auto()


class CampaignType(WireEnum):
    """Campaign kinds the sandbox knows; digital benefits must match them."""

    DISCOUNT_COUPONS = auto()
    GIFT_VOUCHERS = auto()
    PROMOTION = auto()


class ProgramStatus(WireEnum):
    ACTIVE = auto()
    INACTIVE = auto()
    DRAFT = auto()
    DELETED = auto()


class MemberStatus(WireEnum):
    ACTIVE = auto()
    INACTIVE = auto()
    DELETED = auto()


class PendingBucketStatus(WireEnum):
    PENDING = auto()
    ACTIVATED = auto()
    CANCELED = auto()
    DELETED = auto()


class PendingPointsType(WireEnum):
    IMMEDIATE = auto()
    PERIOD_BASED = auto()
    FIXED_DATES = auto()
    EVENT_BASED = auto()


class PointsExpirationType(WireEnum):
    NO_EXPIRATION = auto()
    ROLLING_EXPIRATION = auto()
    CALENDAR_EXPIRATION = auto()
    SLIDING_EXPIRATION = auto()


class LimitsType(WireEnum):
    NO_LIMIT = auto()
    LIMITED = auto()


class CardTransactionType(WireEnum):
    ADMIN_CREDIT = auto()
    ADMIN_DEBIT = auto()
    ADMIN_POINTS_EXPIRATION = auto()
    POINTS_EARNED = auto()
    POINTS_SPENT_ON_REWARD = auto()
    POINTS_PURCHASED = auto()
    POINTS_PURCHASE_REVERSED = auto()
    POINTS_SPENT_ON_ORDER = auto()
    POINTS_REFUNDED = auto()
    POINTS_RETURNED = auto()
    POINTS_EXPIRED = auto()
    PENDING_POINTS_ADDED = auto()
    PENDING_POINTS_ACTIVATED = auto()
    PENDING_POINTS_CANCELED = auto()


class CardTransactionStatus(WireEnum):
    PENDING = auto()
    PROCESSING = auto()
    APPROVED = auto()
    REJECTED = auto()


class ActivationStatus(WireEnum):
    TRANSACTION_CREATED = auto()
    NO_ACTIVATION = auto()


class DiscountType(WireEnum):
    AMOUNT = auto()
    PERCENT = auto()
    FIXED = auto()
    UNIT = auto()
    """Also the wire type of the unit-multiple and shipping variants: a
    unit-multiple discount carries ``units``; shipping names the shipping product."""


class Junction(WireEnum):
    AND = auto()
    OR = auto()


class GrantType(StrEnum):
    CLIENT_CREDENTIALS = "client_credentials"


class Cluster(StrEnum):
    """Host prefixes of the ``/v1`` and ``/management`` APIs."""

    API = "api"
    US1_API = "us1.api"
    AS1_API = "as1.api"
    DOWNLOAD = "download"
    US1_DOWNLOAD = "us1.download"
    AS1_DOWNLOAD = "as1.download"


SCOPES: frozenset[str] = frozenset(
    """api assets async-actions campaigns categories client_api client_consents
    client_customers client_events client_promotions client_publish client_qualifications
    client_redeem client_redemptions client_validate client_validations client_vouchers
    consents customers events exports locations loyalties metadata-schemas orders
    product-collections products promotions publications qualifications redemptions
    referrals rewards segments skus task-results templates trash-bin
    validation-rules-assignments validation-rules validations vouchers""".split()  # noqa: SIM905
)
"""Every OAuth scope value the token endpoint accepts."""


# -- values nested inside resources --------------------------------------------------------
# Models wrap these in ``Open[...]``: a value the service adds later is kept as a plain string
# instead of failing.


class PeriodUnit(WireEnum):
    """Units of the period objects (expiration, grace periods, cooldowns)."""

    HOUR = auto()
    DAY = auto()
    WEEK = auto()
    MONTH = auto()
    YEAR = auto()


class RoundingType(WireEnum):
    """How a rolling points expiration date is rounded up."""

    END_OF_MONTH = auto()
    END_OF_QUARTER = auto()
    END_OF_HALF_YEAR = auto()
    END_OF_YEAR = auto()
    END_OF_PARTICULAR_MONTH = auto()


class RefundType(WireEnum):
    """Whether points (or a reward) can be refunded."""

    NONE = auto()
    REFUNDABLE = auto()


class PayWithPointsType(WireEnum):
    """Whether card points can pay for orders."""

    NO_PAYMENTS = auto()
    EXCHANGE_RATIO = auto()


class MaterialType(WireEnum):
    """What a material reward or benefit points at."""

    PRODUCT = auto()
    SKU = auto()


class RewardDigitalType(WireEnum):
    """Kinds of digital reward."""

    DISCOUNT_COUPONS = auto()
    GIFT_VOUCHERS = auto()
    LOYALTY_CARD_POINTS = auto()


class CalculationType(WireEnum):
    """What a proportional-points benefit is computed from."""

    PRE_DISCOUNT_ORDER_AMOUNT = auto()
    POST_DISCOUNT_ORDER_AMOUNT = auto()
    PRE_DISCOUNT_ORDER_ITEMS_AMOUNT = auto()
    POST_DISCOUNT_ORDER_ITEMS_AMOUNT = auto()
    ORDER_ITEMS_QUANTITY = auto()
    ORDER_METADATA_VALUE = auto()
    CUSTOMER_METADATA_VALUE = auto()
    CUSTOM_EVENT_METADATA_VALUE = auto()


class TierExpirationType(WireEnum):
    """How long a member keeps a tier."""

    NO_EXPIRATION = auto()
    NO_RETENTION = auto()
    SLIDING_EXPIRATION = auto()
    FIXED_DURATION = auto()
    CALENDAR_EXPIRATION = auto()


class DowngradeType(WireEnum):
    """How far a member drops when a tier lapses."""

    MULTI_LEVEL = auto()
    SINGLE_LEVEL = auto()
    NO_DOWNGRADE = auto()


class PointEarnedType(WireEnum):
    """When earned points count towards a tier."""

    IMMEDIATELY = auto()
    NEXT_TRACKING_PERIOD = auto()


class MemberRole(WireEnum):
    """A member's role on a card."""

    OWNER = auto()
    MEMBER = auto()


class OrderStatus(WireEnum):
    """Lifecycle of an order."""

    CREATED = auto()
    PAID = auto()
    CANCELED = auto()
    FULFILLED = auto()


class AmountEffect(WireEnum):
    """Where an amount discount lands."""

    APPLY_TO_ORDER = auto()
    APPLY_TO_ITEMS = auto()
    APPLY_TO_ITEMS_PROPORTIONALLY = auto()
    APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY = auto()
    APPLY_TO_ITEMS_BY_QUANTITY = auto()


class PercentEffect(WireEnum):
    """Where a percent or fixed discount lands."""

    APPLY_TO_ORDER = auto()
    APPLY_TO_ITEMS = auto()


FixedEffect = PercentEffect


class UnitEffect(WireEnum):
    """How a unit discount changes the order's items."""

    ADD_MISSING_ITEMS = auto()
    ADD_NEW_ITEMS = auto()
    ADD_MANY_ITEMS = auto()
    ADD_SAME_ITEMS = auto()


class ItemEffect(WireEnum):
    """Which matching items of an order a discount applies to."""

    APPLY_TO_EVERY = auto()
    APPLY_TO_CHEAPEST = auto()
    APPLY_TO_MOST_EXPENSIVE = auto()
