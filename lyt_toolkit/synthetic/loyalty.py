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

from .catalog import digital, gift_voucher, sku_material
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


POINT_VALUES = (0.5, 1.0, 1.0, 2.0)
"""What one point of a card definition is worth, in minor units: rewards are priced near it."""

MISPRICED_EVERY = 1000
"""Every 1000th reward is a gift voucher priced at a fifth of its points: 5x the value per point."""


def point_values(cds: list[str], rng: random.Random) -> dict[str, float]:
    """The value per point (minor units) each card definition's rewards cluster around."""
    return {cd: rng.choice(POINT_VALUES) for cd in cds}


def reward_rows(
    count: int,
    seed: int,
    rng: random.Random,
    values: dict[str, float],
    catalog: dict[str, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Rewards priced at their card definition's value per point, within 10 %.

    A gift voucher costs its balance / value per point, a product its price / value per
    point, card points their value on the credited card definition; coupons carry no value.
    """
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
    prices = {p["id"]: p["price"] for p in products}
    coupons, gift = (c["id"] for c in catalog["campaigns"])
    cds = list(values)
    cost_prefix, spend_prefix = "lrcst_", "lrspn_"
    rows = []
    for n, created in enumerate(created_times(count, rng), start=1):
        mispriced = n % MISPRICED_EVERY == 0
        material = not mispriced and rng.random() < 0.6
        cd = rng.choice(cds)
        row: dict[str, Any] = {
            "id": row_id(IdPrefix.REWARD, seed, n),
            "name": names[n - 1],
            "type": str(RewardType.MATERIAL if material else RewardType.DIGITAL),
            "status": str(statuses[n - 1]),
            "validity_hours": {"type": "ANY_TIME"},
            "refunds": {"type": "NONE"},
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
        elif mispriced:
            row["digital"] = gift_voucher(gift, rng.choice((500, 1000, 2500)))
        else:
            row["digital"] = digital(rng, coupons, gift, cds, balances=(500, 1000, 2500))
        worth = reward_worth(row, prices, values)
        points: float
        if worth is None:
            points = rng.randrange(50, 5000, 10)
        else:
            points = worth / values[cd] * rng.uniform(0.9, 1.1) / (5 if mispriced else 1)
        row["costs"] = [
            {
                "id": row_id(cost_prefix, seed, n),
                "spending": [
                    {
                        "id": row_id(spend_prefix, seed, n),
                        "name": None,
                        "points": int(round(points, -1))
                        if points >= 100
                        else max(1, round(points)),
                        "card_definition_id": cd,
                    }
                ],
            }
        ]
        rows.append(row)
    return rows


def reward_worth(
    row: dict[str, Any], prices: dict[str, int], values: dict[str, float]
) -> float | None:
    """What a reward gives, in minor units; None for coupons, which carry no value."""
    material, digital_ = row.get("material"), row.get("digital") or {}
    if material:
        product = (
            material["product"]["id"] if "product" in material else material["sku"]["product_id"]
        )
        return float(prices[product])
    if "gift_vouchers" in digital_:
        return float(digital_["gift_vouchers"]["balance"])
    if "loyalty_card_points" in digital_:
        credited = digital_["loyalty_card_points"]
        return credited["points"] * values[credited["card_definition_id"]]
    return None


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
            row["digital"] = digital(rng, coupons, gift, [], balances=(500, 1000))
        row["created_at"] = created
        row["updated_at"] = None
        rows.append(row)
    return rows
