"""A small program for the liability, schedule and history tests, and its hand-made values.

Three card definitions: "Beans" (rolling expiration, 12 months rounded to the end of the
quarter), "Stars" (calendar expiration on 30 June and 31 December) and "Spare" (no cards).
The tests compute every figure by hand from the dicts below.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pandas as pd

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox

BEANS, STARS, SPARE = "lcdef_b0e0000001", "lcdef_b0e0000002", "lcdef_b0e0000003"
PROGRAM = "lprg_b0e0000001"

NOW = "2026-01-15T12:00:00Z"
"""The sandboxes' clock (tests/conftest.py): relative dates below count from it."""


GIFT_CARD: dict[str, Any] = {
    "id": "lrew_b0e0000001",
    "name": "Beans Gift Card",
    "type": "DIGITAL",
    "status": "ACTIVE",
    "digital": {
        "type": "GIFT_VOUCHERS",
        "gift_vouchers": {"campaign_id": "camp_OwedGift01", "balance": 200},
    },
    "costs": [
        {
            "id": "lrcst_b0e0000001",
            "spending": [{"points": 400, "card_definition_id": BEANS}],
        }
    ],
    "created_at": "now-60d",
}
"""The one reward: 400 Beans points buy a 200 (minor units) voucher, 0.5 per point."""


def _definition(cid: str, name: str, expiration: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": cid,
        "name": name,
        "status": "ACTIVE",
        "points_expiration": expiration,
        "pending_points": {
            "type": "PERIOD_BASED",
            "period_based": {"period": {"value": 14, "unit": "DAY"}},
        },
        "created_at": "now-300d",
    }


def _member(n: int) -> dict[str, Any]:
    return {
        "id": f"lmbr_b0e000000{n}",
        "program_id": PROGRAM,
        "customer_id": f"cust_Owed0{n}",
        "status": "ACTIVE",
        "created_at": "now-200d",
    }


def card_of(n: int, member: int, definition: str, points: int, pending: int) -> dict[str, Any]:
    return {
        "id": f"lcrd_b0e000000{n}",
        "member_id": f"lmbr_b0e000000{member}",
        "program_id": PROGRAM,
        "card_definition_id": definition,
        "code": f"OWED-000{n}",
        "balance": {"points": points, "pending_points": pending},
        "created_at": "now-100d",
    }


def _bucket(n: int, card: int, definition: str, points: int, date: str, status: str) -> dict:
    return {
        "id": f"lcppb_b0e000000{n}",
        "card_id": f"lcrd_b0e000000{card}",
        "member_id": f"lmbr_b0e000000{card if card < 3 else 3}",
        "program_id": PROGRAM,
        "card_definition_id": definition,
        "points": {"total": points},
        "date": date,
        "type": "PERIOD_BASED",
        "status": status,
        "created_at": "now-5d",
    }


def owed_program() -> dict[str, Any]:
    """The program file (lyt-program/1), a fresh copy each call."""
    rolling = {
        "type": "ROLLING_EXPIRATION",
        "rolling_expiration": {
            "period": {"value": 12, "unit": "MONTH"},
            "rounding": {"type": "END_OF_QUARTER"},
        },
    }
    calendar = {
        "type": "CALENDAR_EXPIRATION",
        "calendar_expiration": {
            "expiration_dates": [{"day": 30, "month": 6}, {"day": 31, "month": 12}]
        },
    }
    return copy.deepcopy(
        {
            "format": "lyt-program/1",
            "description": "points owed on two card definitions, one without cards",
            "card_definitions": [
                _definition(BEANS, "Beans", rolling),
                _definition(STARS, "Stars", calendar),
                _definition(SPARE, "Spare", {"type": "NO_EXPIRATION"}),
            ],
            "programs": [
                {
                    "id": PROGRAM,
                    "name": "Owed Program",
                    "status": "ACTIVE",
                    "start_date": "now-300d",
                    "end_date": None,
                    "created_at": "now-300d",
                }
            ],
            "rewards": [GIFT_CARD],
            "campaigns": [{"id": "camp_OwedGift01", "name": "Owed Gift Cards"}],
            "customers": [
                {"id": f"cust_Owed0{n}", "source_id": f"owed-0{n}", "name": f"Owed {n}"}
                for n in (1, 2, 3)
            ],
            "members": [_member(n) for n in (1, 2, 3)],
            "cards": [
                card_of(1, 1, BEANS, 500, 120),
                card_of(2, 2, BEANS, 1200, 120),
                card_of(3, 3, STARS, 3000, 300),
                card_of(4, 1, STARS, 0, 0),
            ],
            "pending_buckets": [
                _bucket(1, 1, BEANS, 120, "now+3d", "PENDING"),  # 2026-01-18
                _bucket(2, 2, BEANS, 80, "now+20d", "PENDING"),  # 2026-02-04
                _bucket(3, 2, BEANS, 40, "now+40d", "PENDING"),  # 2026-02-24
                _bucket(4, 3, STARS, 300, "now+170d", "PENDING"),  # 2026-07-04
                _bucket(5, 1, BEANS, 999, "now-3d", "ACTIVATED"),  # not pending any more
            ],
        }
    )


def hand_values() -> pd.DataFrame:
    """Point values as ``point_values`` gives them: Beans and Stars known, Spare unknown."""
    return pd.DataFrame(
        {
            "card_definition_id": [BEANS, STARS, SPARE],
            "low": pd.array([0.5, 1.5, None], dtype="Float64"),
            "median": pd.array([1.0, 2.0, None], dtype="Float64"),
            "high": pd.array([2.0, 3.0, None], dtype="Float64"),
        }
    )


def cards_of(program: dict[str, Any], definition: str) -> list[dict[str, Any]]:
    return [c for c in program["cards"] if c["card_definition_id"] == definition]


def pending_of(program: dict[str, Any], definition: str) -> list[dict[str, Any]]:
    return [
        b
        for b in program["pending_buckets"]
        if b["card_definition_id"] == definition and b["status"] == "PENDING"
    ]


def pull_program(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    program: dict[str, Any],
) -> ProgramSnapshot:
    """``program`` served by a sandbox of its own at ``NOW``, pulled over HTTP."""
    with start_sandbox(program) as sb, make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)
