"""Tests of the pydantic models: defaults, wire form, request checks, unions, examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

import lyt_toolkit.models as m
from lyt_toolkit.models.common import ApiModel

REFERENCE = Path(__file__).resolve().parents[1] / "reference"
EXAMPLES = Path(__file__).resolve().parent / "examples"
TS = "2026-01-15T12:00:00Z"


def _reference(name: str) -> dict[str, Any]:
    return json.loads((REFERENCE / f"{name}.subset.openapi.json").read_text())


def _examples(name: str) -> dict[str, Any]:
    """Our own example answers (tests/models/examples), each in the exact wire form."""
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def _locs(exc: ValidationError) -> set[tuple]:
    return {tuple(e["loc"]) for e in exc.errors()}


# ---- defaults -------------------------------------------------------------------------


def test_minimal_card_definition_gets_server_defaults() -> None:
    card = m.CardDefinition.model_validate(
        {"id": "lcdef_1a", "name": "Coffee", "status": "ACTIVE", "created_at": TS}
    )
    wire = card.wire()
    assert wire["points_expiration"] == {"type": "NO_EXPIRATION"}
    assert wire["pending_points"] == {"type": "IMMEDIATE"}
    for side in ("earning_limits", "spending_limits"):
        assert wire[side] == {
            "global": {"type": "NO_LIMIT", "limits": []},
            "transactions": {"type": "NO_LIMIT", "limits": []},
        }
    assert wire["refunds"]["spent_points"]["type"] == "NONE"
    assert wire["refunds"]["earned_points"]["type"] == "NONE"
    assert wire["balance_settings"] == {"allow_negative": False}
    assert wire["pay_with_points"] == {"type": "NO_PAYMENTS"}
    assert wire["metadata"] == {}
    assert set(wire["code_config"]) == {"pattern", "length", "charset", "prefix", "postfix"}
    assert wire["updated_at"] is None
    assert wire["object"] == "card_definition"
    assert card.earning_limits.global_.type == m.enums.LimitsType.NO_LIMIT
    assert not card.has_pending_points


def test_minimal_reward_gets_server_defaults() -> None:
    reward = m.Reward.model_validate(
        {"id": "lrew_1", "name": "Mug", "type": "MATERIAL", "status": "ACTIVE", "created_at": TS}
    )
    wire = reward.wire()
    assert wire["validity_hours"] == {"type": "ANY_TIME"}
    assert wire["refunds"] == {"type": "NONE"}
    assert wire["costs"] == []
    assert wire["metadata"] == {}
    assert wire["start_date"] is None and wire["end_date"] is None and wire["updated_at"] is None
    assert "material" not in wire and "digital" not in wire


def test_minimal_benefit_and_tier_structure() -> None:
    benefit = m.Benefit.model_validate(
        {
            "id": "lben_1",
            "name": "Bonus",
            "type": "POINTS",
            "status": "DRAFT",
            "points": {"value": 10, "card_definition_id": "lcdef_1"},
            "created_at": TS,
        }
    )
    assert benefit.config == benefit.points
    assert set(benefit.wire()) == {
        "id", "name", "type", "status", "points", "created_at", "updated_at", "object",
    }  # fmt: skip
    tiers = m.TierStructure.model_validate(
        {"id": "lts_1", "name": "T", "type": "POINT_BALANCE", "status": "ACTIVE",
         "point_balance": {"card_definition_id": "lcdef_1"}, "created_at": TS}
    )  # fmt: skip
    wire = tiers.wire()
    assert wire["metadata"] == {}
    assert "point_earned" not in wire
    assert tiers.card_definition_id == "lcdef_1"


# ---- wire() ---------------------------------------------------------------------------


def test_wire_drops_omitted_fields_but_keeps_nullable_timestamps() -> None:
    benefit = m.Benefit(
        id="lben_2",
        name="Coupon",
        type="DIGITAL",
        status="ACTIVE",
        digital={"type": "DISCOUNT_COUPONS", "discount_coupons": {"campaign_id": "camp_1"}},
        created_at=TS,
    )
    wire = benefit.wire()
    for absent in ("stock", "points", "points_proportional", "material"):
        assert absent not in wire
    assert wire["updated_at"] is None
    assert wire["digital"] == {
        "type": "DISCOUNT_COUPONS",
        "discount_coupons": {"campaign_id": "camp_1"},
    }
    stock = m.BenefitStock(type="UNLIMITED")
    assert stock.wire() == {"type": "UNLIMITED"}


def test_wire_keeps_each_odd_or_unset_field_exactly_as_the_service_sends_it() -> None:
    """Omitted when None (set or not), ``null`` kept, and kept-as-received fields: the
    exact JSON text, so a change of how models are serialized shows here."""
    campaign = m.Campaign.model_validate(
        {"id": "camp_1", "name": None, "start_date": None, "extra_key": None}
    )
    assert json.dumps(campaign.wire()) == (
        '{"id": "camp_1", "start_date": null, "object": "campaign", "extra_key": null}'
    )
    order = m.Order.model_validate({"source_id": None, "amount": None, "customer_id": "c_1"})
    assert json.dumps(order.wire()) == (
        '{"source_id": null, "items": [], "metadata": {}, "customer_id": "c_1", "object": "order"}'
    )
    assert m.Order(id="ord_1").wire()["id"] == "ord_1"
    error = m.ErrorObject(code=404, message="Not found", key=None, details="lrew_1")
    assert json.dumps(error.wire()) == '{"code": 404, "message": "Not found", "details": "lrew_1"}'
    category = m.Category(id="cat_1")
    assert category.model_dump() == {"id": "cat_1", "name": None, "object": "category"}


def test_timestamps_are_utc_with_z_and_milliseconds() -> None:
    reward = m.Reward.model_validate(
        {"id": "lrew_1", "name": "Mug", "type": "MATERIAL", "status": "ACTIVE",
         "created_at": "2026-01-15T14:00:00.5+02:00", "start_date": "2026-01-01T00:00:00"}
    )  # fmt: skip
    wire = reward.wire()
    assert wire["created_at"] == "2026-01-15T12:00:00.500Z"
    assert wire["start_date"] == "2026-01-01T00:00:00.000Z"
    offset = reward.created_at.utcoffset()
    assert offset is not None and offset.total_seconds() == 0


def test_unknown_fields_and_values_are_tolerated_on_responses() -> None:
    reward = m.Reward.model_validate(
        {"id": "lrew_1", "name": "Mug", "type": "MATERIAL", "status": "ACTIVE", "created_at": TS,
         "brand_new_field": {"x": 1}, "refunds": {"type": "SOMETHING_NEW"}}
    )  # fmt: skip
    wire = reward.wire()
    assert wire["brand_new_field"] == {"x": 1}
    assert wire["refunds"] == {"type": "SOMETHING_NEW"}


# ---- BenefitCreate --------------------------------------------------------------------

POINTS = {"value": 5, "card_definition_id": "lcdef_ab12"}


def test_benefit_create_body_drops_none_and_defaults_status() -> None:
    body = m.BenefitCreate(name="Five", type="POINTS", points=POINTS).body()
    assert body == {"name": "Five", "type": "POINTS", "status": "DRAFT", "points": POINTS}


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        ({"name": "x", "type": "POINTS"}, ("points",)),
        ({"name": "x", "type": "MATERIAL", "points": POINTS}, ("points",)),
        ({"name": "x", "type": "MATERIAL", "points": POINTS}, ("material",)),
        ({"name": "", "type": "POINTS", "points": POINTS}, ("name",)),
        ({"name": "n" * 201, "type": "POINTS", "points": POINTS}, ("name",)),
        (
            {"name": "x", "type": "POINTS", "points": {**POINTS, "card_definition_id": "lcdef_XY"}},
            ("points", "card_definition_id"),
        ),
        ({"name": "x", "type": "POINTS", "points": POINTS, "colour": "red"}, ("colour",)),
        ({"name": "x", "type": "POINTS", "points": {**POINTS, "bonus": 1}}, ("points",)),
        ({"name": "x", "type": "POINTS", "points": POINTS, "status": "DELETED"}, ("status",)),
        ({"name": "x", "type": "POINTS", "points": POINTS, "stock": {"limited": {"quantity": -1}}},
         ("stock", "limited", "quantity")),
    ],
)  # fmt: skip
def test_benefit_create_errors_name_the_field(
    payload: dict[str, Any], loc: tuple[str, ...]
) -> None:
    with pytest.raises(ValidationError) as info:
        m.BenefitCreate.model_validate(payload)
    assert loc in _locs(info.value)


def test_benefit_create_accepts_boundaries_and_each_type() -> None:
    assert m.BenefitCreate(name="n" * 200, type="POINTS", points=POINTS).name == "n" * 200
    material = m.BenefitCreate(name="m", type="MATERIAL", material={"product": {"id": "prod_1"}})
    assert material.body()["material"] == {"type": "PRODUCT", "product": {"id": "prod_1"}}
    digital = m.BenefitCreate(
        name="d",
        type="DIGITAL",
        digital={"gift_vouchers": {"campaign_id": "camp_1", "balance": 10}},
    )
    assert digital.body()["digital"]["type"] == "GIFT_VOUCHERS"
    proportional = m.BenefitCreate(
        name="p",
        type="POINTS_PROPORTIONAL",
        points_proportional={
            "card_definition_id": "lcdef_1",
            "order": {"amount": {"every": 100, "value": 1.5}},
        },
    )
    assert proportional.body()["points_proportional"]["order"]["amount"]["value"] == 1.5
    zero = m.BenefitCreate(
        name="z", type="POINTS", points=POINTS, stock={"limited": {"quantity": 0}}
    )
    assert zero.body()["stock"] == {"type": "LIMITED", "limited": {"quantity": 0}}


# ---- discounts and validation results --------------------------------------------------

DISCOUNTS = [
    ({"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"}, m.AmountDiscount),
    ({"type": "PERCENT", "percent_off": 10, "amount_limit": 1000}, m.PercentDiscount),
    ({"type": "FIXED", "fixed_amount": 900, "effect": "APPLY_TO_ITEMS"}, m.FixedDiscount),
    (
        {"type": "UNIT", "unit_off": 1, "unit_type": "prod_1", "effect": "ADD_NEW_ITEMS",
         "product": {"id": "prod_1", "source_id": "p1", "name": "Cup"}},
        m.UnitDiscount,
    ),
    (
        {"type": "UNIT", "effect": "ADD_MANY_ITEMS",
         "units": [{"unit_off": 1, "unit_type": "sku_1", "effect": "ADD_MISSING_ITEMS"}]},
        m.UnitMultipleDiscount,
    ),
    ({"type": "UNIT", "unit_off": 1, "unit_type": "prod_5h1pp1ng"}, m.ShippingDiscount),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "cls"), DISCOUNTS)
def test_discount_union_picks_the_variant(raw: dict[str, Any], cls: type[ApiModel]) -> None:
    discount = TypeAdapter(m.Discount).validate_python(raw)
    assert type(discount) is cls
    wire = discount.wire()
    assert {k: wire[k] for k in raw} == raw


def test_discount_union_rejects_unknown_type() -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(m.Discount).validate_python({"type": "BOGUS"})


@pytest.mark.parametrize(
    ("flag", "cls"),
    [(True, m.ValidTierResult), ("true", m.ValidTierResult), (False, m.InvalidTierResult),
     ("false", m.InvalidTierResult)],
)  # fmt: skip
def test_validation_result_discriminates_on_valid(flag: object, cls: type[ApiModel]) -> None:
    result = TypeAdapter(m.TierValidationResult).validate_python({"valid": flag, "id": "promo_1"})
    assert type(result) is cls
    assert result.wire()["valid"] is (cls is m.ValidTierResult)


def test_invalid_result_error_is_error_object_or_custom_message() -> None:
    adapter = TypeAdapter(m.TierValidationResult)
    err = adapter.validate_python(
        {"valid": False, "id": "p", "error": {"code": 400, "key": "k", "message": "no"}}
    )
    assert isinstance(err, m.InvalidTierResult)
    assert isinstance(err.error, m.ErrorObject)
    custom = adapter.validate_python({"valid": False, "id": "p", "error": {"message": "closed"}})
    assert isinstance(custom, m.InvalidTierResult)
    assert type(custom.error) is m.CustomMessage


# ---- auth -----------------------------------------------------------------------------


def test_access_token_repr_hides_the_token() -> None:
    token = m.AccessToken(
        access_token="s3cr3t-value",
        client_id="c",
        expires_at=1,
        expires_in=60,
        scope="api loyalties",
    )
    assert "s3cr3t-value" not in repr(token)
    assert "s3cr3t-value" not in str(token)
    assert token.access_token == "s3cr3t-value"
    assert token.authorization == "Bearer s3cr3t-value"
    assert token.scopes == {"api", "loyalties"}


def test_token_request_scopes() -> None:
    assert m.TokenRequest(scope=["api", "loyalties"]).form() == {
        "grant_type": "client_credentials",
        "scope": "api loyalties",
    }
    with pytest.raises(ValidationError, match="spaces, not commas"):
        m.TokenRequest(scope="api,loyalties")
    with pytest.raises(ValidationError, match="unknown scope"):
        m.TokenRequest(scope="api wizardry")
    with pytest.raises(ValidationError):
        m.TokenRequest(scope="api", grant_type="password")


# ---- lists and errors ------------------------------------------------------------------


def test_page_and_lists() -> None:
    page = m.Page[m.Benefit].model_validate(
        {"data": [], "cursor": {"next": "lcrsben_1", "expires_at": TS}, "object": "list"}
    )
    assert page.next_cursor == "lcrsben_1"
    assert page.wire()["cursor"] == {"next": "lcrsben_1", "expires_at": "2026-01-15T12:00:00.000Z"}
    assert m.Page[m.Benefit].model_validate({"data": [], "cursor": None}).next_cursor is None
    tiers = m.PromotionTierList.model_validate(
        {"tiers": [{"id": "promo_1", "action": {"discount": {"type": "PERCENT", "percent_off": 5}}}],  # noqa: E501
         "total": 1, "has_more": False}
    )  # fmt: skip
    assert tiers.data_ref == "tiers"
    assert isinstance(tiers.tiers[0].effective_discount, m.PercentDiscount)
    hooks = m.WebhookList.model_validate(
        {"data": [{"id": "wh_1", "target_url": "https://x", "events": ["voucher.created"]}],
         "total": 1}
    )  # fmt: skip
    assert hooks.data[0].active is True


def test_error_object_omits_unset_optionals() -> None:
    err = m.ErrorObject(code=404, key="not_found", message="Resource not found")
    assert err.wire() == {"code": 404, "key": "not_found", "message": "Resource not found"}


# ---- example answers --------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(_examples("tier_validation_results")))
def test_validation_example_round_trips(name: str) -> None:
    raw = _examples("tier_validation_results")[name]
    adapter = TypeAdapter(m.TierValidationResult)
    parsed = adapter.validate_python(raw)
    assert isinstance(parsed, m.ValidTierResult if raw["valid"] else m.InvalidTierResult)
    assert parsed.wire() == raw
    assert adapter.validate_python(parsed.wire()).wire() == raw


LOYALTY_EXAMPLES: dict[str, type[ApiModel]] = {
    "activation_result": m.ActivationResult,
    "pending_points_page": m.Page[m.PendingBucket],
    "reward": m.Reward,
    "member_with_cards": m.MemberWithCards,
    "error_not_found": m.ErrorObject,
    "error_locked": m.ErrorObject,
}


@pytest.mark.parametrize("name", sorted(LOYALTY_EXAMPLES))
def test_loyalty_example_round_trips(name: str) -> None:
    raw = _examples("loyalty_answers")[name]
    cls = LOYALTY_EXAMPLES[name]
    assert cls.model_validate(raw).wire() == raw
    assert cls.model_validate(cls.model_validate(raw).wire()).wire() == raw


REQUIRED_CHECKS: dict[str, type[ApiModel]] = {
    "CardDefinition": m.CardDefinition,
    "RewardResponse": m.Reward,
    "Benefit": m.Benefit,
    "TierStructure": m.TierStructure,
    "Member": m.Member,
    "CardPendingPointsBucket": m.PendingBucket,
    "CardTransaction": m.CardTransaction,
    "CardSimple": m.Card,
    "MemberCard": m.MemberCard,
    "CardPendingPointsActivationResponse": m.ActivationResult,
}


@pytest.mark.parametrize("schema", sorted(REQUIRED_CHECKS))
def test_reference_required_properties_are_model_fields(schema: str) -> None:
    doc = _reference("loyalties-v2")
    spec = doc["components"]["schemas"][schema]
    model = REQUIRED_CHECKS[schema]
    names = {f.alias or name for name, f in model.model_fields.items()}
    missing = set(spec.get("required", [])) - names
    assert not missing, f"{model.__name__} lacks {sorted(missing)}"
    optional_missing = set(spec.get("properties", {})) - names
    assert not optional_missing, f"{model.__name__} lacks optional {sorted(optional_missing)}"


def test_public_names_are_exported() -> None:
    for name in ("ApiModel", "RequestModel", "Page", "Cursor", "Discount", "TierValidationResult",
                 "BenefitCreate", "RewardCost", "RewardCostSpending", "ValidityHours",
                 "BenefitStock", "BenefitPoints", "PointsProportional", "BenefitMaterial",
                 "BenefitDigital", "Project", "Webhook", "CustomerRef", "OrderRef", "Order",
                 "OrderItem", "Campaign", "PromotionTier", "TierValidationRequest"):  # fmt: skip
        assert name in m.__all__, name


def test_benefit_response_is_lenient_about_config_objects() -> None:
    raw = {"id": "lben_3", "name": "Odd", "type": "POINTS", "status": "ACTIVE", "created_at": TS}
    assert m.Benefit.model_validate(raw).config is None
