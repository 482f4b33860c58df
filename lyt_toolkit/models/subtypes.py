"""Enumerations of sub-object values, as the reference documents list them.

Resource-level enums live in :mod:`lyt_toolkit.models.enums`. These describe
values nested inside resources; models wrap them in ``Open[...]`` so a value
the service adds later is kept as a plain string instead of failing.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


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


SHIPPING_PRODUCT_ID: Final = "prod_5h1pp1ng"
"""The reserved product ID a shipping discount names as its ``unit_type``."""
