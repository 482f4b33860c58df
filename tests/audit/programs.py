"""Program files for the audit tests: a clean program, and variants that break one rule each."""

from __future__ import annotations

import copy
from typing import Any

CARD_DEFINITION = "lcdef_a0d17001"

NOW = "2026-01-15T12:00:00Z"
"""The demo's clock (the sandboxes' default, see tests/conftest.py)."""


def clean_program() -> dict[str, Any]:
    """A small, healthy program: every rule must stay silent on it."""
    limited = {"type": "LIMITED", "limits": [{"type": "BALANCE_BASED", "max": 50000}]}
    return copy.deepcopy(
        {
            "format": "lyt-program/1",
            "description": "a clean program: no audit rule applies",
            "card_definitions": [
                {
                    "id": CARD_DEFINITION,
                    "name": "Clean Points",
                    "status": "ACTIVE",
                    "pending_points": {
                        "type": "PERIOD_BASED",
                        "period_based": {"period": {"value": 7, "unit": "DAY"}},
                    },
                    "earning_limits": {"global": limited},
                    "balance_settings": {"allow_negative": False},
                    "created_at": "now-100d",
                }
            ],
            "tier_structures": [
                {
                    "id": "lts_a0d17001",
                    "name": "Clean Tiers",
                    "type": "POINT_BALANCE",
                    "status": "ACTIVE",
                    "point_balance": {"card_definition_id": CARD_DEFINITION},
                    "created_at": "now-90d",
                }
            ],
            "rewards": [
                _reward("lrew_a0d17001", "Free Coffee", validity={"type": "ANY_TIME"}),
                _reward(
                    "lrew_a0d17002",
                    "Morning Pastry",
                    validity={
                        "type": "DAILY",
                        "daily": [
                            {
                                "days_of_week": [1, 2, 3, 4, 5],
                                "start_time": "07:00",
                                "end_time": "11:00",
                            }
                        ],
                    },
                    start="now-10d",
                    end="now+30d",
                ),
            ],
            "benefits": [
                {
                    "id": "lben_a0d17001",
                    "name": "Welcome Points",
                    "type": "POINTS",
                    "status": "ACTIVE",
                    "points": {"value": 100, "card_definition_id": CARD_DEFINITION},
                    "stock": {"type": "LIMITED", "limited": {"quantity": 5}},
                    "created_at": "now-80d",
                }
            ],
            "programs": [
                {
                    "id": "lprg_a0d17001",
                    "name": "Clean Program",
                    "status": "ACTIVE",
                    "start_date": "now-200d",
                    "end_date": None,
                    "created_at": "now-200d",
                }
            ],
            "customers": [{"id": "cust_Clean01", "source_id": "clean-01", "name": "C. Lean"}],
            "members": [
                {
                    "id": "lmbr_a0d17001",
                    "program_id": "lprg_a0d17001",
                    "customer_id": "cust_Clean01",
                    "status": "ACTIVE",
                    "created_at": "now-150d",
                }
            ],
            "cards": [
                {
                    "id": "lcrd_a0d17001",
                    "member_id": "lmbr_a0d17001",
                    "program_id": "lprg_a0d17001",
                    "card_definition_id": CARD_DEFINITION,
                    "code": "CLEAN-0001",
                    "balance": {"points": 500, "pending_points": 120},
                    "created_at": "now-150d",
                }
            ],
            "pending_buckets": [
                {
                    "id": "lcppb_a0d17001",
                    "card_id": "lcrd_a0d17001",
                    "member_id": "lmbr_a0d17001",
                    "program_id": "lprg_a0d17001",
                    "card_definition_id": CARD_DEFINITION,
                    "points": {"total": 120},
                    "date": "now+3d",
                    "type": "PERIOD_BASED",
                    "status": "PENDING",
                    "created_at": "now-4d",
                }
            ],
        }
    )


def _reward(
    reward_id: str,
    name: str,
    *,
    validity: dict[str, Any],
    start: str | None = None,
    end: str | None = None,
) -> dict[str, Any]:
    return {
        "id": reward_id,
        "name": name,
        "type": "DIGITAL",
        "status": "ACTIVE",
        "digital": {
            "type": "LOYALTY_CARD_POINTS",
            "loyalty_card_points": {"points": 10, "card_definition_id": CARD_DEFINITION},
        },
        "validity_hours": validity,
        "costs": [
            {
                "id": "lrcst_" + reward_id.removeprefix("lrew_"),
                "spending": [{"points": 100, "card_definition_id": CARD_DEFINITION}],
            }
        ],
        "start_date": start,
        "end_date": end,
        "created_at": "now-60d",
    }


def stuck_buckets_program(members: int = 400, seed: int = 5) -> dict[str, Any]:
    """A generated program whose every third pending bucket is dated three days ago, so
    ``pending-bucket-not-activatable`` finds some members' buckets and not others'."""
    from lyt_toolkit.synthetic import generate_program

    program = generate_program(
        rewards=20, benefits=10, card_definitions=4, members=members, seed=seed
    )
    for i, bucket in enumerate(program["pending_buckets"]):
        if i % 3 == 0:
            bucket["date"] = "now-3d"
    return program
