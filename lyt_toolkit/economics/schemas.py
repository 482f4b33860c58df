"""The declared schemas of the economics frames (``ECONOMICS_SCHEMAS``).

Money is in the service's minor units as it sends them; a value per point is in
minor units per point; a return is a share of spend (0.01 = 1 %). A figure the
data cannot give is NA, never 0 or inf.
"""

from __future__ import annotations

from enum import StrEnum, auto

from .._keyed import keyed
from ..frames.schema import (
    MINOR_UNITS,
    Column,
    Schema,
    enum,
    flag,
    integer,
    number,
    text,
    timestamp,
)
from ..models.enums import (
    BenefitStatus,
    BenefitType,
    CalculationType,
    CardDefinitionStatus,
    RewardDigitalType,
    RewardStatus,
    RewardType,
)

__all__ = [
    "BURN_VALUES",
    "DEFINITION_CHANGE",
    "EARN_RATES",
    "ECONOMICS_SCHEMAS",
    "EFFECTIVE_RETURN",
    "ESTIMATES",
    "EXPIRY_SCHEDULE",
    "HEADLINE_CHANGE",
    "LIABILITY",
    "MISPRICED",
    "MISPRICING_CHANGE",
    "OVER_TIME",
    "PENDING_SCHEDULE",
    "POINT_VALUES",
    "MispricingChange",
    "PointValueSource",
    "ValueSource",
]

PER_POINT = "minor units per point (the service's minor currency units, e.g. cents)"
"""The unit of every value per point."""


class ValueSource(StrEnum):
    """Where the value a reward's points buy comes from."""

    GIFT_VOUCHER_BALANCE = auto()
    CARD_POINTS = auto()
    PRICE = auto()


class PointValueSource(StrEnum):
    """Where a card definition's low / median / high value per point comes from."""

    OBSERVED = auto()
    OVERRIDE = auto()
    NONE = auto()


def _card_definition() -> tuple[Column, Column]:
    return (
        text("card_definition_id", "card definition ID"),
        text("card_definition_name", "card definition name (NA: not in the snapshot)"),
    )


EARN_RATES = Schema(
    "earn_rates",
    "One row per POINTS or POINTS_PROPORTIONAL benefit: the points it credits.",
    (
        text("benefit_id", "benefit ID"),
        text("benefit_name", "benefit name"),
        enum("benefit_status", BenefitStatus, "status of the benefit"),
        *_card_definition(),
        enum("type", BenefitType, "POINTS or POINTS_PROPORTIONAL"),
        enum("calculation_type", CalculationType, "POINTS_PROPORTIONAL: what points follow"),
        text("basis", "POINTS_PROPORTIONAL: the points_proportional group of the rate"),
        integer("every", "POINTS_PROPORTIONAL: units of the basis per award"),
        number("value", "POINTS_PROPORTIONAL: points per `every` units"),
        integer("points", "POINTS: fixed points credited"),
        number("points_per_unit", "POINTS_PROPORTIONAL: value / every (NA for POINTS)"),
        flag(
            "amount_based",
            f"the basis is an order or item amount {MINOR_UNITS}, so points_per_unit is "
            "points per minor unit of spend (NA: proportional without a rate)",
        ),
    ),
)

BURN_VALUES = Schema(
    "burn_values",
    "One row per reward cost spending entry: the points it charges and the value they buy.",
    (
        text("reward_id", "reward ID"),
        text("reward_name", "reward name"),
        enum("reward_status", RewardStatus, "status of the reward"),
        enum("reward_type", RewardType, "MATERIAL or DIGITAL"),
        enum("digital_type", RewardDigitalType, "DIGITAL rewards: kind of digital reward"),
        text("cost_id", "cost option ID"),
        integer("spending_index", "position of the spending entry within the cost"),
        *_card_definition(),
        integer("points", "points charged"),
        number(
            "value",
            "value the reward gives, in minor units (the service's minor currency units, "
            "e.g. cents; NA: unknown, see reason)",
        ),
        enum("value_source", ValueSource, "where value comes from"),
        number("value_per_point", f"value / points, {PER_POINT}"),
        text("reason", "why value or value_per_point is NA (NA when known)"),
    ),
)

POINT_VALUES = Schema(
    "point_values",
    "One row per card definition: what one of its points is worth when spent.",
    (
        *_card_definition(),
        enum("card_definition_status", CardDefinitionStatus, "status of the card definition"),
        integer(
            "observations",
            "values per point seen: ACTIVE rewards' burn values and the exchange ratio",
        ),
        number("low", f"lowest value per point, {PER_POINT}"),
        number("median", f"median value per point, {PER_POINT}"),
        number("high", f"highest value per point, {PER_POINT}"),
        number(
            "exchange_ratio",
            f"pay_with_points formula's value of one point, read as {PER_POINT} "
            "(NA: none or not of the form POINTS / n, POINTS * n, n * POINTS)",
        ),
        enum("source", PointValueSource, "observed, override (given by the user) or none"),
        text(
            "reason",
            "why low / median / high are NA ('no point value observed') or not what a point "
            "is worth ('rewards not pulled': the exchange ratio alone); NA when known",
        ),
    ),
)

EFFECTIVE_RETURN = Schema(
    "effective_return",
    "One row per card definition: the share of spend its points give back.",
    (
        *_card_definition(),
        number(
            "earn_points_per_unit",
            "median points per minor unit of spend over ACTIVE amount-based earning benefits",
        ),
        integer("benefits", "ACTIVE amount-based earning benefits counted"),
        number("return_low", "earn rate x low point value: share of spend (0.01 = 1 %)"),
        number("return_median", "earn rate x median point value: share of spend"),
        number("return_high", "earn rate x high point value: share of spend"),
        text(
            "reason",
            "why the returns are NA or not what the points give back ('no ACTIVE benefit "
            "earns points on spend', 'no point value observed', 'rewards not pulled'); NA "
            "when known",
        ),
    ),
)


LIABILITY = Schema(
    "liability",
    "One row per card definition: the points it owes and what they are worth.",
    (
        *_card_definition(),
        integer("outstanding_points", "sum of its cards' balance_points"),
        integer("pending_points", "sum of its PENDING buckets' points"),
        number("redemption_rate", "expected share of the points redeemed (1.0: all)"),
        *(
            number(
                f"value_{level}",
                f"(outstanding + pending) x {level} value per point x redemption rate, "
                f"{MINOR_UNITS}",
            )
            for level in ("low", "median", "high")
        ),
        number(
            "outstanding_value_median",
            f"outstanding x median point value x redemption rate, {MINOR_UNITS}",
        ),
        number(
            "pending_value_median",
            f"pending x median point value x redemption rate, {MINOR_UNITS}",
        ),
        text(
            "reason",
            "why the values are NA or not what the points are worth ('no point value "
            "observed', 'pending_buckets not pulled', 'rewards not pulled', 'a card balance "
            "unknown', 'a pending bucket's points unknown', 'no redemption rate'); NA when "
            "known",
        ),
    ),
)

PENDING_SCHEDULE = Schema(
    "pending_schedule",
    "One row per card definition x month: PENDING points arriving that month.",
    (
        *_card_definition(),
        timestamp("month", "first day of the activation month, 00:00 UTC"),
        integer("points", "points of the PENDING buckets activating that month"),
        integer("buckets", "PENDING buckets activating that month"),
        integer(
            "cannot_activate_points",
            "of points, those in buckets that can never activate (program or member not "
            "ACTIVE, date past, card definition missing or IMMEDIATE)",
        ),
        integer("cannot_activate_buckets", "of buckets, those that can never activate"),
    ),
)

EXPIRY_SCHEDULE = Schema(
    "expiry_schedule",
    "Estimate: one row per card definition x month x assumption: points that would expire.",
    (
        *_card_definition(),
        text("expiration_type", "ROLLING_EXPIRATION or CALENDAR_EXPIRATION"),
        timestamp("month", "first day of the expiry month, 00:00 UTC (NA: settings missing)"),
        integer("points", "points that would expire that month under the assumption"),
        text("assumption", "which points these are and the day they are assumed earned"),
    ),
)

OVER_TIME = Schema(
    "economics_over_time",
    "One row per stored snapshot x card definition holding cards or PENDING points.",
    (
        timestamp("pulled_at", "when the snapshot was pulled (UTC)"),
        *_card_definition(),
        integer("members", "distinct members holding a card of it"),
        integer("cards", "cards of it"),
        integer("outstanding_points", "sum of its cards' balance_points"),
        integer("pending_points", "sum of its PENDING buckets' points"),
        number(
            "liability_median",
            f"(outstanding + pending) x median point value x redemption rate, {MINOR_UNITS}",
        ),
    ),
)

MISPRICED = Schema(
    "mispriced",
    "One row per reward cost whose value per point is far from its card definition's median.",
    (
        text("reward_id", "reward ID (lrew_...)"),
        text("reward_name", "reward name"),
        text("reward_status", "reward status"),
        text("cost_id", "reward cost ID"),
        integer("spending_index", "position of the spending entry in the cost"),
        text("card_definition_id", "card definition the points are spent from"),
        text("card_definition_name", "card definition name (NA: not in the snapshot)"),
        integer("points", "points the cost asks"),
        number("value", "minor units the points buy"),
        number("value_per_point", "minor units per point this reward gives"),
        number("median_value_per_point", "minor units per point: the card definition's median"),
        number("ratio", "value_per_point / median_value_per_point"),
    ),
)


ECONOMICS_SCHEMAS: dict[str, Schema] = keyed(
    "kind",
    EARN_RATES,
    BURN_VALUES,
    POINT_VALUES,
    EFFECTIVE_RETURN,
    LIABILITY,
    PENDING_SCHEDULE,
    EXPIRY_SCHEDULE,
    OVER_TIME,
    MISPRICED,
)
"""Frame name -> schema of every economics frame."""


ESTIMATES = Schema(
    "estimates",
    "Sampled snapshots only: one row per total estimated from the sample, with its 95 % "
    "interval (totals: the program's, per card definition, per activation month).",
    (
        text(
            "figure",
            "outstanding_points, pending_points, liability_low, liability_median, "
            "liability_high (as in liability) or pending_schedule_points (as in "
            "pending_schedule)",
        ),
        text("card_definition_id", "card definition ID (NA: every card definition together)"),
        text(
            "card_definition_name", "card definition name (NA: every one, or not in the snapshot)"
        ),
        timestamp("month", "pending_schedule_points: first day of the activation month (else NA)"),
        number("estimate", f"the estimated total: points, or liability {MINOR_UNITS}"),
        number(
            "ci_low",
            "low end of the 95 % confidence interval, corrected for skew: estimate - 1.96 se"
            " only when the figure has none (frames.sample)",
        ),
        number(
            "ci_high",
            "high end of the 95 % confidence interval, corrected for skew: further from the"
            " estimate than 1.96 se when a few members hold much (frames.sample)",
        ),
        number("se", "standard error of the estimate (0: exact, every member read)"),
    ),
)
"""The ``estimates`` frame of a sampled snapshot's economics (not in ``ECONOMICS_SCHEMAS``,
whose frames every snapshot has)."""


HEADLINE_CHANGE = Schema(
    "headline_change",
    "One row per headline figure of a what-if: before the edit, after it, and the change.",
    (
        text("figure", "the headline figure (as Economics.headline names it)"),
        number("before", "the figure before the edit (money in minor units)"),
        number("after", "the figure after the edit"),
        number("change", "after - before"),
        number("before_ci_low", "sampled: low end of the 95 % interval before (else NA)"),
        number("before_ci_high", "sampled: high end of the 95 % interval before"),
        number("after_ci_low", "sampled: low end of the 95 % interval after"),
        number("after_ci_high", "sampled: high end of the 95 % interval after"),
        number(
            "change_ci_low",
            "sampled: low end of the change's 95 % interval, from the same members' own "
            "changes (paired: narrower than either side's)",
        ),
        number("change_ci_high", "sampled: high end of the change's 95 % interval"),
    ),
)
"""The headline of a what-if (``EconomicsChange.headline``)."""

DEFINITION_MEASURES = (
    ("earn_points_per_unit", "points per minor unit of spend (the effective return's earn rate)"),
    ("value_low", f"low value per point, {PER_POINT}"),
    ("value_median", f"median value per point, {PER_POINT}"),
    ("value_high", f"high value per point, {PER_POINT}"),
    ("return_median", "effective return at the median value: share of spend"),
    ("liability_median", f"liability at the median value, {MINOR_UNITS}"),
)
"""The measures of ``DEFINITION_CHANGE``: each has a ``_before``, ``_after`` and
``_change`` column."""

DEFINITION_CHANGE = Schema(
    "definition_change",
    "One row per card definition of a what-if: its economics before and after the edit.",
    (
        *_card_definition(),
        *(
            number(
                f"{measure}_{side}",
                f"{doc}, {side} the edit" if side != "change" else f"{doc}: after - before",
            )
            for measure, doc in DEFINITION_MEASURES
            for side in ("before", "after", "change")
        ),
        text(
            "reason",
            "why measures are NA or not what they say ('no point value observed', 'rewards "
            "not pulled', ...: the point values', liability's and return's reason), the "
            "side named when the two differ ('before: no point value observed'); NA: none",
        ),
    ),
)
"""Per card definition of a what-if (``EconomicsChange.card_definitions``)."""


class MispricingChange(StrEnum):
    """How a reward cost's mispricing changes in a what-if."""

    APPEARED = auto()
    RESOLVED = auto()
    CHANGED = auto()


MISPRICING_CHANGE = Schema(
    "mispricing_change",
    "One row per reward cost spending entry whose mispricing a what-if changes.",
    (
        enum(
            "change",
            MispricingChange,
            "appeared, resolved or changed (mispriced on both sides, its ratio moved)",
        ),
        text("reward_id", "reward ID"),
        text("reward_name", "reward name"),
        text("cost_id", "reward cost ID"),
        integer("spending_index", "position of the spending entry in the cost"),
        *_card_definition(),
        integer("points_before", "points the cost asks, before"),
        integer("points_after", "points the cost asks, after"),
        number("value_per_point_before", f"value the points buy per point before, {PER_POINT}"),
        number("value_per_point_after", f"value per point after, {PER_POINT}"),
        number("median_before", "the card definition's median value per point, before"),
        number("median_after", "the card definition's median value per point, after"),
        number("ratio_before", "value_per_point / median, before"),
        number("ratio_after", "value_per_point / median, after"),
    ),
)
"""Reward costs whose mispricing a what-if changes (``EconomicsChange.mispricing``)."""
