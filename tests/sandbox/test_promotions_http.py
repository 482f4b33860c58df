"""Promotion tiers over real HTTP: list, validate, auth, bad input, every variant and reason.

Most tests use the demo program (Northwind Coffee) on the shared sandbox; order
references by ID need stored orders, so a small program of our own runs in a
second sandbox for those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from pydantic import TypeAdapter
from shared_tls import TLS

from lyt_toolkit.models import PromotionTierList, TierValidationResult
from lyt_toolkit.sandbox import Sandbox

TUMBLER, LATTE, MUG = "prod_0b1e55ed0003", "prod_0b1e55ed0006", "prod_0b1e55ed0002"
BEANS_250G = "sku_0b1e55ed0101"
RESULT = TypeAdapter(TierValidationResult)


def tier_url(sandbox: Sandbox, tier_id: str) -> str:
    return f"{sandbox.base_url}/v1/promotions/tiers/{tier_id}/validation"


@pytest.fixture
def validate(sandbox: Sandbox, key_headers: dict[str, str]) -> Callable[..., dict[str, Any]]:
    """POST a validation with the key pair; returns the 200 body, checked against the models."""

    def call(tier_id: str, **body: Any) -> dict[str, Any]:
        response = httpx.post(
            tier_url(sandbox, tier_id), json=body, headers=key_headers, verify=TLS
        )
        assert response.status_code == 200, response.text
        result = response.json()
        assert RESULT.validate_python(result).wire() == result
        return result

    return call


def items(*lines: tuple[str, int]) -> dict[str, Any]:
    key = {"prod": "product_id", "sku_": "sku_id"}
    return {"items": [{key[ref[:4]]: ref, "quantity": qty} for ref, qty in lines]}


BASKET = items((TUMBLER, 1), (LATTE, 2))  # 2900 + 2 x 520 = 3940
ALICE, BRUNO = {"source_id": "alice.moreau"}, {"id": "cust_NwBruno0002"}  # vip, regular


def totals(result: dict[str, Any]) -> tuple[int, int, int, int]:
    assert result["valid"] is True, result.get("reason")
    order = result["order"]
    return (
        order["amount"],
        result["discount_amount"],
        result["applied_discount_amount"],
        order["total_amount"],
    )


# -- every discount variant ---------------------------------------------------------


def test_amount_off_the_order(validate: Callable[..., dict]) -> None:
    result = validate("promo_NwTier0001", customer=ALICE, order=BASKET)
    assert totals(result) == (3940, 500, 500, 3440)
    assert result["order"]["discount_amount"] == 500


def test_percent_with_cap(validate: Callable[..., dict]) -> None:
    assert totals(validate("promo_NwTier0002", customer=ALICE, order=BASKET)) == (
        3940,
        591,
        591,
        3349,
    )
    big = items((TUMBLER, 4))  # 15% of 11600 = 1740, capped at 1000
    assert totals(validate("promo_NwTier0002", customer=ALICE, order=big)) == (
        11600,
        1000,
        1000,
        10600,
    )


def test_fixed_order_total(validate: Callable[..., dict]) -> None:
    assert totals(validate("promo_NwTier0003", order=BASKET)) == (3940, 2941, 2941, 999)


def test_unit_adds_the_free_product(validate: Callable[..., dict]) -> None:
    result = validate("promo_NwTier0004", order=BASKET, metadata={"store_id": "store-001"})
    assert totals(result) == (3940 + 1800, 1800, 1800, 3940)
    mug = result["order"]["items"][-1]
    assert (mug["product_id"], mug["quantity"], mug["subtotal_amount"]) == (MUG, 1, 0)
    assert mug["product"]["name"] == "Northwind Classic Mug"


def test_unit_adds_a_free_sku(validate: Callable[..., dict]) -> None:
    result = validate("promo_NwTier0005", order=BASKET)
    assert totals(result) == (3940 + 1450, 1450, 1450, 3940)
    assert result["order"]["items"][-1]["sku_id"] == BEANS_250G


def test_unit_multiple(validate: Callable[..., dict]) -> None:
    result = validate("promo_NwTier0006", customer=ALICE, order=BASKET)
    assert totals(result) == (3940 + 450 + 2900, 3350, 3350, 3940)
    assert result["discount"]["effect"] == "ADD_MANY_ITEMS"


def test_free_shipping(validate: Callable[..., dict]) -> None:
    order = items((TUMBLER, 2))
    order["items"].append({"source_id": "5h1pp1ng", "related_object": "product", "quantity": 1})
    result = validate("promo_NwTier0007", order=order)
    assert totals(result) == (5800 + 599, 599, 599, 5800)
    shipping = result["order"]["items"][1]
    assert (shipping["product_id"], shipping["discount_amount"]) == ("prod_5h1pp1ng", 599)


def test_valid_result_fields(validate: Callable[..., dict]) -> None:
    result = validate("promo_NwTier0001", customer=ALICE, order=BASKET)
    assert result["object"] == "promotion_tier" and result["id"] == "promo_NwTier0001"
    assert result["tracking_id"].startswith("track_")
    assert result["campaign"]["categories"]["id"] == "cat_0c0ffee00001"
    for envelope in ("applicable_to", "inapplicable_to"):
        assert result[envelope] == {"data": [], "total": 0, "data_ref": "data", "object": "list"}
    assert result["order"]["customer_id"] == "cust_NwAlice0001"
    assert result["order"]["status"] == "CREATED"


def test_tracking_id_is_stable_across_references(validate: Callable[..., dict]) -> None:
    by_source = validate("promo_NwTier0001", customer=ALICE, order=BASKET)["tracking_id"]
    by_id = validate("promo_NwTier0008", customer={"id": "cust_NwAlice0001"})["tracking_id"]
    assert by_source == by_id
    assert validate("promo_NwTier0001", customer=BRUNO, order=BASKET)["tracking_id"] != by_id


# -- every invalid reason -----------------------------------------------------------


@pytest.mark.parametrize(
    ("tier_id", "body", "reason"),
    [
        ("promo_NwTier0001", {"order": items((LATTE, 1))}, "order amount below minimum"),
        ("promo_NwTier0003", {"order": items((TUMBLER, 2))}, "order amount above maximum"),
        ("promo_NwTier0004", {"order": BASKET}, "redemption metadata missing"),
        ("promo_NwTier0006", {"customer": BRUNO, "order": BASKET}, "customer metadata mismatch"),
        ("promo_NwTier0008", {"order": BASKET}, "promotion tier expired"),
        ("promo_NwTier0009", {"order": BASKET}, "campaign inactive"),
        ("promo_NwTier0010", {"order": BASKET}, "campaign expired"),
        ("promo_NwTier0011", {"order": BASKET}, "promotion tier inactive"),
    ],
)
def test_invalid_reasons(
    validate: Callable[..., dict], tier_id: str, body: dict, reason: str
) -> None:
    result = validate(tier_id, **body)
    assert (result["valid"], result["reason"]) == (False, reason)
    error = result["error"]
    assert (error["code"], error["key"]) == (400, "redemption_rules_violated")
    assert error["request_id"].startswith("req_") and error["details"]
    for absent in ("order", "applicable_to", "inapplicable_to", "discount_amount"):
        assert absent not in result
    assert "categories" not in result["campaign"]


def test_custom_message_for_a_rule(validate: Callable[..., dict]) -> None:
    result = validate("promo_NwTier0002", customer=BRUNO, order=BASKET)
    assert result["reason"] == "customer metadata mismatch"
    assert result["error"] == {"message": "This offer is reserved for VIP members."}


def test_custom_message_for_a_tier_not_started(validate: Callable[..., dict]) -> None:
    result = validate("promo_NwTier0012", order=BASKET)
    assert result["reason"] == "promotion tier not started"
    assert result["error"] == {"message": "Spring offers start soon."}


def test_the_clock_decides(restore: Sandbox, validate: Callable[..., dict]) -> None:
    restore.advance_clock(11 * 86400)  # the spring tier starts ten days after the demo's "now"
    assert validate("promo_NwTier0012", order=BASKET)["valid"] is True
    restore.set_clock("2025-10-01T00:00:00Z")  # before the main campaign starts
    assert validate("promo_NwTier0001", order=BASKET)["reason"] == "campaign not started"


# -- references and bad input ---------------------------------------------------------


def post(sandbox: Sandbox, headers: dict[str, str], tier_id: str, **kwargs: Any) -> httpx.Response:
    return httpx.post(tier_url(sandbox, tier_id), headers=headers, **kwargs)


@pytest.mark.parametrize(
    ("body", "resource_type", "resource_id"),
    [
        ({"order": {"id": "ord_nowhere"}}, "order", "ord_nowhere"),
        ({"order": {"source_id": "web-nowhere"}}, "order", "web-nowhere"),
        ({"customer": {"id": "cust_Nobody"}}, "customer", "cust_Nobody"),
        ({"order": {"items": [{"product_id": "prod_nothing"}]}}, "product", "prod_nothing"),
        ({"order": {"items": [{"sku_id": "sku_nothing"}]}}, "sku", "sku_nothing"),
    ],
)
def test_missing_references_are_404(
    sandbox: Sandbox, key_headers: dict, body: dict, resource_type: str, resource_id: str
) -> None:
    response = post(sandbox, key_headers, "promo_NwTier0001", json=body)
    assert response.status_code == 404
    error = response.json()
    assert (error["code"], error["key"]) == (404, "not_found")
    assert (error["resource_type"], error["resource_id"]) == (resource_type, resource_id)


def test_unknown_tier_is_404(sandbox: Sandbox, key_headers: dict) -> None:
    response = post(sandbox, key_headers, "promo_Unknown", json={})
    assert response.status_code == 404
    assert response.json()["resource_type"] == "promotion_tier"
    assert response.json()["resource_id"] == "promo_Unknown"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"content": b'{"order": ', "headers": {"content-type": "application/json"}}, "JSON"),
        ({}, "body"),
        ({"json": {"order": {"items": "two mugs"}}}, "order.items"),
        ({"json": {"order": {"items": [{"quantity": "many"}]}}}, "order.items.0.quantity"),
        ({"json": {"order": {"amount": "lots"}}}, "order.amount"),
        ({"json": {"customer": "alice"}}, "customer"),
        ({"json": {"metadata": [1, 2]}}, "metadata"),
        ({"json": {"coupon": "X"}}, "coupon"),
        ({"json": ["not", "an", "object"]}, "body"),
    ],
)
def test_malformed_bodies_are_400_naming_the_field(
    sandbox: Sandbox, key_headers: dict, kwargs: dict, field: str
) -> None:
    headers = key_headers | kwargs.pop("headers", {})
    response = post(sandbox, headers, "promo_NwTier0001", **kwargs)
    assert response.status_code == 400, response.text
    error = response.json()
    assert (error["code"], error["key"]) == (400, "invalid_request")
    # invalid JSON is reported by position ("10: JSON decode error"), everything else by field
    assert error["details"].startswith(field) or field in error["details"], error["details"]


# -- auth matrix ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def bearer(issue_token: Callable[..., dict]) -> Callable[[str], dict[str, str]]:
    cache: dict[str, dict[str, str]] = {}

    def headers(scope: str) -> dict[str, str]:
        if scope not in cache:
            cache[scope] = {"Authorization": f"Bearer {issue_token(scope)['access_token']}"}
        return cache[scope]

    return headers


AUTH_CASES = [
    ("key pair", 200),
    ("token api promotions", 200),
    ("token api", 401),
    ("token promotions", 401),
    ("token loyalties", 401),
    ("garbage token", 401),
    ("wrong app token", 401),
    ("management keys", 401),
    ("nothing", 401),
]


def auth_headers(case: str, key_headers: dict, management_headers: dict, bearer: Callable) -> dict:
    if case == "key pair":
        return key_headers
    if case.startswith("token "):
        return bearer(case.removeprefix("token "))
    if case == "garbage token":
        return {"Authorization": "Bearer not-a-token"}
    if case == "wrong app token":
        return key_headers | {"X-App-Token": "wrong"}
    if case == "management keys":
        return management_headers
    return {}


@pytest.mark.parametrize(("case", "status"), AUTH_CASES)
def test_auth_matrix(
    sandbox: Sandbox,
    key_headers: dict,
    management_headers: dict,
    bearer: Callable,
    case: str,
    status: int,
) -> None:
    headers = auth_headers(case, key_headers, management_headers, bearer)
    listed = httpx.get(f"{sandbox.base_url}/v1/promotions/tiers", headers=headers, verify=TLS)
    validated = post(sandbox, headers, "promo_NwTier0001", json={"order": BASKET})
    assert (listed.status_code, validated.status_code) == (status, status)
    if status == 401:
        assert validated.json()["key"] == "unauthorized"


def test_expired_token_is_refused(restore: Sandbox, issue_token: Callable) -> None:
    token = issue_token("api promotions")
    headers = {"Authorization": f"Bearer {token['access_token']}"}
    assert post(restore, headers, "promo_NwTier0001", json={}).status_code == 200
    restore.advance_clock(token["expires_in"] + 1)
    assert post(restore, headers, "promo_NwTier0001", json={}).status_code == 401


# -- listing ------------------------------------------------------------------------


def get_tiers(sandbox: Sandbox, headers: dict, **params: Any) -> httpx.Response:
    return httpx.get(
        f"{sandbox.base_url}/v1/promotions/tiers", headers=headers, params=params, verify=TLS
    )


def test_list_every_tier(sandbox: Sandbox, key_headers: dict) -> None:
    body = get_tiers(sandbox, key_headers, limit=100).json()
    assert (body["object"], body["data_ref"], body["total"], body["has_more"]) == (
        "list",
        "tiers",
        12,
        False,
    )
    PromotionTierList.model_validate(body)
    newest = body["tiers"][0]
    assert newest["id"] == "promo_NwTier0012"  # default order: newest first
    assert newest["action"]["discount"]["type"] == "PERCENT"
    assert newest["campaign"]["id"] == newest["promotion_id"] == "camp_NwPromoMain"


def test_list_pages_cover_everything_once(sandbox: Sandbox, key_headers: dict) -> None:
    seen: list[str] = []
    for page in (1, 2, 3):
        body = get_tiers(sandbox, key_headers, limit=5, page=page, order="created_at").json()
        seen += [tier["id"] for tier in body["tiers"]]
        assert body["has_more"] is (page < 3)
    assert seen == [f"promo_NwTier{n:04d}" for n in range(1, 13)]


def test_list_available_tiers(sandbox: Sandbox, key_headers: dict) -> None:
    body = get_tiers(sandbox, key_headers, is_available="true", limit=100).json()
    assert sorted(t["id"] for t in body["tiers"]) == [f"promo_NwTier{n:04d}" for n in range(1, 8)]
    assert get_tiers(sandbox, key_headers, is_available="false").json()["total"] == 12


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"page": 0}, "page"),
        ({"page": 101}, "page"),
        ({"order": "name"}, "order"),
        ({"is_available": "maybe"}, "is_available"),
    ],
)
def test_list_bad_parameters(sandbox: Sandbox, key_headers: dict, params: dict, field: str) -> None:
    response = get_tiers(sandbox, key_headers, **params)
    assert response.status_code == 400
    assert response.json()["details"].startswith(field)


# -- stored orders (a program of our own) ----------------------------------------------

PROGRAM = {
    "format": "lyt-program/1",
    "now": "2026-01-15T12:00:00Z",
    "products": [{"id": "prod_0a01", "source_id": "cup", "name": "Cup", "price": 700}],
    "customers": [{"id": "cust_Zoe", "source_id": "zoe", "metadata": {"segment": "vip"}}],
    "orders": [
        {
            "id": "ord_0a01",
            "source_id": "shop-1",
            "created_at": "now-1d",
            "status": "PAID",
            "customer_id": "cust_Zoe",
            "items": [{"product_id": "prod_0a01", "quantity": 3}],
        }
    ],
    "campaigns": [
        {"id": "camp_Later", "type": "PROMOTION", "active": True, "start_date": "now+5d"},
        {"id": "camp_Now", "type": "PROMOTION", "active": True},
    ],
    "promotion_tiers": [
        {
            "id": "promo_Half",
            "name": "Half off cups",
            "campaign_id": "camp_Now",
            "hierarchy": 1,
            "discount": {"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"},
            "applicable_to": [{"object": "product", "id": "prod_0a01"}],
            "created_at": "now-2d",
        },
        {
            "id": "promo_Later",
            "name": "Not yet",
            "campaign_id": "camp_Later",
            "hierarchy": 1,
            "discount": {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ORDER"},
            "created_at": "now-2d",
        },
    ],
}


@pytest.fixture(scope="module")
def own() -> Iterator[Sandbox]:
    with Sandbox.start(data=PROGRAM, seed=1) as sb:
        yield sb


@pytest.mark.parametrize("ref", [{"id": "ord_0a01"}, {"source_id": "shop-1"}])
def test_stored_order_by_reference(own: Sandbox, ref: dict) -> None:
    creds = own.credentials
    headers = {"X-App-Id": creds.app_id, "X-App-Token": creds.app_token}
    response = post(
        own, headers, "promo_Half", json={"customer": {"source_id": "zoe"}, "order": ref}
    )
    result = response.json()
    assert response.status_code == 200 and result["valid"] is True, result
    order = result["order"]
    assert (order["id"], order["source_id"], order["status"]) == ("ord_0a01", "shop-1", "PAID")
    assert (order["amount"], order["items_discount_amount"], order["total_amount"]) == (
        2100,
        1050,
        1050,
    )
    assert order["items"][0]["discount_amount"] == 1050
    assert result["applicable_to"]["data"] == [
        {"object": "product", "id": "prod_0a01", "source_id": "cup", "effect": "APPLY_TO_EVERY"}
    ]


def test_campaign_not_started(own: Sandbox) -> None:
    creds = own.credentials
    headers = {"X-App-Id": creds.app_id, "X-App-Token": creds.app_token}
    result = post(own, headers, "promo_Later", json={"order": {"amount": 1000}}).json()
    assert (result["valid"], result["reason"]) == (False, "campaign not started")
