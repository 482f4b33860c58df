"""The promotion engine on worked examples: every discount variant, every invalid reason.

Pure and fast: the engine works on plain dicts, so these tests need no server.
Amounts are integers in cents throughout.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from lyt_toolkit.sandbox.promotions import (
    InMemoryCatalog,
    ListParameterError,
    ReferenceNotFound,
    list_tiers,
    tracking_id,
    validate_tier,
)
from lyt_toolkit.sandbox.promotions.money import percent_of, split
from lyt_toolkit.sandbox.promotions.orders import Customer

NOW = "2026-01-15T12:00:00Z"
P1, P2, SHIP, S1 = "prod_0001", "prod_0002", "prod_5h1pp1ng", "sku_0101"

CATALOG = InMemoryCatalog(
    products=[
        {"id": P1, "source_id": "mug", "name": "Mug", "price": 1000},
        {"id": P2, "source_id": "kit", "name": "Kit", "price": 2500},
        {"id": SHIP, "source_id": "5h1pp1ng", "name": "Shipping", "price": 599},
    ],
    skus=[
        {"id": S1, "source_id": "mug-black", "sku": "Mug Black", "product_id": P1, "price": 1200}
    ],
    customers=[
        {"id": "cust_alice", "source_id": "alice", "metadata": {"segment": "vip"}},
        {"id": "cust_nosource", "metadata": {}},
    ],
    orders=[
        {
            "id": "ord_0001",
            "source_id": "web-1",
            "created_at": "2026-01-10T09:00:00.000Z",
            "status": "PAID",
            "items": [{"product_id": P1, "quantity": 2}],
        }
    ],
)
CAMPAIGN = {"id": "camp_main", "active": True, "start_date": None, "expiration_date": None}
BASKET = {"items": [{"product_id": P1, "quantity": 2}, {"product_id": P2, "quantity": 1}]}  # 4500


def tier(discount: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "id": "promo_0001",
        "name": "Test tier",
        "banner": "Save",
        "campaign_id": CAMPAIGN["id"],
        "hierarchy": 1,
        "active": True,
        "discount": discount,
        "metadata": {"k": "v"},
    } | fields


def run(
    the_tier: dict[str, Any],
    order: dict[str, Any] | None = None,
    *,
    customer: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    campaign: dict[str, Any] | None = None,
    now: str = NOW,
) -> dict[str, Any]:
    request = {
        "customer": customer,
        "order": BASKET if order is None else order,
        "metadata": metadata,
    }
    return validate_tier(
        the_tier,
        campaign=campaign or CAMPAIGN,
        request=request,
        catalog=CATALOG,
        now=now,
        request_id="req_test",
    )


def amounts(result: dict[str, Any]) -> tuple[int, int, int]:
    assert result["valid"] is True, result.get("reason")
    order = result["order"]
    return result["discount_amount"], result["applied_discount_amount"], order["total_amount"]


def line_discounts(result: dict[str, Any]) -> list[int]:
    return [item["discount_amount"] for item in result["order"]["items"]]


def assert_consistent(result: dict[str, Any]) -> None:
    """The order's own arithmetic holds and nothing goes below zero."""
    order = result["order"]
    for item in order["items"]:
        assert item["subtotal_amount"] == item["amount"] - item["discount_amount"] >= 0
        assert item["applied_discount_amount"] == item["discount_amount"]
    assert order["items_discount_amount"] == sum(i["discount_amount"] for i in order["items"])
    assert order["total_amount"] == order["amount"] - order["total_discount_amount"] >= 0
    assert result["applied_discount_amount"] == order["total_applied_discount_amount"]


# -- AMOUNT -----------------------------------------------------------------------


def test_amount_off_the_order() -> None:
    result = run(tier({"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"}))
    assert amounts(result) == (500, 500, 4000)
    assert result["order"]["discount_amount"] == 500
    assert result["order"]["items_discount_amount"] == 0
    assert line_discounts(result) == [0, 0]
    assert_consistent(result)


def test_amount_larger_than_the_order_stops_at_zero() -> None:
    result = run(tier({"type": "AMOUNT", "amount_off": 10_000, "effect": "APPLY_TO_ORDER"}))
    assert amounts(result) == (10_000, 4500, 0)
    assert_consistent(result)


def test_amount_off_each_item_line() -> None:
    result = run(tier({"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ITEMS"}))
    assert amounts(result) == (600, 600, 3900)
    assert line_discounts(result) == [300, 300]
    assert [i["discount_quantity"] for i in result["order"]["items"]] == [2, 1]
    assert "discount_amount" not in {k for k in result["order"] if k == "applied_discount_amount"}
    assert_consistent(result)


def test_amount_off_each_unit() -> None:
    result = run(
        tier({"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"})
    )
    assert amounts(result) == (900, 900, 3600)
    assert line_discounts(result) == [600, 300]


def test_amount_per_unit_never_exceeds_the_line() -> None:
    result = run(
        tier({"type": "AMOUNT", "amount_off": 3000, "effect": "APPLY_TO_ITEMS_BY_QUANTITY"})
    )
    assert amounts(result) == (9000, 4500, 0)
    assert line_discounts(result) == [2000, 2500]
    assert_consistent(result)


def test_amount_spread_proportionally_to_line_amounts() -> None:
    # 1000 over lines of 2000 and 2500: 444.44 and 555.56; the spare cent -> larger remainder
    result = run(
        tier({"type": "AMOUNT", "amount_off": 1000, "effect": "APPLY_TO_ITEMS_PROPORTIONALLY"})
    )
    assert amounts(result) == (1000, 1000, 3500)
    assert line_discounts(result) == [444, 556]


def test_amount_spread_proportionally_to_quantities() -> None:
    effect = "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY"
    result = run(tier({"type": "AMOUNT", "amount_off": 1000, "effect": effect}))
    assert amounts(result) == (1000, 1000, 3500)
    assert line_discounts(result) == [667, 333]


# -- PERCENT ----------------------------------------------------------------------


def test_percent_of_the_order() -> None:
    result = run(tier({"type": "PERCENT", "percent_off": 15, "effect": "APPLY_TO_ORDER"}))
    assert amounts(result) == (675, 675, 3825)


def test_percent_capped_by_amount_limit() -> None:
    discount = {
        "type": "PERCENT",
        "percent_off": 15,
        "amount_limit": 500,
        "effect": "APPLY_TO_ORDER",
    }
    assert amounts(run(tier(discount))) == (500, 500, 4000)


def test_percent_of_items_capped_per_line() -> None:
    discount = {
        "type": "PERCENT",
        "percent_off": 10,
        "amount_limit": 150,
        "effect": "APPLY_TO_ITEMS",
    }
    result = run(tier(discount))
    assert amounts(result) == (300, 300, 4200)
    assert line_discounts(result) == [150, 150]


def test_percent_of_items_with_aggregated_limit() -> None:
    discount = {"type": "PERCENT", "percent_off": 20, "aggregated_amount_limit": 450}
    result = run(tier(discount | {"effect": "APPLY_TO_ITEMS"}))
    assert amounts(result) == (450, 450, 4050)
    assert line_discounts(result) == [200, 250]  # 400 and 500 scaled to 450


def test_percent_rounds_half_up_to_the_cent() -> None:
    assert percent_of(1003, 15) == 150  # 150.45
    assert percent_of(1004, 12.5) == 126  # 125.5
    assert percent_of(1001, "33.3") == 333  # 333.333
    order = {"amount": 1005}
    result = run(tier({"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"}), order)
    assert amounts(result) == (101, 101, 904)  # 100.5 -> 101


def test_split_always_adds_up() -> None:
    for total, weights in [(1000, [1, 1, 1]), (7, [3, 3]), (1, [5, 5, 5]), (999, [2000, 2500, 17])]:
        shares = split(total, weights)
        assert sum(shares) == total
        assert all(s >= 0 for s in shares)
    assert split(10, [0, 0]) == [0, 0]


# -- FIXED ------------------------------------------------------------------------


def test_fixed_order_total() -> None:
    result = run(tier({"type": "FIXED", "fixed_amount": 999, "effect": "APPLY_TO_ORDER"}))
    assert amounts(result) == (3501, 3501, 999)


def test_fixed_total_above_the_order_changes_nothing() -> None:
    result = run(tier({"type": "FIXED", "fixed_amount": 9999, "effect": "APPLY_TO_ORDER"}))
    assert amounts(result) == (0, 0, 4500)


def test_fixed_unit_price_of_items() -> None:
    result = run(tier({"type": "FIXED", "fixed_amount": 800, "effect": "APPLY_TO_ITEMS"}))
    assert amounts(result) == (2100, 2100, 2400)
    assert line_discounts(result) == [400, 1700]
    assert_consistent(result)


# -- UNIT, UNIT multiple, SHIPPING -------------------------------------------------


def test_unit_adds_a_missing_product_for_free() -> None:
    discount = {"type": "UNIT", "unit_off": 1, "effect": "ADD_MISSING_ITEMS", "unit_type": P2}
    result = run(tier(discount), {"items": [{"product_id": P1, "quantity": 2}]})
    assert amounts(result) == (2500, 2500, 2000)
    order = result["order"]
    assert (order["initial_amount"], order["amount"]) == (2000, 4500)
    added = order["items"][1]
    assert added["product_id"] == P2 and added["related_object"] == "product"
    assert added["product"] == {"id": P2, "source_id": "kit", "name": "Kit", "price": 2500}
    assert (added["quantity"], added["initial_quantity"], added["discount_quantity"]) == (1, 0, 1)
    assert (added["amount"], added["initial_amount"], added["subtotal_amount"]) == (2500, 0, 0)
    assert result["discount"]["product"] == {"id": P2, "source_id": "kit", "name": "Kit"}
    assert_consistent(result)


def test_unit_tops_up_a_line_already_in_the_order() -> None:
    discount = {"type": "UNIT", "unit_off": 3, "effect": "ADD_MISSING_ITEMS", "unit_type": P1}
    result = run(tier(discount), {"items": [{"product_id": P1, "quantity": 2}]})
    line = result["order"]["items"][0]
    assert (line["quantity"], line["initial_quantity"], line["discount_quantity"]) == (3, 2, 3)
    assert amounts(result) == (3000, 3000, 0)


def test_unit_missing_items_are_not_added_when_enough_are_there() -> None:
    discount = {"type": "UNIT", "unit_off": 1, "effect": "ADD_MISSING_ITEMS", "unit_type": P1}
    result = run(tier(discount))
    assert result["order"]["items"][0]["quantity"] == 2
    assert amounts(result) == (1000, 1000, 3500)


def test_unit_new_sku_items_at_the_sku_price() -> None:
    discount = {"type": "UNIT", "unit_off": 2, "effect": "ADD_NEW_ITEMS", "unit_type": S1}
    result = run(tier(discount))
    added = result["order"]["items"][-1]
    assert (added["sku_id"], added["product_id"], added["related_object"]) == (S1, P1, "sku")
    assert (added["price"], added["quantity"], added["amount"]) == (1200, 2, 2400)
    assert added["sku"]["sku"] == "Mug Black"
    assert amounts(result) == (2400, 2400, 4500)
    assert result["discount"]["sku"] == {"id": S1, "source_id": "mug-black", "sku": "Mug Black"}


def test_unit_multiple_adds_every_unit() -> None:
    discount = {
        "type": "UNIT",
        "effect": "ADD_MANY_ITEMS",
        "units": [
            {"unit_off": 1, "effect": "ADD_MISSING_ITEMS", "unit_type": P2},
            {"unit_off": 2, "effect": "ADD_NEW_ITEMS", "unit_type": S1},
        ],
    }
    result = run(tier(discount), {"items": [{"product_id": P1, "quantity": 1}]})
    assert amounts(result) == (2500 + 2400, 4900, 1000)
    assert [i.get("sku_id") or i["product_id"] for i in result["order"]["items"]] == [P1, P2, S1]
    assert [u["product"]["name"] for u in result["discount"]["units"]] == ["Kit", "Mug"]
    assert_consistent(result)


SHIPPING = {"type": "UNIT", "unit_off": 1, "effect": "ADD_MISSING_ITEMS", "unit_type": SHIP}


def test_shipping_discounts_the_shipping_line() -> None:
    items = [
        {"product_id": P2, "quantity": 2},
        {"source_id": "5h1pp1ng", "related_object": "product", "quantity": 1},
    ]
    result = run(tier(SHIPPING), {"items": items})
    assert amounts(result) == (599, 599, 5000)
    shipping = result["order"]["items"][1]
    assert shipping["product_id"] == SHIP and shipping["subtotal_amount"] == 0
    assert len(result["order"]["items"]) == 2


def test_shipping_line_is_added_when_missing() -> None:
    result = run(tier(SHIPPING))
    assert amounts(result) == (599, 599, 4500)
    assert result["order"]["items"][-1]["product"]["name"] == "Shipping"


def test_shipping_without_a_stored_shipping_product_is_free() -> None:
    bare = InMemoryCatalog(products=[{"id": P1, "name": "Mug", "price": 1000}])
    result = validate_tier(
        tier(SHIPPING),
        campaign=CAMPAIGN,
        request={"order": {"items": [{"product_id": P1}]}},
        catalog=bare,
        now=NOW,
        request_id="r",
    )
    assert amounts(result) == (0, 0, 1000)


def test_item_effects_leave_the_shipping_line_alone() -> None:
    items = [{"product_id": P1, "quantity": 1}, {"product_id": SHIP, "quantity": 1}]
    result = run(
        tier({"type": "PERCENT", "percent_off": 50, "effect": "APPLY_TO_ITEMS"}), {"items": items}
    )
    assert line_discounts(result) == [500, 0]


# -- applicable_to / inapplicable_to ---------------------------------------------------


def test_applicable_to_limits_item_effects_and_is_echoed() -> None:
    the_tier = tier(
        {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ITEMS"},
        applicable_to=[{"object": "product", "id": P2}],
    )
    result = run(the_tier)
    assert line_discounts(result) == [0, 100]
    assert result["applicable_to"] == {
        "data": [{"object": "product", "id": P2, "source_id": "kit", "effect": "APPLY_TO_EVERY"}],
        "total": 1,
        "data_ref": "data",
        "object": "list",
    }
    assert result["inapplicable_to"]["total"] == 0


def test_inapplicable_to_excludes_lines() -> None:
    the_tier = tier(
        {"type": "AMOUNT", "amount_off": 100, "effect": "APPLY_TO_ITEMS"},
        inapplicable_to=[{"object": "sku", "id": S1}],
    )
    order = {"items": [{"sku_id": S1, "quantity": 1}, {"product_id": P2, "quantity": 1}]}
    result = run(the_tier, order)
    assert line_discounts(result) == [0, 100]
    assert result["inapplicable_to"]["data"] == [
        {"object": "sku", "id": S1, "source_id": "mug-black", "effect": "APPLY_TO_EVERY"}
    ]


# -- the valid result as a whole -------------------------------------------------------


def test_valid_result_shape() -> None:
    categories = [{"id": "cat_1", "name": "Club", "hierarchy": 1, "created_at": NOW}]
    campaign = CAMPAIGN | {"categories": categories, "start_date": "2025-01-01T00:00:00Z"}
    result = run(tier({"type": "AMOUNT", "amount_off": 1}), campaign=campaign)
    assert list(result) == [
        "valid", "applicable_to", "inapplicable_to", "tracking_id", "order", "id", "name", "banner",
        "discount", "campaign", "hierarchy", "discount_amount", "applied_discount_amount",
        "metadata", "object",
    ]  # fmt: skip
    assert result["object"] == "promotion_tier" and result["metadata"] == {"k": "v"}
    assert result["campaign"] == {
        "id": "camp_main",
        "start_date": "2025-01-01T00:00:00.000Z",
        "active": True,
        "categories": categories[0] | {"object": "category"},
        "object": "campaign",
    }
    order = result["order"]
    assert order["status"] == "CREATED" and order["object"] == "order"
    assert not {"id", "source_id", "created_at", "updated_at"} & set(order)  # an inline order
    assert [i["object"] for i in order["items"]] == ["order_item", "order_item"]


def test_tier_dates_are_shown_when_set() -> None:
    the_tier = tier({"type": "AMOUNT", "amount_off": 1}, start_date="2026-01-01T00:00:00Z")
    result = run(the_tier)
    assert result["start_date"] == "2026-01-01T00:00:00.000Z"
    assert "expiration_date" not in result


# -- invalid results ---------------------------------------------------------------


AMOUNT = {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"}
PAST, FUTURE = "2025-06-01T00:00:00Z", "2026-06-01T00:00:00Z"


@pytest.mark.parametrize(
    ("the_tier", "campaign", "reason"),
    [
        (tier(AMOUNT), CAMPAIGN | {"active": False}, "campaign inactive"),
        (tier(AMOUNT), CAMPAIGN | {"start_date": FUTURE}, "campaign not started"),
        (tier(AMOUNT), CAMPAIGN | {"expiration_date": PAST}, "campaign expired"),
        (tier(AMOUNT, active=False), CAMPAIGN, "promotion tier inactive"),
        (tier(AMOUNT, start_date=FUTURE), CAMPAIGN, "promotion tier not started"),
        (tier(AMOUNT, expiration_date=PAST), CAMPAIGN, "promotion tier expired"),
    ],
)
def test_dates_and_switches(the_tier: dict, campaign: dict, reason: str) -> None:
    result = run(the_tier, campaign=campaign)
    assert result["valid"] is False
    assert result["reason"] == reason
    error = result["error"]
    assert error["code"] == 400 and error["key"] == "redemption_rules_violated"
    assert error["request_id"] == "req_test" and error["message"] and error["details"]


def rules(*rule_list: dict[str, Any], message: str | None = None) -> dict[str, Any]:
    return {"rules": list(rule_list), "error": {"message": message} if message else None}


@pytest.mark.parametrize(
    ("validation_rules", "request_kwargs", "reason"),
    [
        (
            rules({"kind": "redemption_metadata_required", "keys": ["store"]}),
            {},
            "redemption metadata missing",
        ),
        (rules({"kind": "order_amount", "min": 5000}), {}, "order amount below minimum"),
        (
            rules({"kind": "order_amount", "min": 100, "max": 4499}),
            {},
            "order amount above maximum",
        ),
        (
            rules({"kind": "customer_metadata", "key": "segment", "equals": "staff"}),
            {"customer": {"id": "cust_alice"}},
            "customer metadata mismatch",
        ),
        (
            rules({"kind": "customer_metadata", "key": "segment", "equals": "vip"}),
            {"customer": {"source_id": "stranger"}},
            "customer metadata mismatch",
        ),
        (rules({"kind": "weather", "is": "sunny"}), {}, "unsupported validation rule"),
    ],
)
def test_validation_rules(validation_rules: dict, request_kwargs: dict, reason: str) -> None:
    result = run(tier(AMOUNT, validation_rules=validation_rules), **request_kwargs)
    assert result["valid"] is False
    assert result["reason"] == reason
    assert result["error"]["key"] == "redemption_rules_violated"
    assert result["error"]["details"].startswith("Validation rule val_")


def test_rules_that_hold_give_a_valid_result() -> None:
    validation_rules = rules(
        {"kind": "redemption_metadata_required", "keys": ["store"]},
        {"kind": "order_amount", "min": 4500, "max": 4500},
        {"kind": "customer_metadata", "key": "segment", "equals": "vip"},
    )
    result = run(
        tier(AMOUNT, validation_rules=validation_rules),
        customer={"source_id": "alice"},
        metadata={"store": "s-1"},
    )
    assert result["valid"] is True


def test_request_customer_metadata_counts() -> None:
    validation_rules = rules({"kind": "customer_metadata", "key": "segment", "equals": "vip"})
    customer = {"source_id": "new-person", "metadata": {"segment": "vip"}}
    assert run(tier(AMOUNT, validation_rules=validation_rules), customer=customer)["valid"] is True


def test_rule_list_forms_are_accepted() -> None:
    bare_list = [{"kind": "order_amount", "min": 5000}]
    sets = [{"id": "val_custom1", "rules": bare_list}]
    assert run(tier(AMOUNT, validation_rules=bare_list))["reason"] == "order amount below minimum"
    result = run(tier(AMOUNT, validation_rules=sets))
    assert "val_custom1" in result["error"]["details"]


def test_invalid_result_shape() -> None:
    result = run(tier(AMOUNT), campaign=CAMPAIGN | {"active": False, "categories": [{"id": "c"}]})
    assert list(result) == [
        "valid", "reason", "error", "tracking_id", "id", "name", "banner", "discount", "campaign",
        "hierarchy", "metadata", "object",
    ]  # fmt: skip
    for absent in (
        "order",
        "applicable_to",
        "inapplicable_to",
        "discount_amount",
        "applied_discount_amount",
    ):
        assert absent not in result
    assert "categories" not in result["campaign"]
    assert result["campaign"]["active"] is False


def test_custom_message_replaces_the_error_object() -> None:
    validation_rules = rules({"kind": "order_amount", "min": 9000}, message="Spend $90 first.")
    result = run(tier(AMOUNT, validation_rules=validation_rules))
    assert result["reason"] == "order amount below minimum"
    assert result["error"] == {"message": "Spend $90 first."}


def test_custom_message_also_answers_date_failures() -> None:
    the_tier = tier(AMOUNT, start_date=FUTURE, validation_rules=rules(message="Starts soon."))
    result = run(the_tier)
    assert (result["reason"], result["error"]) == (
        "promotion tier not started",
        {"message": "Starts soon."},
    )


def test_start_is_inclusive_and_expiration_exclusive() -> None:
    at = "2026-01-15T12:00:00Z"
    assert run(tier(AMOUNT, start_date=at))["valid"] is True
    assert run(tier(AMOUNT, expiration_date=at))["reason"] == "promotion tier expired"


def test_campaign_is_judged_before_the_tier_and_dates_before_rules() -> None:
    the_tier = tier(
        AMOUNT, active=False, validation_rules=rules({"kind": "order_amount", "min": 10**9})
    )
    assert run(the_tier, campaign=CAMPAIGN | {"active": False})["reason"] == "campaign inactive"
    assert run(the_tier)["reason"] == "promotion tier inactive"


# -- tracking id -------------------------------------------------------------------


def test_tracking_id_hashes_the_customer_source_id() -> None:
    expected = "track_" + hashlib.sha256(b"alice").hexdigest()[:32]
    by_id = run(tier(AMOUNT), customer={"id": "cust_alice"})["tracking_id"]
    by_source = run(tier(AMOUNT), customer={"source_id": "alice"})["tracking_id"]
    invalid = run(tier(AMOUNT, active=False), customer={"source_id": "alice", "name": "A"})
    assert by_id == by_source == invalid["tracking_id"] == expected


def test_tracking_id_of_anonymous_and_source_less_customers() -> None:
    anonymous = run(tier(AMOUNT))["tracking_id"]
    assert anonymous == tracking_id(Customer()) == "track_" + hashlib.sha256(b"").hexdigest()[:32]
    no_source = run(tier(AMOUNT), customer={"id": "cust_nosource"})["tracking_id"]
    assert no_source == "track_" + hashlib.sha256(b"cust_nosource").hexdigest()[:32]
    assert (
        len({anonymous, no_source, run(tier(AMOUNT), customer={"source_id": "bob"})["tracking_id"]})
        == 3
    )


def test_customer_id_wins_over_source_id() -> None:
    result = run(tier(AMOUNT), customer={"id": "cust_alice", "source_id": "someone-else"})
    assert result["tracking_id"] == "track_" + hashlib.sha256(b"alice").hexdigest()[:32]
    assert result["order"]["customer_id"] == "cust_alice"


# -- order and customer references ----------------------------------------------------


def test_order_by_id_uses_the_stored_order() -> None:
    result = run(tier(AMOUNT), {"id": "ord_0001"})
    order = result["order"]
    assert (order["id"], order["source_id"], order["status"]) == ("ord_0001", "web-1", "PAID")
    assert order["created_at"] == "2026-01-10T09:00:00.000Z"
    assert (order["amount"], order["total_amount"]) == (2000, 1500)


def test_order_by_source_id_and_id_winning() -> None:
    assert run(tier(AMOUNT), {"source_id": "web-1"})["order"]["id"] == "ord_0001"
    assert run(tier(AMOUNT), {"id": "ord_0001", "source_id": "nope"})["order"]["id"] == "ord_0001"


@pytest.mark.parametrize(
    ("order", "customer", "missing"),
    [
        ({"id": "ord_missing"}, None, ("order", "ord_missing")),
        ({"source_id": "web-404"}, None, ("order", "web-404")),
        ({"items": [{"product_id": "prod_nope"}]}, None, ("product", "prod_nope")),
        ({"items": [{"sku_id": "sku_nope"}]}, None, ("sku", "sku_nope")),
        (None, {"id": "cust_nope"}, ("customer", "cust_nope")),
    ],
)
def test_missing_references_raise(
    order: dict | None, customer: dict | None, missing: tuple
) -> None:
    with pytest.raises(ReferenceNotFound) as caught:
        run(tier(AMOUNT), order or BASKET, customer=customer)
    assert (caught.value.resource_type, caught.value.resource_id) == missing


def test_missing_reference_wins_over_an_invalid_tier() -> None:
    with pytest.raises(ReferenceNotFound):
        run(tier(AMOUNT, active=False), {"id": "ord_missing"})


def test_order_body_with_amount_only() -> None:
    result = run(tier(AMOUNT), {"amount": 2000})
    assert result["order"]["items"] == []
    assert amounts(result) == (500, 500, 1500)


def test_order_body_amount_wins_over_items_sum() -> None:
    result = run(tier(AMOUNT), {"amount": 9000, "items": [{"product_id": P1, "quantity": 1}]})
    assert (result["order"]["amount"], result["order"]["initial_amount"]) == (9000, 9000)


def test_no_order_is_an_empty_order() -> None:
    result = validate_tier(
        tier(AMOUNT), campaign=CAMPAIGN, request={}, catalog=CATALOG, now=NOW, request_id="r"
    )
    assert amounts(result) == (500, 0, 0)


def test_item_prices_and_references() -> None:
    items = [
        {"source_id": "mug", "related_object": "product", "quantity": 1},  # known by source ID
        {"source_id": "mug-black", "related_object": "sku", "quantity": 1},  # SKU by source ID
        {"source_id": "gift-wrap", "quantity": 2, "price": 150},  # unknown: priced as sent
        {"product_id": P2, "quantity": 1, "price": 2000},  # sent price wins
        {"source_id": "card", "amount": 700},  # price derived from amount
    ]
    result = run(tier(AMOUNT), {"items": items})
    lines = result["order"]["items"]
    assert [line["price"] for line in lines] == [1000, 1200, 150, 2000, 700]
    assert [line["amount"] for line in lines] == [1000, 1200, 300, 2000, 700]
    assert lines[0]["product_id"] == P1 and lines[1]["sku_id"] == S1
    assert "product" not in lines[2] and lines[2]["source_id"] == "gift-wrap"
    assert result["order"]["amount"] == 5200


# -- never below zero ----------------------------------------------------------------


@pytest.mark.parametrize(
    "discount",
    [
        {"type": "AMOUNT", "amount_off": 99_999, "effect": effect}
        for effect in (
            "APPLY_TO_ORDER",
            "APPLY_TO_ITEMS",
            "APPLY_TO_ITEMS_BY_QUANTITY",
            "APPLY_TO_ITEMS_PROPORTIONALLY",
            "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY",
        )
    ]
    + [
        {"type": "PERCENT", "percent_off": 150, "effect": "APPLY_TO_ORDER"},
        {"type": "PERCENT", "percent_off": 150, "effect": "APPLY_TO_ITEMS"},
        {"type": "FIXED", "fixed_amount": 0, "effect": "APPLY_TO_ORDER"},
        {"type": "FIXED", "fixed_amount": 0, "effect": "APPLY_TO_ITEMS"},
        {"type": "UNIT", "unit_off": 5, "effect": "ADD_NEW_ITEMS", "unit_type": P2},
        SHIPPING,
    ],
)
def test_totals_never_go_negative(discount: dict) -> None:
    for order in (
        BASKET,
        {"items": [{"product_id": P1, "quantity": 1, "price": 1}]},
        {"amount": 0},
    ):
        result = run(tier(discount), order)
        assert_consistent(result)
        assert result["applied_discount_amount"] <= result["order"]["amount"]


# -- listing ----------------------------------------------------------------------


def listed_tier(number: int, created: str, **fields: Any) -> dict[str, Any]:
    return tier(AMOUNT, id=f"promo_{number:04d}", created_at=created, updated_at=None) | fields


TIERS = [
    listed_tier(1, "2026-01-01T00:00:00Z"),
    listed_tier(2, "2026-01-03T00:00:00Z", updated_at="2026-01-06T00:00:00Z"),
    listed_tier(3, "2026-01-02T00:00:00Z", active=False),
    listed_tier(4, "2026-01-05T00:00:00Z", expiration_date=PAST),
    listed_tier(
        5, "2026-01-04T00:00:00Z", validation_rules=rules({"kind": "order_amount", "min": 1})
    ),
]


def ids(page: dict[str, Any]) -> list[str]:
    return [t["id"][-1] for t in page["tiers"]]


def test_list_envelope_and_default_order() -> None:
    page = list_tiers(TIERS, [CAMPAIGN])
    assert (page["object"], page["data_ref"], page["total"], page["has_more"]) == (
        "list",
        "tiers",
        5,
        False,
    )
    assert ids(page) == ["4", "5", "2", "3", "1"]  # newest first
    first = page["tiers"][0]
    assert first["action"] == {"discount": AMOUNT}
    assert first["promotion_id"] == first["campaign_id"] == "camp_main"
    assert first["campaign"]["object"] == "campaign" and first["object"] == "promotion_tier"
    assert first["validation_rule_assignments"] == {
        "object": "list",
        "data_ref": "data",
        "data": [],
        "total": 0,
    }
    assignments = page["tiers"][1]["validation_rule_assignments"]
    assert assignments["total"] == 1
    assert assignments["data"][0]["related_object_type"] == "promotion_tier"


def test_list_pages_and_order() -> None:
    first = list_tiers(TIERS, [CAMPAIGN], limit=2, page=1, order="created_at")
    second = list_tiers(TIERS, [CAMPAIGN], limit="2", page="2", order="created_at")
    last = list_tiers(TIERS, [CAMPAIGN], limit=2, page=3, order="created_at")
    assert ids(first) + ids(second) + ids(last) == ["1", "3", "2", "5", "4"]
    assert (first["has_more"], second["has_more"], last["has_more"]) == (True, True, False)
    assert list_tiers(TIERS, [CAMPAIGN], order="-updated_at")["tiers"][0]["id"] == "promo_0002"


def test_list_available_only() -> None:
    page = list_tiers(TIERS, {"camp_main": CAMPAIGN}, is_available=True, now=NOW)
    assert sorted(ids(page)) == ["1", "2", "5"]
    assert page["total"] == 3
    assert list_tiers(TIERS, [CAMPAIGN], is_available="false")["total"] == 5
    paused = list_tiers(TIERS, [CAMPAIGN | {"active": False}], is_available="true", now=NOW)
    assert paused["total"] == 0


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": "1.5"}, "limit"),
        ({"page": 0}, "page"),
        ({"page": 101}, "page"),
        ({"order": "name"}, "order"),
        ({"order": "--created_at"}, "order"),
        ({"is_available": "maybe"}, "is_available"),
    ],
)
def test_list_parameter_errors_name_the_parameter(kwargs: dict, parameter: str) -> None:
    with pytest.raises(ListParameterError) as caught:
        list_tiers(TIERS, [CAMPAIGN], now=NOW, **kwargs)
    assert caught.value.parameter == parameter
    assert str(caught.value).startswith(parameter)
    assert isinstance(caught.value, ValueError)
