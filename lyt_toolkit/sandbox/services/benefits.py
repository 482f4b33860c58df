"""Benefits: reading one, and creating one after the service's name and reference checks."""

from __future__ import annotations

from typing import Any

from ...models import BenefitCreate
from ...models.enums import BenefitStatus, BenefitType, CardDefinitionStatus, DigitalBenefitType
from ...models.ids import IdPrefix
from ..errors import ServiceError, bad_request, locked, not_found
from ..loader import create_resource
from ..state import SandboxState


def benefit_json(state: SandboxState, benefit_id: str) -> str:
    """A benefit that is not deleted (a listed one), as its stored JSON, or 404."""
    body = state.store.get_json("benefits", benefit_id, listed=True)
    if body is None:
        raise not_found("benefit", benefit_id)
    return body


def create_benefit(state: SandboxState, body: BenefitCreate) -> dict[str, Any]:
    """Create a benefit after checking the name and every resource it references.

    409 for a name already taken, 404 for a missing reference, 423 for an ACTIVE
    benefit on a card definition that is not ACTIVE.
    """
    request = body.body()
    with state.store.transaction():
        if state.store.name_taken("benefits", request["name"]):
            raise ServiceError(
                409,
                "duplicate_found",
                "Duplicate found",
                f"A benefit named {request['name']!r} already exists",
            )
        card_definition = _check_references(state, request)
        if (
            request.get("status") == BenefitStatus.ACTIVE
            and card_definition is not None
            and card_definition["status"] != CardDefinitionStatus.ACTIVE
        ):
            raise locked(
                f"Card definition {card_definition['id']} is {card_definition['status']};"
                " an ACTIVE benefit needs an ACTIVE card definition"
            )
        return create_resource(state.store, "benefits", _new_benefit(state, request))


def _card_definition_id(request: dict[str, Any]) -> str | None:
    kind = request["type"]
    if kind == BenefitType.POINTS:
        return request["points"]["card_definition_id"]
    if kind == BenefitType.POINTS_PROPORTIONAL:
        return request["points_proportional"]["card_definition_id"]
    return None


def _check_references(state: SandboxState, request: dict[str, Any]) -> dict[str, Any] | None:
    """404 for anything referenced that does not exist; the card definition if any."""
    store = state.store
    card_definition_id = _card_definition_id(request)
    if card_definition_id is not None:
        card_definition = store.get("card_definitions", card_definition_id)
        if card_definition is None or card_definition["status"] == CardDefinitionStatus.DELETED:
            raise not_found("card_definition", card_definition_id)
        return card_definition
    if request["type"] == BenefitType.MATERIAL:
        material = request["material"]
        if "product" in material and store.get("products", material["product"]["id"]) is None:
            raise not_found("product", material["product"]["id"])
        if "sku" in material:
            sku = store.get("skus", material["sku"]["id"])
            if sku is None or sku.get("product_id") != material["sku"]["product_id"]:
                raise not_found("sku", material["sku"]["id"])
    if request["type"] == BenefitType.DIGITAL:
        for key, expected in (
            ("gift_vouchers", DigitalBenefitType.GIFT_VOUCHERS),
            ("discount_coupons", DigitalBenefitType.DISCOUNT_COUPONS),
        ):
            if key in request["digital"]:
                campaign_id = request["digital"][key]["campaign_id"]
                campaign = store.get("campaigns", campaign_id)
                if campaign is None:
                    raise not_found("campaign", campaign_id)
                if campaign.get("type") != expected:
                    raise bad_request(
                        f"digital.{key}.campaign_id: campaign {campaign_id} is a"
                        f" {campaign.get('type')} campaign, not {expected.value}",
                        "invalid_campaign_type",
                    )
    return None


# calculation type -> (group, the entry of that group it reads)
_CALCULATIONS = {
    "PRE_DISCOUNT_ORDER_AMOUNT": ("order", "amount"),
    "POST_DISCOUNT_ORDER_AMOUNT": ("order", "total_amount"),
    "ORDER_METADATA_VALUE": ("order", "metadata"),
    "CUSTOMER_METADATA_VALUE": ("customer", "metadata"),
    "CUSTOM_EVENT_METADATA_VALUE": ("custom_event", "metadata"),
    "PRE_DISCOUNT_ORDER_ITEMS_AMOUNT": ("order_items", "amount"),
    "POST_DISCOUNT_ORDER_ITEMS_AMOUNT": ("order_items", "subtotal_amount"),
    "ORDER_ITEMS_QUANTITY": ("order_items", "quantity"),
}
_GROUPS = ("order", "customer", "custom_event", "order_items")


def _calculation_type(config: dict[str, Any]) -> str:
    """The calculation a proportional benefit uses: given, or read off its one rule.

    The service answers with exactly one rule group, the one its calculation
    type reads; a body that leaves this ambiguous is refused.
    """
    where = "points_proportional"
    rules = [
        (group, entry)
        for group in _GROUPS
        for entry, value in (config.get(group) or {}).items()
        if value is not None
    ]
    given = config.get("calculation_type")
    if given is None:
        matches = [c for c, rule in _CALCULATIONS.items() if [rule] == rules]
        if len(matches) != 1:
            raise bad_request(
                f"{where}: give exactly one rule (e.g. order.amount) or a calculation_type"
            )
        return matches[0]
    if given not in _CALCULATIONS:
        raise bad_request(f"{where}.calculation_type: {given!r} is not a calculation type")
    group, entry = _CALCULATIONS[given]
    if (group, entry) not in rules:
        raise bad_request(f"{where}.{group}.{entry}: required when calculation_type is {given}")
    others = sorted({g for g, _ in rules} - {group})
    if others:
        raise bad_request(f"{where}.{others[0]}: not used when calculation_type is {given}")
    return str(given)


def _new_benefit(state: SandboxState, request: dict[str, Any]) -> dict[str, Any]:
    kind = request["type"]
    doc: dict[str, Any] = {
        "id": state.ids.new(IdPrefix.BENEFIT),
        "name": request["name"],
        "type": kind,
        "status": request.get("status", BenefitStatus.DRAFT.value),
        "created_at": state.now_iso(),
        "updated_at": None,
        "object": "benefit",
    }
    stock = request.get("stock")
    doc["stock"] = (
        {"type": "LIMITED", **stock} if stock and stock.get("limited") else {"type": "UNLIMITED"}
    )
    config_key = kind.lower()
    config = dict(request[config_key])
    if kind == BenefitType.POINTS_PROPORTIONAL:
        config = {k: v for k, v in config.items() if v is not None}
        config["calculation_type"] = _calculation_type(config)
    if kind == BenefitType.DIGITAL:
        config.setdefault(
            "type",
            DigitalBenefitType.GIFT_VOUCHERS.value
            if "gift_vouchers" in config
            else DigitalBenefitType.DISCOUNT_COUPONS.value,
        )
    if kind == BenefitType.MATERIAL:
        config.setdefault("type", "PRODUCT")
    doc[config_key] = config
    return doc
