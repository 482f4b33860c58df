"""Every enumeration of the service interface, declared once: the resources' own, then the
values nested inside them.

The sandbox, the client, the frames and the widgets import these instead of
spelling the values again. Members are ``str`` enums so they compare equal to
the raw JSON values.
"""

from __future__ import annotations

from enum import StrEnum

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
]


class CardDefinitionType(StrEnum):
    INDIVIDUAL = "INDIVIDUAL"


class CardDefinitionStatus(StrEnum):
    DRAFT = "DRAFT"
    ACTIVE = "ACTIVE"
    DELETED = "DELETED"


class TierStructureType(StrEnum):
    POINT_BALANCE = "POINT_BALANCE"
    POINT_EARNED = "POINT_EARNED"


class TierStructureStatus(StrEnum):
    DRAFT = "DRAFT"
    ACTIVE = "ACTIVE"
    INACTIVE = "INACTIVE"
    DELETED = "DELETED"


class RewardType(StrEnum):
    MATERIAL = "MATERIAL"
    DIGITAL = "DIGITAL"


class RewardStatus(StrEnum):
    ACTIVE = "ACTIVE"
    DRAFT = "DRAFT"
    INACTIVE = "INACTIVE"
    DELETED = "DELETED"


class ValidityHoursType(StrEnum):
    ANY_TIME = "ANY_TIME"
    DAILY = "DAILY"


class BenefitType(StrEnum):
    POINTS = "POINTS"
    POINTS_PROPORTIONAL = "POINTS_PROPORTIONAL"
    MATERIAL = "MATERIAL"
    DIGITAL = "DIGITAL"


class BenefitStatus(StrEnum):
    DRAFT = "DRAFT"
    ACTIVE = "ACTIVE"
    DELETED = "DELETED"


class BenefitCreateStatus(StrEnum):
    """Statuses a benefit may be created with."""

    DRAFT = "DRAFT"
    ACTIVE = "ACTIVE"


class StockType(StrEnum):
    UNLIMITED = "UNLIMITED"
    LIMITED = "LIMITED"


class DigitalBenefitType(StrEnum):
    GIFT_VOUCHERS = "GIFT_VOUCHERS"
    DISCOUNT_COUPONS = "DISCOUNT_COUPONS"


class CampaignType(StrEnum):
    """Campaign kinds the sandbox knows; digital benefits must match them."""

    DISCOUNT_COUPONS = "DISCOUNT_COUPONS"
    GIFT_VOUCHERS = "GIFT_VOUCHERS"
    PROMOTION = "PROMOTION"


class ProgramStatus(StrEnum):
    ACTIVE = "ACTIVE"
    INACTIVE = "INACTIVE"
    DRAFT = "DRAFT"
    DELETED = "DELETED"


class MemberStatus(StrEnum):
    ACTIVE = "ACTIVE"
    INACTIVE = "INACTIVE"
    DELETED = "DELETED"


class PendingBucketStatus(StrEnum):
    PENDING = "PENDING"
    ACTIVATED = "ACTIVATED"
    CANCELED = "CANCELED"
    DELETED = "DELETED"


class PendingPointsType(StrEnum):
    IMMEDIATE = "IMMEDIATE"
    PERIOD_BASED = "PERIOD_BASED"
    FIXED_DATES = "FIXED_DATES"
    EVENT_BASED = "EVENT_BASED"


class PointsExpirationType(StrEnum):
    NO_EXPIRATION = "NO_EXPIRATION"
    ROLLING_EXPIRATION = "ROLLING_EXPIRATION"
    CALENDAR_EXPIRATION = "CALENDAR_EXPIRATION"
    SLIDING_EXPIRATION = "SLIDING_EXPIRATION"


class LimitsType(StrEnum):
    NO_LIMIT = "NO_LIMIT"
    LIMITED = "LIMITED"


class CardTransactionType(StrEnum):
    ADMIN_CREDIT = "ADMIN_CREDIT"
    ADMIN_DEBIT = "ADMIN_DEBIT"
    ADMIN_POINTS_EXPIRATION = "ADMIN_POINTS_EXPIRATION"
    POINTS_EARNED = "POINTS_EARNED"
    POINTS_SPENT_ON_REWARD = "POINTS_SPENT_ON_REWARD"
    POINTS_PURCHASED = "POINTS_PURCHASED"
    POINTS_PURCHASE_REVERSED = "POINTS_PURCHASE_REVERSED"
    POINTS_SPENT_ON_ORDER = "POINTS_SPENT_ON_ORDER"
    POINTS_REFUNDED = "POINTS_REFUNDED"
    POINTS_RETURNED = "POINTS_RETURNED"
    POINTS_EXPIRED = "POINTS_EXPIRED"
    PENDING_POINTS_ADDED = "PENDING_POINTS_ADDED"
    PENDING_POINTS_ACTIVATED = "PENDING_POINTS_ACTIVATED"
    PENDING_POINTS_CANCELED = "PENDING_POINTS_CANCELED"


class CardTransactionStatus(StrEnum):
    PENDING = "PENDING"
    PROCESSING = "PROCESSING"
    APPROVED = "APPROVED"
    REJECTED = "REJECTED"


class ActivationStatus(StrEnum):
    TRANSACTION_CREATED = "TRANSACTION_CREATED"
    NO_ACTIVATION = "NO_ACTIVATION"


class DiscountType(StrEnum):
    AMOUNT = "AMOUNT"
    PERCENT = "PERCENT"
    FIXED = "FIXED"
    UNIT = "UNIT"
    """Also the wire type of the unit-multiple and shipping variants: a
    unit-multiple discount carries ``units``; shipping names the shipping product."""


class Junction(StrEnum):
    AND = "AND"
    OR = "OR"


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


class PeriodUnit(StrEnum):
    """Units of the period objects (expiration, grace periods, cooldowns)."""

    HOUR = "HOUR"
    DAY = "DAY"
    WEEK = "WEEK"
    MONTH = "MONTH"
    YEAR = "YEAR"


class RoundingType(StrEnum):
    """How a rolling points expiration date is rounded up."""

    END_OF_MONTH = "END_OF_MONTH"
    END_OF_QUARTER = "END_OF_QUARTER"
    END_OF_HALF_YEAR = "END_OF_HALF_YEAR"
    END_OF_YEAR = "END_OF_YEAR"
    END_OF_PARTICULAR_MONTH = "END_OF_PARTICULAR_MONTH"


class RefundType(StrEnum):
    """Whether points (or a reward) can be refunded."""

    NONE = "NONE"
    REFUNDABLE = "REFUNDABLE"


class PayWithPointsType(StrEnum):
    """Whether card points can pay for orders."""

    NO_PAYMENTS = "NO_PAYMENTS"
    EXCHANGE_RATIO = "EXCHANGE_RATIO"


class MaterialType(StrEnum):
    """What a material reward or benefit points at."""

    PRODUCT = "PRODUCT"
    SKU = "SKU"


class RewardDigitalType(StrEnum):
    """Kinds of digital reward."""

    DISCOUNT_COUPONS = "DISCOUNT_COUPONS"
    GIFT_VOUCHERS = "GIFT_VOUCHERS"
    LOYALTY_CARD_POINTS = "LOYALTY_CARD_POINTS"


class CalculationType(StrEnum):
    """What a proportional-points benefit is computed from."""

    PRE_DISCOUNT_ORDER_AMOUNT = "PRE_DISCOUNT_ORDER_AMOUNT"
    POST_DISCOUNT_ORDER_AMOUNT = "POST_DISCOUNT_ORDER_AMOUNT"
    PRE_DISCOUNT_ORDER_ITEMS_AMOUNT = "PRE_DISCOUNT_ORDER_ITEMS_AMOUNT"
    POST_DISCOUNT_ORDER_ITEMS_AMOUNT = "POST_DISCOUNT_ORDER_ITEMS_AMOUNT"
    ORDER_ITEMS_QUANTITY = "ORDER_ITEMS_QUANTITY"
    ORDER_METADATA_VALUE = "ORDER_METADATA_VALUE"
    CUSTOMER_METADATA_VALUE = "CUSTOMER_METADATA_VALUE"
    CUSTOM_EVENT_METADATA_VALUE = "CUSTOM_EVENT_METADATA_VALUE"


class TierExpirationType(StrEnum):
    """How long a member keeps a tier."""

    NO_EXPIRATION = "NO_EXPIRATION"
    NO_RETENTION = "NO_RETENTION"
    SLIDING_EXPIRATION = "SLIDING_EXPIRATION"
    FIXED_DURATION = "FIXED_DURATION"
    CALENDAR_EXPIRATION = "CALENDAR_EXPIRATION"


class DowngradeType(StrEnum):
    """How far a member drops when a tier lapses."""

    MULTI_LEVEL = "MULTI_LEVEL"
    SINGLE_LEVEL = "SINGLE_LEVEL"
    NO_DOWNGRADE = "NO_DOWNGRADE"


class PointEarnedType(StrEnum):
    """When earned points count towards a tier."""

    IMMEDIATELY = "IMMEDIATELY"
    NEXT_TRACKING_PERIOD = "NEXT_TRACKING_PERIOD"


class MemberRole(StrEnum):
    """A member's role on a card."""

    OWNER = "OWNER"
    MEMBER = "MEMBER"


class OrderStatus(StrEnum):
    """Lifecycle of an order."""

    CREATED = "CREATED"
    PAID = "PAID"
    CANCELED = "CANCELED"
    FULFILLED = "FULFILLED"


class AmountEffect(StrEnum):
    """Where an amount discount lands."""

    APPLY_TO_ORDER = "APPLY_TO_ORDER"
    APPLY_TO_ITEMS = "APPLY_TO_ITEMS"
    APPLY_TO_ITEMS_PROPORTIONALLY = "APPLY_TO_ITEMS_PROPORTIONALLY"
    APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY = "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY"
    APPLY_TO_ITEMS_BY_QUANTITY = "APPLY_TO_ITEMS_BY_QUANTITY"


class PercentEffect(StrEnum):
    """Where a percent or fixed discount lands."""

    APPLY_TO_ORDER = "APPLY_TO_ORDER"
    APPLY_TO_ITEMS = "APPLY_TO_ITEMS"


FixedEffect = PercentEffect


class UnitEffect(StrEnum):
    """How a unit discount changes the order's items."""

    ADD_MISSING_ITEMS = "ADD_MISSING_ITEMS"
    ADD_NEW_ITEMS = "ADD_NEW_ITEMS"
    ADD_MANY_ITEMS = "ADD_MANY_ITEMS"
    ADD_SAME_ITEMS = "ADD_SAME_ITEMS"


class ItemEffect(StrEnum):
    """Which matching items of an order a discount applies to."""

    APPLY_TO_EVERY = "APPLY_TO_EVERY"
    APPLY_TO_CHEAPEST = "APPLY_TO_CHEAPEST"
    APPLY_TO_MOST_EXPENSIVE = "APPLY_TO_MOST_EXPENSIVE"
