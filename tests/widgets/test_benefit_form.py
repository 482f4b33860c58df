"""BenefitForm: type-specific fields, inline errors, the created benefit."""

from __future__ import annotations

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.widgets import BenefitForm


def _errors(form: BenefitForm) -> dict[str, str]:
    return {field: label.value for field, label in form.errors.items() if label.value}


def _shown(form: BenefitForm) -> list[str]:
    return [row.children[0].description for row in form.type_fields.children]


def _form(client: LoyaltyClient) -> BenefitForm:
    """A form with its card definitions loaded, as the first display or Refresh does."""
    form = BenefitForm(client)
    form.refresh_button.click()
    form.wait()
    return form


def test_active_card_definitions_come_first_and_one_is_the_default(
    client: LoyaltyClient,
) -> None:
    served = [(c.id, str(c.status)) for c in client.card_definitions.iter(limit=100)]
    assert served[0][1] != "ACTIVE"  # the service lists a DRAFT one first
    form = BenefitForm(client)
    assert form.card_definition.options == ()  # nothing loaded by the constructor
    form.refresh_button.click()
    form.wait()
    labels = [label for label, _ in form.card_definition.options]
    actives = [label.endswith("(ACTIVE)") for label in labels]
    assert actives == sorted(actives, reverse=True) and not all(actives)
    first_active = next(i for i, status in served if status == "ACTIVE")
    assert form.card_definition.value == first_active
    form.card_definition.value = "lcdef_c0ffee0001"
    form.refresh_button.click()  # a Refresh keeps the user's choice
    form.wait()
    assert form.card_definition.value == "lcdef_c0ffee0001"


def test_type_swaps_fields(client: LoyaltyClient) -> None:
    form = _form(client)
    assert _shown(form) == ["Card definition", "Points"]
    assert ("Northwind Beans (ACTIVE)", "lcdef_c0ffee0001") in form.card_definition.options
    form.type_select.value = "POINTS_PROPORTIONAL"
    assert _shown(form) == ["Card definition", "Every order amount", "Points per step"]
    form.type_select.value = "MATERIAL"
    assert _shown(form) == ["Product ID", "SKU ID (optional)"]
    form.type_select.value = "DIGITAL"
    form.digital_type.value = "GIFT_VOUCHERS"
    assert _shown(form) == ["Digital type", "Campaign ID", "Balance"]
    form.digital_type.value = "DISCOUNT_COUPONS"
    assert _shown(form) == ["Digital type", "Campaign ID"]


def test_local_validation_blocks_submit(client: LoyaltyClient) -> None:
    before = len(list(client.benefits.iter(limit=100)))
    form = _form(client)
    form.submit_button.click()
    assert list(_errors(form)) == ["name"]
    form.name_input.value = "Stocked"
    form.stock_quantity.value = "-3"
    form.submit_button.click()
    assert list(_errors(form)) == ["stock_quantity"]
    assert len(list(client.benefits.iter(limit=100))) == before


def test_server_errors_show_next_to_their_field(client: LoyaltyClient) -> None:
    form = _form(client)
    form.name_input.value = "Welcome Bonus 100 Beans"
    form.submit_button.click()
    assert list(_errors(form)) == ["name"] and "409" in form.errors["name"].value

    form.name_input.value = "Holiday launch"
    form.status_select.value = "ACTIVE"
    form.card_definition.value = "lcdef_c0ffee0004"  # DRAFT card definition
    form.submit_button.click()
    assert list(_errors(form)) == ["card_definition_id"]
    assert "423" in form.errors["card_definition_id"].value

    form.type_select.value = "MATERIAL"
    form.product_id.value = "prod_0b1e55edffff"
    form.submit_button.click()
    assert list(_errors(form)) == ["product_id"] and "404" in form.errors["product_id"].value

    form.type_select.value = "DIGITAL"
    form.digital_type.value = "GIFT_VOUCHERS"
    form.campaign_id.value = "camp_NwCoupons01"
    form.balance.value = 1000
    form.submit_button.click()
    assert list(_errors(form)) == ["campaign_id"]


def test_success_shows_the_created_benefit(client: LoyaltyClient) -> None:
    form = _form(client)
    form.name_input.value = "Form Gift Card"
    form.type_select.value = "DIGITAL"
    form.digital_type.value = "GIFT_VOUCHERS"
    form.campaign_id.value = "camp_NwGiftCards01"
    form.balance.value = 2500
    form.status_select.value = "ACTIVE"
    form.stock_quantity.value = "10"
    form.submit_button.click()
    assert _errors(form) == {}
    created = form.created
    assert created.id in form.result.value and "Form Gift Card" in form.result.value
    assert "ACTIVE" in form.result.value
    stored = client.benefits.get(created.id)
    assert stored.digital is not None and stored.digital.gift_vouchers is not None
    assert stored.stock is not None and stored.stock.limited is not None
    assert stored.digital.gift_vouchers.balance == 2500 and stored.stock.limited.quantity == 10


def test_submit_is_disabled_while_its_request_is_in_flight(client: LoyaltyClient) -> None:
    form = _form(client)
    form.name_input.value = "Form Once"
    seen: list[bool] = []
    form.submit_button.observe(lambda change: seen.append(change["new"]), names="disabled")
    form.submit_button.click()
    assert seen == [True, False]  # disabled for the request, enabled once answered
    assert form.created.name == "Form Once"
