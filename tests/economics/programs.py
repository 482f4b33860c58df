"""A small program for the economics tests: three card definitions, their earning
benefits and rewards whose values per point are easy to compute by hand.

Stars (``STARS``) earn 2 per 100 of order amount and 3 per 100 of order total, and
pay with points at ``POINTS / 50``; Gems (``GEMS``) earn 1 per 200 of item subtotal;
Miles (``MILES``) only a fixed 100 points and nothing values them.
"""

from __future__ import annotations

import copy
from typing import Any

STARS, MILES, GEMS = "lcdef_e0000001", "lcdef_e0000002", "lcdef_e0000003"
AT = "2026-01-01T00:00:00.000Z"
NOW = "2026-01-15T12:00:00Z"

Record = dict[str, Any]


def card_definition(id: str, name: str, **settings: Any) -> Record:
    return {"id": id, "name": name, "status": "ACTIVE", "created_at": AT, **settings}


def proportional(id: str, name: str, card: str, group: str, rate: Record, **kw: Any) -> Record:
    """A POINTS_PROPORTIONAL benefit whose rate is ``rate`` in ``group`` (``order.amount``)."""
    outer, inner = group.split(".")
    calculation = {
        "order.amount": "PRE_DISCOUNT_ORDER_AMOUNT",
        "order.total_amount": "POST_DISCOUNT_ORDER_AMOUNT",
        "customer.metadata": "CUSTOMER_METADATA_VALUE",
        "order_items.subtotal_amount": "POST_DISCOUNT_ORDER_ITEMS_AMOUNT",
    }[group]
    body = {"calculation_type": calculation, "card_definition_id": card, outer: {inner: rate}}
    return {
        "id": id,
        "name": name,
        "type": "POINTS_PROPORTIONAL",
        "status": kw.get("status", "ACTIVE"),
        "points_proportional": body,
        "created_at": AT,
    }


def reward(id: str, name: str, costs: list[tuple[int, str]], **kind: Any) -> Record:
    """A reward with one cost option per (points, card definition); ``kind`` gives its
    ``type`` and ``material`` or ``digital`` object (and ``status``)."""
    return {
        "id": id,
        "name": name,
        "status": kind.pop("status", "ACTIVE"),
        **kind,
        "costs": [
            {
                "id": f"lrcst_{id[5:]}{i}",
                "spending": [{"points": points, "card_definition_id": card}],
            }
            for i, (points, card) in enumerate(costs)
        ],
        "created_at": AT,
    }


def gift(balance: int) -> Record:
    return {"type": "DIGITAL", "digital": {"type": "GIFT_VOUCHERS",
            "gift_vouchers": {"campaign_id": "camp_e0gift", "balance": balance}}}  # fmt: skip


def card_points(points: int, card: str) -> Record:
    return {"type": "DIGITAL", "digital": {"type": "LOYALTY_CARD_POINTS",
            "loyalty_card_points": {"points": points, "card_definition_id": card}}}  # fmt: skip


def economics_program() -> dict[str, Any]:
    """The program as a ``lyt-program/1`` file with absolute times."""
    return copy.deepcopy(
        {
            "format": "lyt-program/1",
            "description": "economics tests: values per point computed by hand",
            "now": NOW,
            "card_definitions": [
                card_definition(
                    STARS,
                    "Stars",
                    pay_with_points={
                        "type": "EXCHANGE_RATIO",
                        "exchange_ratio": {"formula": "POINTS / 50"},
                    },
                    points_expiration={
                        "type": "ROLLING_EXPIRATION",
                        "rolling_expiration": {
                            "period": {"value": 365, "unit": "DAY"},
                            "rounding": {"type": "END_OF_MONTH"},
                        },
                    },
                ),
                card_definition(
                    MILES,
                    "Miles",
                    points_expiration={
                        "type": "CALENDAR_EXPIRATION",
                        "calendar_expiration": {"expiration_dates": [{"day": 31, "month": 12}]},
                    },
                ),
                card_definition(GEMS, "Gems"),
            ],
            "benefits": [
                proportional(
                    "lben_e001",
                    "2 Stars per 100",
                    STARS,
                    "order.amount",
                    {"every": 100, "value": 2},
                ),
                proportional(
                    "lben_e002",
                    "3 Stars per 100 total",
                    STARS,
                    "order.total_amount",
                    {"every": 100, "value": 3},
                ),
                proportional(
                    "lben_e003",
                    "Draft 5 Stars per 10",
                    STARS,
                    "order.amount",
                    {"every": 10, "value": 5},
                    status="DRAFT",
                ),
                proportional(
                    "lben_e004",
                    "10 Stars per visit",
                    STARS,
                    "customer.metadata",
                    {"every": 1, "value": 10, "property": "visits"},
                ),
                proportional(
                    "lben_e005",
                    "1 Gem per 200 of items",
                    GEMS,
                    "order_items.subtotal_amount",
                    {"every": 200, "value": 1},
                ),
                {
                    "id": "lben_e006",
                    "name": "100 Miles",
                    "type": "POINTS",
                    "status": "ACTIVE",
                    "points": {"value": 100, "card_definition_id": MILES},
                    "created_at": AT,
                },
            ],
            "rewards": [
                reward("lrew_e001", "$5 Voucher", [(400, STARS)], **gift(500)),
                reward("lrew_e002", "$10 Voucher", [(1000, STARS), (250, GEMS)], **gift(1000)),
                reward(
                    "lrew_e003",
                    "Mug",
                    [(300, STARS)],
                    type="MATERIAL",
                    material={"type": "PRODUCT", "product": {"id": "prod_e0mug"}},
                ),
                reward(
                    "lrew_e004",
                    "Coupon",
                    [(200, STARS)],
                    type="DIGITAL",
                    digital={
                        "type": "DISCOUNT_COUPONS",
                        "discount_coupons": {"campaign_id": "camp_e0coupon"},
                    },
                ),
                reward("lrew_e005", "Gems to Stars", [(100, GEMS)], **card_points(80, STARS)),
                reward("lrew_e006", "Stars to Miles", [(100, STARS)], **card_points(10, MILES)),
                reward(
                    "lrew_e007", "Old $20 Voucher", [(100, STARS)], status="INACTIVE", **gift(2000)
                ),
            ],
            "products": [{"id": "prod_e0mug", "name": "Mug", "price": 450}],
            "campaigns": [
                {"id": "camp_e0gift", "name": "Gift cards", "type": "GIFT_VOUCHERS"},
                {"id": "camp_e0coupon", "name": "Coupons", "type": "DISCOUNT_COUPONS"},
            ],
        }
    )


# The same program with members holding cards, for the what-if tests: two members hold 1,000
# and 500 Stars and 200 Gems. Before any edit, Stars' ACTIVE values per point are 0.02 (the
# ratio), 1.25 ($5 Voucher) and 1.0 ($10 Voucher): median 1.0; Gems' are 4.0 and 0.8 (Gems
# to Stars, 80 Stars at 1.0 for 100): median 2.4.

PROGRAM = "lprg_e0000001"


def _card(n: int, member: str, definition: str, points: int) -> dict[str, Any]:
    return {
        "id": f"lcrd_e000000{n}",
        "member_id": member,
        "program_id": PROGRAM,
        "card_definition_id": definition,
        "card_type": "INDIVIDUAL",
        "code": f"E-{n}",
        "member_role": "OWNER",
        "balance": {"points": points, "pending_points": 0},
        "created_at": AT,
    }


def what_if_program() -> dict[str, Any]:
    """``economics_program`` with a program, two members and three cards."""
    program = economics_program()
    program["programs"] = [
        {"id": PROGRAM, "name": "Stars and Gems", "status": "ACTIVE", "created_at": AT}
    ]
    program["customers"] = [
        {"id": f"cust_e000{n}", "source_id": f"e-{n}", "name": f"Customer {n}"} for n in (1, 2)
    ]
    program["members"] = [
        {
            "id": f"lmbr_e000000{n}",
            "customer_id": f"cust_e000{n}",
            "program_id": PROGRAM,
            "status": "ACTIVE",
            "created_at": AT,
        }
        for n in (1, 2)
    ]
    program["cards"] = [
        _card(1, "lmbr_e0000001", STARS, 1000),
        _card(2, "lmbr_e0000002", STARS, 500),
        _card(3, "lmbr_e0000002", GEMS, 200),
    ]
    return program


def unvalued_program() -> dict[str, Any]:
    """``what_if_program`` with no value per point to observe: Stars pay with no exchange
    ratio and every reward is INACTIVE (the vouchers still value their own points, which
    no median counts), so nothing values the 1,500 Stars and 200 Gems owed."""
    program = what_if_program()
    for definition in program["card_definitions"]:
        definition.pop("pay_with_points", None)
    for reward in program["rewards"]:
        reward["status"] = "INACTIVE"
    return program
