"""Large synthetic programs in the ``lyt-program/1`` format, for benchmarks.

The demo program is small and full of deliberate mistakes; benchmarks need the
opposite: many rows, all well formed and resolvable, identical for a given seed.
Rows are built from plain dicts and a seeded ``random.Random`` so that 100,000
rewards take a few seconds and the same seed always yields the same file.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

from lyt_toolkit.models.enums import (
    BenefitStatus,
    BenefitType,
    CardDefinitionStatus,
    MemberStatus,
    PendingBucketStatus,
    RewardStatus,
    RewardType,
    TierStructureStatus,
    TierStructureType,
)
from lyt_toolkit.models.ids import IdPrefix

FORMAT = "lyt-program/1"
DEFAULT_NOW = "2026-01-15T12:00:00Z"
HISTORY_SECONDS = 2 * 365 * 86400
"""``created_at`` values are spread over the two years before the clock."""

_REWARD_WORDS = (
    (
        "Free",
        "Double",
        "Half-price",
        "Bonus",
        "Seasonal",
        "Weekend",
        "Morning",
        "Members'",
        "Signature",
        "Limited",
        "Classic",
        "Deluxe",
        "Mini",
        "Family",
        "Barista's",
        "House",
        "Organic",
        "Iced",
        "Spiced",
        "Midnight",
    ),
    (
        "Caramel",
        "Vanilla",
        "Hazelnut",
        "Mocha",
        "Matcha",
        "Chai",
        "Pumpkin",
        "Cinnamon",
        "Honey",
        "Maple",
        "Coconut",
        "Almond",
        "Lavender",
        "Ginger",
        "Cherry",
        "Orange",
        "Toffee",
        "Pistachio",
        "Salted",
        "Dark Roast",
        "Blonde Roast",
        "Oat",
        "Berry",
        "Cocoa",
        "Espresso",
    ),
    (
        "Latte",
        "Cappuccino",
        "Flat White",
        "Cold Brew",
        "Americano",
        "Macchiato",
        "Frappe",
        "Tea",
        "Muffin",
        "Croissant",
        "Scone",
        "Cookie",
        "Brownie",
        "Bagel",
        "Sandwich",
        "Mug",
        "Tumbler",
        "Bean Bag",
        "Gift Card",
        "Coupon",
        "Tasting Flight",
        "Barista Class",
        "Pastry Box",
        "Brew Kit",
        "Smoothie",
        "Hot Chocolate",
        "Panini",
        "Waffle",
        "Donut",
        "Cheesecake",
    ),
)
_BENEFIT_WORDS = (
    (
        "Welcome",
        "Birthday",
        "Referral",
        "Anniversary",
        "Streak",
        "Review",
        "Survey",
        "Holiday",
        "Weekday",
        "Early Bird",
        "Night Owl",
        "App",
        "Store",
        "Partner",
        "VIP",
        "Gold",
        "Silver",
        "Bronze",
        "Spring",
        "Autumn",
    ),
    (
        "Bonus",
        "Boost",
        "Reward",
        "Gift",
        "Perk",
        "Treat",
        "Multiplier",
        "Credit",
        "Surprise",
        "Voucher",
        "Coupon",
        "Giveaway",
        "Upgrade",
        "Top-up",
        "Match",
    ),
    (
        "Beans",
        "Stars",
        "Points",
        "Miles",
        "Drinks",
        "Pastries",
        "Mugs",
        "Tumblers",
        "Brews",
        "Coffees",
        "Treats",
        "Snacks",
        "Bags",
        "Cards",
        "Kits",
        "Shots",
        "Cups",
        "Muffins",
        "Cookies",
        "Teas",
        "Lattes",
        "Scones",
        "Bagels",
        "Waffles",
        "Donuts",
    ),
)
_FIRST = (
    "Ana",
    "Ben",
    "Carla",
    "Dev",
    "Eva",
    "Femi",
    "Goran",
    "Hana",
    "Ivan",
    "Jia",
    "Kofi",
    "Lena",
    "Mateo",
    "Nora",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoe",
)
_LAST = (
    "Adams",
    "Baker",
    "Chen",
    "Diaz",
    "Evans",
    "Fischer",
    "Garcia",
    "Hughes",
    "Ito",
    "Jensen",
    "Khan",
    "Lopez",
    "Meyer",
    "Novak",
    "Okoro",
    "Park",
    "Quist",
    "Rossi",
    "Silva",
    "Tanaka",
    "Ueda",
    "Varga",
    "Weber",
    "Xu",
    "Young",
    "Zimmer",
)


def _id(prefix: str, seed: int, n: int) -> str:
    """Unique, deterministic, pattern-conforming ID: seed tag plus a counter, in hex."""
    return f"{prefix}{seed & 0xFFFF:04x}{n:012x}"


def _names(words: tuple[tuple[str, ...], ...], count: int, rng: random.Random) -> list[str]:
    """``count`` distinct names; combinations are shuffled, then numbered editions follow."""
    combos = [" ".join(parts) for parts in itertools.product(*words)]
    rng.shuffle(combos)
    size = len(combos)
    return [combos[i % size] + ("" if i < size else f" No. {i // size + 1}") for i in range(count)]


def _created(count: int, rng: random.Random) -> list[str]:
    """Distinct relative ``created_at`` values, oldest first, spread over the history."""
    step = max(HISTORY_SECONDS // max(count, 1), 1)
    ages = [HISTORY_SECONDS - i * step - rng.randrange(step) for i in range(count)]
    return [f"now-{max(age, 1) + 60}s" for age in ages]


def _pick(rng: random.Random, weighted: dict[str, int], count: int) -> list[str]:
    return rng.choices(list(weighted), weights=list(weighted.values()), k=count)


def _card_definitions(count: int, seed: int, rng: random.Random) -> list[dict[str, Any]]:
    pending = ("PERIOD_BASED", "FIXED_DATES", "IMMEDIATE")
    rows = []
    for n, created in enumerate(_created(count, rng), start=1):
        # the first two are always ACTIVE so every reference below has a target
        status = (
            CardDefinitionStatus.ACTIVE
            if n <= 2
            else _pick(
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
                "id": _id(IdPrefix.CARD_DEFINITION, seed, n),
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


# The fewest of each resource a generated program may hold: two card definitions so that
# ACTIVE and non-ACTIVE ones both exist for references to point at.
MINIMUM_COUNTS = {
    "rewards": 0,
    "benefits": 0,
    "card_definitions": 2,
    "tier_structures": 0,
    "members": 0,
}


def generate_program(
    *,
    rewards: int = 1000,
    benefits: int = 1000,
    card_definitions: int = 10,
    tier_structures: int = 10,
    members: int = 100,
    seed: int = 0,
) -> dict[str, Any]:
    """A well-formed synthetic program with the requested number of each resource.

    Every reference resolves; ACTIVE benefits point at ACTIVE card definitions;
    names are unique; ``created_at`` values are distinct. The same arguments always
    give the same dict.
    """
    counts = {
        "rewards": rewards,
        "benefits": benefits,
        "card_definitions": card_definitions,
        "tier_structures": tier_structures,
        "members": members,
    }
    for label, value in counts.items():
        if value < MINIMUM_COUNTS[label]:
            raise ValueError(f"{label} must be >= {MINIMUM_COUNTS[label]}, got {value}")
    rng = random.Random(seed)
    cds = _card_definitions(card_definitions, seed, rng)
    active_cds = [c["id"] for c in cds if c["status"] == CardDefinitionStatus.ACTIVE]
    pending_cds = {c["id"]: c["pending_points"]["type"] for c in cds}
    catalog = _catalog(seed)
    return {
        "format": FORMAT,
        "description": (
            f"Synthetic program (seed {seed}): {rewards} rewards, {benefits} benefits, "
            f"{card_definitions} card definitions, {tier_structures} tier structures, "
            f"{members} members."
        ),
        "now": DEFAULT_NOW,
        "card_definitions": cds,
        "tier_structures": _tier_structures(tier_structures, seed, rng, active_cds),
        "rewards": _rewards(rewards, seed, rng, active_cds, catalog),
        "benefits": _benefits(benefits, seed, rng, active_cds, [c["id"] for c in cds], catalog),
        **_members(members, seed, rng, active_cds, pending_cds),
        **catalog,
        "promotion_tiers": [],
        "projects": [
            {
                "id": f"proj_Synth{seed & 0xFFFF:04x}",
                "name": "Synthetic project",
                "plan": {"webhooks": True},
            }
        ],
        "webhooks": [],
    }


def _catalog(seed: int) -> dict[str, list[dict[str, Any]]]:
    """Products, SKUs and one campaign of each digital type for rewards and benefits."""
    tag = f"{seed & 0xFFFF:04x}"
    items = _REWARD_WORDS[2]
    products = [
        {
            "id": f"prod_{tag}{n:08x}",
            "source_id": f"synthetic-{n}",
            "name": name,
            "price": 300 + 150 * n,
        }
        for n, name in enumerate(items, start=1)
    ]
    skus = [
        {
            "id": f"sku_{tag}{n:08x}",
            "source_id": f"{p['source_id']}-std",
            "sku": f"{p['name']} Standard",
            "product_id": p["id"],
            "price": p["price"],
        }
        for n, p in enumerate(products, start=1)
    ]
    campaigns = [
        {
            "id": f"camp_SynthCoupons{tag}",
            "name": "Synthetic coupons",
            "type": "DISCOUNT_COUPONS",
            "active": True,
            "start_date": "now-730d",
            "expiration_date": None,
            "categories": [],
        },
        {
            "id": f"camp_SynthGift{tag}",
            "name": "Synthetic gift cards",
            "type": "GIFT_VOUCHERS",
            "active": True,
            "start_date": "now-730d",
            "expiration_date": None,
            "categories": [],
        },
    ]
    return {"products": products, "skus": skus, "campaigns": campaigns}


def _tier_structures(
    count: int, seed: int, rng: random.Random, cds: list[str]
) -> list[dict[str, Any]]:
    rows = []
    for n, created in enumerate(_created(count, rng), start=1):
        kind = TierStructureType.POINT_BALANCE if n % 2 else TierStructureType.POINT_EARNED
        row: dict[str, Any] = {
            "id": _id(IdPrefix.TIER_STRUCTURE, seed, n),
            "name": f"Synthetic Tiers {n:04d}",
            "type": str(kind),
            "status": _pick(
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


def _rewards(
    count: int,
    seed: int,
    rng: random.Random,
    cds: list[str],
    catalog: dict[str, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    names = _names(_REWARD_WORDS, count, rng)
    statuses = _pick(
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
    for n, created in enumerate(_created(count, rng), start=1):
        material = rng.random() < 0.6
        row: dict[str, Any] = {
            "id": _id(IdPrefix.REWARD, seed, n),
            "name": names[n - 1],
            "type": str(RewardType.MATERIAL if material else RewardType.DIGITAL),
            "status": str(statuses[n - 1]),
            "validity_hours": {"type": "ANY_TIME"},
            "refunds": {"type": "NONE"},
            "costs": [
                {
                    "id": _id(cost_prefix, seed, n),
                    "spending": [
                        {
                            "id": _id(spend_prefix, seed, n),
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
            row["material"] = _sku_material(rng, skus)
        else:
            row["digital"] = _digital(rng, coupons, gift, balances=(500, 1000, 2500))
        rows.append(row)
    return rows


def _sku_material(rng: random.Random, skus: list[dict[str, Any]]) -> dict[str, Any]:
    sku = rng.choice(skus)
    return {"type": "SKU", "sku": {"product_id": sku["product_id"], "id": sku["id"]}}


def _digital(
    rng: random.Random, coupons: str, gift: str, *, balances: tuple[int, ...]
) -> dict[str, Any]:
    """Half discount coupons, half gift vouchers of one of ``balances``."""
    if rng.random() < 0.5:
        return {"type": "DISCOUNT_COUPONS", "discount_coupons": {"campaign_id": coupons}}
    return {
        "type": "GIFT_VOUCHERS",
        "gift_vouchers": {"campaign_id": gift, "balance": rng.choice(balances)},
    }


def _benefits(
    count: int,
    seed: int,
    rng: random.Random,
    active_cds: list[str],
    all_cds: list[str],
    catalog: dict[str, list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    names = _names(_BENEFIT_WORDS, count, rng)
    types = list(BenefitType)
    statuses = _pick(
        rng, {BenefitStatus.ACTIVE: 10, BenefitStatus.DRAFT: 5, BenefitStatus.DELETED: 1}, count
    )
    skus = catalog["skus"]
    coupons, gift = (c["id"] for c in catalog["campaigns"])
    rows = []
    for n, created in enumerate(_created(count, rng), start=1):
        kind = types[rng.randrange(len(types))]
        status = statuses[n - 1]
        cd = rng.choice(active_cds if status == BenefitStatus.ACTIVE else all_cds)
        row: dict[str, Any] = {
            "id": _id(IdPrefix.BENEFIT, seed, n),
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
            row["material"] = _sku_material(rng, skus)
        else:
            row["digital"] = _digital(rng, coupons, gift, balances=(500, 1000))
        row["created_at"] = created
        row["updated_at"] = None
        rows.append(row)
    return rows


def _members(
    count: int, seed: int, rng: random.Random, cds: list[str], pending: dict[str, str]
) -> dict[str, list[dict[str, Any]]]:
    """One ACTIVE program, its members (one card each), their customers and pending buckets."""
    program_id = _id(IdPrefix.PROGRAM, seed, 1)
    programs = [
        {
            "id": program_id,
            "name": "Synthetic Rewards",
            "status": "ACTIVE",
            "start_date": "now-730d",
            "end_date": None,
            "validity_hours": {"type": "ANY_TIME"},
            "metadata": {},
            "created_at": "now-800d",
            "updated_at": None,
        }
    ]
    members, cards, buckets, customers = [], [], [], []
    enabled = [cd for cd in cds if pending[cd] != "IMMEDIATE"] or cds
    bucket_n = 0
    for n, created in enumerate(_created(count, rng), start=1):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        customer_id = f"cust_Synth{seed & 0xFFFF:04x}{n:08d}"
        customers.append(
            {
                "id": customer_id,
                "source_id": f"synthetic-customer-{n}",
                "name": f"{first} {last}",
                "email": f"{first}.{last}.{n}@example.com".lower(),
                "metadata": {"segment": rng.choice(("regular", "regular", "vip"))},
            }
        )
        member_id = _id(IdPrefix.MEMBER, seed, n)
        status = MemberStatus.ACTIVE if rng.random() < 0.9 else MemberStatus.INACTIVE
        members.append(
            {
                "id": member_id,
                "customer_id": customer_id,
                "program_id": program_id,
                "status": str(status),
                "metadata": {},
                "created_at": created,
                "updated_at": None,
            }
        )
        card_id = _id(IdPrefix.CARD, seed, n)
        cd = rng.choice(enabled)
        pending_total = 0
        for _ in range(rng.randrange(0, 4)):
            bucket_n += 1
            points = rng.randrange(10, 500, 5)
            pending_total += points
            buckets.append(
                {
                    "id": _id(IdPrefix.PENDING_BUCKET, seed, bucket_n),
                    "card_id": card_id,
                    "card_definition_id": cd,
                    "program_id": program_id,
                    "member_id": member_id,
                    "card_type": "INDIVIDUAL",
                    "points": {"total": points},
                    "date": f"now{rng.choice('+-')}{rng.randrange(1, 60)}d",
                    "type": pending[cd] if pending[cd] != "IMMEDIATE" else "PERIOD_BASED",
                    "status": str(PendingBucketStatus.PENDING),
                    "created_at": created,
                    "updated_at": None,
                }
            )
        cards.append(
            {
                "id": card_id,
                "member_id": member_id,
                "program_id": program_id,
                "card_definition_id": cd,
                "card_type": "INDIVIDUAL",
                "code": f"SYN-{n:08d}",
                "member_role": "OWNER",
                "balance": {"points": rng.randrange(0, 20000), "pending_points": pending_total},
                "created_at": created,
                "updated_at": None,
            }
        )
    return {
        "programs": programs,
        "members": members,
        "cards": cards,
        "pending_buckets": buckets,
        "customers": customers,
    }


def write_program(path: str | Path, **kwargs: Any) -> Path:
    """Generate a program (see :func:`generate_program`) and write it as JSON to ``path``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    program = generate_program(**kwargs)
    with target.open("w", encoding="utf-8") as handle:
        json.dump(program, handle, separators=(",", ":"))
        handle.write("\n")
    return target
