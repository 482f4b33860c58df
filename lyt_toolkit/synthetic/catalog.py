"""The catalog rewards and benefits point at: products, SKUs and two digital campaigns."""

from __future__ import annotations

import random
from typing import Any

from .rows import seed_tag
from .words import REWARD_WORDS


def catalog_rows(seed: int) -> dict[str, list[dict[str, Any]]]:
    """Products, SKUs and one campaign of each digital type for rewards and benefits."""
    tag = seed_tag(seed)
    items = REWARD_WORDS[2]
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


def sku_material(rng: random.Random, skus: list[dict[str, Any]]) -> dict[str, Any]:
    """A material target: one of the catalog's SKUs, with its product."""
    sku = rng.choice(skus)
    return {"type": "SKU", "sku": {"product_id": sku["product_id"], "id": sku["id"]}}


def digital(
    rng: random.Random, coupons: str, gift: str, cds: list[str], *, balances: tuple[int, ...]
) -> dict[str, Any]:
    """Discount coupons, gift vouchers of one of ``balances`` or (one in ten, when ``cds`` are
    given) points credited on one of ``cds``."""
    if cds and rng.random() < 0.1:
        return {
            "type": "LOYALTY_CARD_POINTS",
            "loyalty_card_points": {
                "points": rng.choice((10, 50, 100, 500)),
                "card_definition_id": rng.choice(cds),
            },
        }
    if rng.random() < 0.5:
        return {"type": "DISCOUNT_COUPONS", "discount_coupons": {"campaign_id": coupons}}
    return gift_voucher(gift, rng.choice(balances))


def gift_voucher(campaign: str, balance: int) -> dict[str, Any]:
    """A gift voucher of ``balance`` minor units from ``campaign``."""
    return {"type": "GIFT_VOUCHERS", "gift_vouchers": {"campaign_id": campaign, "balance": balance}}
