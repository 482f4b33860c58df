"""Programs with priced rewards for the economics rules and summary tests.

Built on the audit tests' clean program (tests/audit/programs.py): its one card definition
holds 500 points on one card and 120 in one PENDING bucket.
"""

from __future__ import annotations

from typing import Any

from audit.programs import CARD_DEFINITION


def gift_card(reward_id: str, balance: int, points: int, status: str = "ACTIVE") -> dict[str, Any]:
    """A gift-voucher reward: ``points`` of the clean card definition buy ``balance``."""
    return {
        "id": reward_id,
        "name": f"Gift {balance} for {points}",
        "type": "DIGITAL",
        "status": status,
        "digital": {
            "type": "GIFT_VOUCHERS",
            "gift_vouchers": {"campaign_id": "camp_Gift01", "balance": balance},
        },
        "validity_hours": {"type": "ANY_TIME"},
        "costs": [
            {
                "id": "lrcst_" + reward_id.removeprefix("lrew_"),
                "spending": [{"points": points, "card_definition_id": CARD_DEFINITION}],
            }
        ],
        "created_at": "now-30d",
    }


GIFT_CAMPAIGN = {
    "id": "camp_Gift01",
    "name": "Gift Cards",
    "type": "GIFT_VOUCHERS",
    "active": True,
    "start_date": "now-365d",
    "expiration_date": None,
    "categories": [],
}


def with_gift_cards(program: dict[str, Any], *cards: dict[str, Any]) -> dict[str, Any]:
    """``program`` whose rewards are these gift cards (and their campaign)."""
    program["rewards"] = list(cards)
    program["campaigns"] = [*program.get("campaigns", []), GIFT_CAMPAIGN]
    return program


def proportional(value: int, every: int = 100) -> dict[str, Any]:
    """An ACTIVE benefit crediting ``value`` points per ``every`` minor units of order amount."""
    return {
        "id": "lben_a0d17099",
        "name": "Points per spend",
        "type": "POINTS_PROPORTIONAL",
        "status": "ACTIVE",
        "stock": {"type": "UNLIMITED"},
        "points_proportional": {
            "calculation_type": "PRE_DISCOUNT_ORDER_AMOUNT",
            "card_definition_id": CARD_DEFINITION,
            "order": {"amount": {"every": every, "value": value}},
        },
        "created_at": "now-30d",
    }


def returning(clean: dict[str, Any], value: int) -> dict[str, Any]:
    """Point value 0.5 (three vouchers, 500 per 1000 points), ``value`` points per 100 spent."""
    with_gift_cards(clean, *(gift_card(f"lrew_0a{i}", 500, 1000) for i in range(1, 4)))
    clean["benefits"].append(proportional(value))
    return clean
