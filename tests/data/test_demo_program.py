"""The bundled demo program: well formed, valid against the models, and broken only on purpose."""

from __future__ import annotations

import csv
import json
import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

import lyt_toolkit.models as models
from lyt_toolkit.models.ids import CUSTOMER_ID_PATTERN, matches
from lyt_toolkit.sandbox.timeexpr import is_relative, resolve, resolve_tree

from .helpers import ID_PREFIXES

DATA = Path(__file__).resolve().parents[2] / "data"
DEMO = Path(__file__).resolve().parents[2] / "lyt_toolkit" / "sandbox" / "demo_program.json"
NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
MISSING_CD = "lcdef_deadbeef0000"
SHIPPING_PRODUCT = "prod_5h1pp1ng"

SECTIONS = (
    "card_definitions", "tier_structures", "rewards", "benefits", "programs", "members", "cards",
    "pending_buckets", "products", "skus", "campaigns", "customers", "promotion_tiers",
    "projects", "webhooks",
)  # fmt: skip

# card definition references that are wrong on purpose: (section, record id) -> target
BROKEN_CARD_DEFINITION_REFS = {
    ("tier_structures", "lts_c0ffee0004"): MISSING_CD,
    ("rewards", "lrew_c0ffee0014"): MISSING_CD,
    ("benefits", "lben_c0ffee0004"): MISSING_CD,
}
NON_ACTIVE_CARD_DEFINITION_REFS = {
    ("tier_structures", "lts_c0ffee0003"),  # DRAFT
    ("tier_structures", "lts_c0ffee0005"),  # DELETED
    ("rewards", "lrew_c0ffee0015"),  # DRAFT
    ("rewards", "lrew_c0ffee0016"),  # DELETED
    ("rewards", "lrew_c0ffee001b"),  # DELETED
    ("benefits", "lben_c0ffee0003"),  # ACTIVE benefit, DRAFT card definition
    ("benefits", "lben_c0ffee0005"),  # DELETED
    ("benefits", "lben_c0ffee000f"),  # DELETED
}

MODEL_OF = {
    "card_definitions": "CardDefinition",
    "tier_structures": "TierStructure",
    "rewards": "Reward",
    "benefits": "Benefit",
    "programs": "Program",
    "members": "Member",
    "cards": "Card",
    "pending_buckets": "PendingBucket",
    "campaigns": "Campaign",
    "promotion_tiers": "PromotionTier",
    "projects": "Project",
    "webhooks": "Webhook",
}


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return json.loads(DEMO.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def program(raw: dict[str, Any]) -> dict[str, Any]:
    return resolve_tree(raw, NOW)


def by_id(program: dict[str, Any], section: str) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in program[section]}


def card_definition_refs(section: str, row: dict[str, Any]) -> list[str]:
    """Every card definition ID a tier structure, reward or benefit points at."""
    if section == "tier_structures":
        holder = row.get("point_balance") or row.get("point_earned") or {}
        return [holder["card_definition_id"]]
    if section == "rewards":
        refs = [s["card_definition_id"] for c in row["costs"] for s in c.get("spending") or []]
        lcp = (row.get("digital") or {}).get("loyalty_card_points")
        return refs + ([lcp["card_definition_id"]] if lcp else [])
    for key in ("points", "points_proportional"):
        if row.get(key):
            return [row[key]["card_definition_id"]]
    return []


def test_header(raw: dict[str, Any]) -> None:
    assert raw["format"] == "lyt-program/1"
    assert set(raw) <= {
        "format",
        "description",
        "now",
        "deliberately_missing",
        *SECTIONS,
        "card_transactions",
        "orders",
    }
    for section in SECTIONS:
        assert raw[section], f"{section} is empty"


def test_ids_are_unique_and_match_their_patterns(program: dict[str, Any]) -> None:
    seen: set[str] = set()
    for section in SECTIONS:
        for row in program[section]:
            assert row["id"] not in seen, row["id"]
            seen.add(row["id"])
            prefix = ID_PREFIXES.get(section)
            if prefix and row["id"] != SHIPPING_PRODUCT:
                assert matches(prefix, row["id"]), (section, row["id"])
    for row in program["customers"]:
        assert re.match(CUSTOMER_ID_PATTERN, row["id"])
    for reward in program["rewards"]:
        for cost in reward["costs"]:
            assert matches("lrcst_", cost["id"])
            assert all(matches("lrspn_", s["id"]) for s in cost["spending"])
    patterns = {"campaigns": "camp_", "promotion_tiers": "promo_", "projects": "proj_",
                "webhooks": "wh_"}  # fmt: skip
    for section, prefix in patterns.items():
        for row in program[section]:
            assert re.fullmatch(f"{prefix}[A-Za-z0-9]+", row["id"]), row["id"]


def test_every_time_value_is_relative_or_iso(raw: dict[str, Any]) -> None:
    keys = {"created_at", "updated_at", "start_date", "end_date", "expiration_date", "date"}
    count = 0

    def walk(node: Any) -> None:
        nonlocal count
        if isinstance(node, dict):
            for key, value in node.items():
                if key in keys and value is not None:
                    assert is_relative(value), f"{key}={value!r} should be relative"
                    resolve(value, NOW)
                    count += 1
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for section in SECTIONS:
        walk(raw[section])
    assert count > 150


def test_resolved_dates_have_the_service_spelling(program: dict[str, Any]) -> None:
    assert program["rewards"][0]["created_at"].endswith(".000Z")
    for bucket in program["pending_buckets"]:
        date.fromisoformat(bucket["date"])


def test_references_resolve_except_the_listed_ones(program: dict[str, Any]) -> None:
    cds = by_id(program, "card_definitions")
    broken, non_active = {}, set()
    for section in ("tier_structures", "rewards", "benefits"):
        for row in program[section]:
            for ref in card_definition_refs(section, row):
                if ref not in cds:
                    broken[(section, row["id"])] = ref
                elif cds[ref]["status"] != "ACTIVE":
                    non_active.add((section, row["id"]))
    assert broken == BROKEN_CARD_DEFINITION_REFS
    assert non_active == NON_ACTIVE_CARD_DEFINITION_REFS

    products, skus = by_id(program, "products"), by_id(program, "skus")
    campaigns = by_id(program, "campaigns")
    for section in ("rewards", "benefits"):
        for row in program[section]:
            material = row.get("material")
            if material and material.get("product"):
                assert material["product"]["id"] in products
            if material and material.get("sku"):
                assert skus[material["sku"]["id"]]["product_id"] == material["sku"]["product_id"]
            digital = row.get("digital") or {}
            for kind in ("discount_coupons", "gift_vouchers"):
                if digital.get(kind):
                    assert campaigns[digital[kind]["campaign_id"]]["type"] == kind.upper()
    for sku in program["skus"]:
        assert sku["product_id"] in products

    programs, members = by_id(program, "programs"), by_id(program, "members")
    customers, cards = by_id(program, "customers"), by_id(program, "cards")
    for member in program["members"]:
        assert member["program_id"] in programs and member["customer_id"] in customers
    for card in program["cards"]:
        member = members[card["member_id"]]
        assert card["program_id"] == member["program_id"]
        assert card["card_definition_id"] in cds
    for bucket in program["pending_buckets"]:
        card = cards[bucket["card_id"]]
        for key in ("member_id", "program_id", "card_definition_id"):
            assert bucket[key] == card[key]
    for tier in program["promotion_tiers"]:
        assert tier["campaign_id"] in campaigns
        assert campaigns[tier["campaign_id"]]["type"] == "PROMOTION"
    projects = by_id(program, "projects")
    assert all(w["project_id"] in projects for w in program["webhooks"])


def test_coverage_of_types_and_statuses(program: dict[str, Any]) -> None:
    def values(section: str, key: str) -> set[str]:
        return {row[key] for row in program[section]}

    assert values("card_definitions", "status") == {"ACTIVE", "DRAFT", "DELETED"}
    assert {c["pending_points"]["type"] for c in program["card_definitions"]} == {
        "PERIOD_BASED", "FIXED_DATES", "IMMEDIATE", "EVENT_BASED"}  # fmt: skip
    assert values("tier_structures", "type") == {"POINT_BALANCE", "POINT_EARNED"}
    assert values("tier_structures", "status") == {"ACTIVE", "DRAFT", "INACTIVE"}
    assert values("rewards", "type") == {"MATERIAL", "DIGITAL"}
    assert values("rewards", "status") == {"ACTIVE", "DRAFT", "INACTIVE", "DELETED"}
    assert len([r for r in program["rewards"]]) > 20  # several pages at limit 10
    assert values("benefits", "type") == {"POINTS", "POINTS_PROPORTIONAL", "MATERIAL", "DIGITAL"}
    assert values("benefits", "status") == {"ACTIVE", "DRAFT", "DELETED"}
    assert len([b for b in program["benefits"] if b["status"] != "DELETED"]) > 20
    assert values("programs", "status") == {"ACTIVE", "INACTIVE"}
    for prg in program["programs"]:
        assert {m["status"] for m in program["members"] if m["program_id"] == prg["id"]} == {
            "ACTIVE", "INACTIVE"}  # fmt: skip
    assert values("pending_buckets", "status") >= {"PENDING", "ACTIVATED"}
    assert values("campaigns", "type") == {"DISCOUNT_COUPONS", "GIFT_VOUCHERS", "PROMOTION"}
    assert {p["plan"]["webhooks"] for p in program["projects"]} == {True, False}
    names = [b["name"] for b in program["benefits"]]
    assert len(names) == len(set(names)), "benefit names must be unique exactly"


def test_pending_buckets_lie_on_both_sides_of_the_clock(program: dict[str, Any]) -> None:
    today = NOW.date()
    pending = [b for b in program["pending_buckets"] if b["status"] == "PENDING"]
    assert any(date.fromisoformat(b["date"]) > today for b in pending)
    assert any(date.fromisoformat(b["date"]) < today for b in pending)
    assert any(date.fromisoformat(b["date"]) == today for b in pending)


def test_pending_totals_equal_the_points_of_pending_buckets(program: dict[str, Any]) -> None:
    held: dict[str, float] = {}
    for bucket in program["pending_buckets"]:
        if bucket["status"] == "PENDING":
            held[bucket["card_id"]] = held.get(bucket["card_id"], 0) + bucket["points"]["total"]
    totals = {card["id"]: card["balance"]["pending_points"] for card in program["cards"]}
    assert totals == {card: held.get(card, 0) for card in totals}


def test_discount_variants_and_rule_kinds(program: dict[str, Any]) -> None:
    variants = set()
    for tier in program["promotion_tiers"]:
        disc = tier["discount"]
        if "units" in disc:
            variants.add("UNIT_MULTIPLE")
        elif disc["type"] == "UNIT" and disc["unit_type"] == SHIPPING_PRODUCT:
            variants.add("SHIPPING")
        elif disc["type"] == "UNIT":
            variants.add("UNIT_SKU" if "sku" in disc else "UNIT_PRODUCT")
        else:
            variants.add(disc["type"])
        if disc["type"] == "PERCENT" and tier["id"] == "promo_NwTier0002":
            assert disc["amount_limit"] > 0
    assert variants == {"AMOUNT", "PERCENT", "FIXED", "UNIT_PRODUCT", "UNIT_SKU", "UNIT_MULTIPLE",
                        "SHIPPING"}  # fmt: skip
    allowed = {
        "redemption_metadata_required": {"keys"},
        "order_amount": {"min", "max"},
        "customer_metadata": {"key", "equals"},
    }
    kinds = set()
    for tier in program["promotion_tiers"]:
        rules = tier["validation_rules"]
        assert set(rules) <= {"rules", "error"}
        if "error" in rules:
            assert set(rules["error"]) == {"message"}
        for rule in rules["rules"]:
            kinds.add(rule["kind"])
            assert set(rule) - {"kind"} <= allowed[rule["kind"]]
    assert kinds == set(allowed)
    assert any("error" in t["validation_rules"] for t in program["promotion_tiers"])


def test_every_record_validates_against_the_models(program: dict[str, Any]) -> None:
    for section, name in MODEL_OF.items():
        model = getattr(models, name)
        for row in program[section]:
            model.model_validate(row)


def test_benefit_csv_example_has_the_documented_columns() -> None:
    with (DATA / "benefits_import_example.csv").open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames == [
        "name", "type", "status", "card_definition_id", "points_value", "product_id", "sku_id",
        "campaign_id", "digital_type", "balance", "stock_quantity",
    ]  # fmt: skip
    assert len(rows) >= 15
    assert any(len(r["name"]) > 200 for r in rows) and any(r["name"] == "" for r in rows)
