"""Card definitions, tier structures, rewards and benefits of a synthetic program."""

from __future__ import annotations

import random
from typing import Any

from lyt_toolkit.models.enums import (
    BenefitStatus,
    BenefitType,
    CardDefinitionStatus,
    RewardStatus,
    RewardType,
    TierStructureStatus,
    TierStructureType,
)
from lyt_toolkit.models.ids import IdPrefix

from .catalog import digital, sku_material
from .rows import created_times, distinct_names, pick, row_id
from .words import BENEFIT_WORDS, REWARD_WORDS


def card_definition_rows(count: int, seed: int, rng: random.Random) -> list[dict[str, Any]]:
    pending = ("PERIOD_BASED", "FIXED_DATES", "IMMEDIATE")
    rows = []
    for n, created in enumerate(created_times(count, rng), start=1):
        # the first two are always ACTIVE so every reference below has a target
        status = (
            CardDefinitionStatus.ACTIVE
            if n <= 2
            else pick(
                rng,
                {
                    CardDefinitionStatus.ACTIVE: 6,
                    CardDefinitionStatus.DRAFT: 2,
                    CardDefinitionStatus.DELETED: 1,
                },
                1,
            )[0]
        )
        kind = "PERIOD_BASED" if n == 1 else pending[rng.randrange(len(pending))]
        pending_points: dict[str, Any] = {"type": kind}
        if kind == "PERIOD_BASED":
            pending_points["period_based"] = {
                "period": {"value": rng.choice((7, 14, 30)), "unit": "DAY"}
            }
        elif kind == "FIXED_DATES":
            pending_points["fixed_dates"] = {
                "dates": [{"day": 1, "month": 1}, {"day": 1, "month": 7}]
            }
        limited = rng.random() < 0.7
        rows.append(
            {
                "id": row_id(IdPrefix.CARD_DEFINITION, seed, n),
                "name": f"Synthetic Card {n:04d}",
                "type": "INDIVIDUAL",
                "status": str(status),
                "pending_points": pending_points,
                "points_expiration": {
                    "type": "ROLLING_EXPIRATION",
                    "rolling_expiration": {
                        "period": {"value": rng.choice((90, 180, 365)), "unit": "DAY"}
                    },
                }
                if rng.random() < 0.5
                else {"type": "NO_EXPIRATION"},
                "earning_limits": {
                    "global": {
                        "type": "LIMITED",
                        "limits": [{"type": "BALANCE_BASED", "max": 100000}],
                    }
                    if limited
                    else {"type": "NO_LIMIT", "limits": []},
                    "transactions": {"type": "NO_LIMIT", "limits": []},
                },
                "balance_settings": {"allow_negative": False},
                "metadata": {"synthetic": True},
                "created_at": created,
                "updated_at": None,
            }
        )
    return rows


def tier_structure_rows(
    count: int, seed: int, rng: random.Random, cds: list[str]
) -> list[dict[str, Any]]:
    rows = []
    for n, created in enumerate(created_times(count, rng), start=1):
        kind = TierStructureType.POINT_BALANCE if n % 2 else TierStructureType.POINT_EARNED
        row: dict[str, Any] = {
            "id": row_id(IdPrefix.TIER_STRUCTURE, seed, n),
            "name": f"Synthetic Tiers {n:04d}",
            "type": str(kind),
            "status": pick(
                rng,
                {
                    TierStructureStatus.ACTIVE: 5,
                    TierStructureStatus.DRAFT: 2,
                    TierStructureStatus.INACTIVE: 1,
                },
                1,
            )[0],
            "expiration": {"type": "NO_EXPIRATION"},
            "downgrade": {"type": "MULTI_LEVEL"},
            "metadata": {},
            "created_at": created,
            "updated_at": None,
        }
        cd = rng.choice(cds)
        if kind == TierStructureType.POINT_BALANCE:
            row["point_balance"] = {"card_definition_id": cd}
        else:
            row["point_earned"] = {
                "card_definition_id": cd,
                "period": {"value": 1, "unit": "YEAR"},
                "type": "IMMEDIATELY",
            }
        rows.append(row)
    return rows


def reward_rows(
    count: int,
    seed: int,
    rng: random.Random,
    cds: list[str],
    catalog: dict[str, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    names = distinct_names(REWARD_WORDS, count, rng)
    statuses = pick(
        rng,
        {
            RewardStatus.ACTIVE: 12,
            RewardStatus.DRAFT: 4,
            RewardStatus.INACTIVE: 3,
            RewardStatus.DELETED: 1,
        },
        count,
    )
    products, skus = catalog["products"], catalog["skus"]
    coupons, gift = (c["id"] for c in catalog["campaigns"])
    cost_prefix, spend_prefix = "lrcst_", "lrspn_"
    rows = []
    for n, created in enumerate(created_times(count, rng), start=1):
        material = rng.random() < 0.6
        row: dict[str, Any] = {
            "id": row_id(IdPrefix.REWARD, seed, n),
            "name": names[n - 1],
            "type": str(RewardType.MATERIAL if material else RewardType.DIGITAL),
            "status": str(statuses[n - 1]),
            "validity_hours": {"type": "ANY_TIME"},
            "refunds": {"type": "NONE"},
            "costs": [
                {
                    "id": row_id(cost_prefix, seed, n),
                    "spending": [
                        {
                            "id": row_id(spend_prefix, seed, n),
                            "name": None,
                            "points": rng.randrange(50, 5000, 10),
                            "card_definition_id": rng.choice(cds),
                        }
                    ],
                }
            ],
            "metadata": {},
            "start_date": None,
            "end_date": None,
            "created_at": created,
            "updated_at": None,
        }
        if rng.random() < 0.1:
            row["validity_hours"] = {
                "type": "DAILY",
                "daily": [
                    {"days_of_week": [1, 2, 3, 4, 5], "start_time": "07:00", "end_time": "11:00"}
                ],
            }
        if material and rng.random() < 0.5:
            row["material"] = {"type": "PRODUCT", "product": {"id": rng.choice(products)["id"]}}
        elif material:
            row["material"] = sku_material(rng, skus)
        else:
            row["digital"] = digital(rng, coupons, gift, balances=(500, 1000, 2500))
        rows.append(row)
    return rows


def benefit_rows(
    count: int,
    seed: int,
    rng: random.Random,
    active_cds: list[str],
    all_cds: list[str],
    catalog: dict[str, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    names = distinct_names(BENEFIT_WORDS, count, rng)
    types = list(BenefitType)
    statuses = pick(
        rng, {BenefitStatus.ACTIVE: 10, BenefitStatus.DRAFT: 5, BenefitStatus.DELETED: 1}, count
    )
    skus = catalog["skus"]
    coupons, gift = (c["id"] for c in catalog["campaigns"])
    rows = []
    for n, created in enumerate(created_times(count, rng), start=1):
        kind = types[rng.randrange(len(types))]
        status = statuses[n - 1]
        cd = rng.choice(active_cds if status == BenefitStatus.ACTIVE else all_cds)
        row: dict[str, Any] = {
            "id": row_id(IdPrefix.BENEFIT, seed, n),
            "name": names[n - 1],
            "type": str(kind),
            "status": str(status),
        }
        if rng.random() < 0.2:
            row["stock"] = {"type": "LIMITED", "limited": {"quantity": rng.randrange(1, 500)}}
        else:
            row["stock"] = {"type": "UNLIMITED"}
        if kind == BenefitType.POINTS:
            row["points"] = {"value": rng.randrange(10, 1000, 10), "card_definition_id": cd}
        elif kind == BenefitType.POINTS_PROPORTIONAL:
            row["points_proportional"] = {
                "calculation_type": "PRE_DISCOUNT_ORDER_AMOUNT",
                "card_definition_id": cd,
                "order": {"amount": {"every": 100, "value": rng.choice((1, 2, 1.5))}},
            }
        elif kind == BenefitType.MATERIAL:
            row["material"] = sku_material(rng, skus)
        else:
            row["digital"] = digital(rng, coupons, gift, balances=(500, 1000))
        row["created_at"] = created
        row["updated_at"] = None
        rows.append(row)
    return rows
