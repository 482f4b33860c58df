"""Deprecated since 0.5.0, removed in 0.6.0: these enumerations live in
``lyt_toolkit.models.enums`` with every other one, and ``SHIPPING_PRODUCT_ID`` in
``lyt_toolkit.models.discounts``.

Importing this module warns; it re-exports what it held from the new homes.
"""

from .._deprecation import deprecation, warn
from .discounts import SHIPPING_PRODUCT_ID
from .enums import (
    AmountEffect,
    CalculationType,
    DowngradeType,
    FixedEffect,
    ItemEffect,
    MaterialType,
    MemberRole,
    OrderStatus,
    PayWithPointsType,
    PercentEffect,
    PeriodUnit,
    PointEarnedType,
    RefundType,
    RewardDigitalType,
    RoundingType,
    TierExpirationType,
    UnitEffect,
)

__all__ = [
    "SHIPPING_PRODUCT_ID",
    "AmountEffect",
    "CalculationType",
    "DowngradeType",
    "FixedEffect",
    "ItemEffect",
    "MaterialType",
    "MemberRole",
    "OrderStatus",
    "PayWithPointsType",
    "PercentEffect",
    "PeriodUnit",
    "PointEarnedType",
    "RefundType",
    "RewardDigitalType",
    "RoundingType",
    "TierExpirationType",
    "UnitEffect",
]

warn(deprecation("lyt_toolkit.models.subtypes"))
