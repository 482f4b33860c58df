"""Declared schemas of the economics frames; ``ECONOMICS_SCHEMAS`` maps frame name -> schema.

Money is in the service's minor units (e.g. cents) as it sends them; values per point are
minor units per point. A figure that cannot be known is NA, never 0 or infinity.
"""

from __future__ import annotations

from ..frames.schema import Schema, integer, number, text, timestamp

__all__ = [
    "ECONOMICS_SCHEMAS",
    "EXPIRY_SCHEDULE",
    "LIABILITY",
    "OVER_TIME",
    "PENDING_SCHEDULE",
]

_DEFINITION = (
    text("card_definition_id", "card definition ID (lcdef_...)"),
    text("card_definition_name", "card definition name (NA: not in the snapshot)"),
)

LIABILITY = Schema(
    "liability",
    "One row per card definition: the points it owes and what they are worth.",
    (
        *_DEFINITION,
        integer("outstanding_points", "sum of its cards' balance_points"),
        integer("pending_points", "sum of its PENDING buckets' points"),
        number("redemption_rate", "expected share of the points redeemed (1.0: all)"),
        number(
            "value_low",
            "minor units: (outstanding + pending) x low point value x redemption rate",
        ),
        number(
            "value_median",
            "minor units: (outstanding + pending) x median point value x redemption rate",
        ),
        number(
            "value_high",
            "minor units: (outstanding + pending) x high point value x redemption rate",
        ),
        number(
            "outstanding_value_median",
            "minor units: outstanding x median point value x redemption rate",
        ),
        number(
            "pending_value_median", "minor units: pending x median point value x redemption rate"
        ),
    ),
)

PENDING_SCHEDULE = Schema(
    "pending_schedule",
    "One row per card definition x month: PENDING points arriving that month.",
    (
        *_DEFINITION,
        timestamp("month", "first day of the activation month, 00:00 UTC"),
        integer("points", "points of the PENDING buckets activating that month"),
        integer("buckets", "PENDING buckets activating that month"),
    ),
)

EXPIRY_SCHEDULE = Schema(
    "expiry_schedule",
    "Estimate: one row per card definition x month x assumption: points that would expire.",
    (
        *_DEFINITION,
        text("expiration_type", "ROLLING_EXPIRATION or CALENDAR_EXPIRATION"),
        timestamp("month", "first day of the expiry month, 00:00 UTC"),
        integer("points", "points that would expire that month under the assumption"),
        text("assumption", "which points these are and the date they are assumed earned"),
    ),
)

OVER_TIME = Schema(
    "economics_over_time",
    "One row per stored snapshot x card definition holding cards.",
    (
        timestamp("pulled_at", "when the snapshot was pulled (UTC)"),
        *_DEFINITION,
        integer("members", "distinct members holding a card of it"),
        integer("cards", "cards of it"),
        integer("outstanding_points", "sum of its cards' balance_points"),
        integer("pending_points", "sum of its PENDING buckets' points"),
        number(
            "liability_median",
            "minor units: (outstanding + pending) x median point value x redemption rate",
        ),
    ),
)

ECONOMICS_SCHEMAS: dict[str, Schema] = {
    s.kind: s for s in (LIABILITY, PENDING_SCHEDULE, EXPIRY_SCHEDULE, OVER_TIME)
}
"""Frame name -> schema of every economics frame."""
