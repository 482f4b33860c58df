"""``BenefitForm``: create one benefit, with every error shown next to its field."""

from __future__ import annotations

import html
from functools import partial
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .. import actions
from ..models.benefits import BENEFIT_TYPE_FIELDS, DIGITAL_TYPE_FIELDS
from ..models.enums import BenefitCreateStatus, BenefitType, DigitalBenefitType
from ._background import LoadsWhenShown
from ._messages import describe_error, enum_text, error_html, ok_html, status_html
from ._results import failure_text
from ._taken import Taken

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["BenefitForm"]

_LOADING = status_html("Loading card definitions\u2026", "running")
_STILL_LOADING = error_html(
    "The card definitions are still loading: try again when they are shown."
)


class BenefitForm(LoadsWhenShown, w.VBox):
    """A form over ``actions.create_benefits`` for a single benefit.

    The card definitions load on the first display or on Refresh (never in the
    constructor), ACTIVE ones first; the first ACTIVE one is the default.
    ``submit`` sends its two calls at once (no background worker: a single
    create is short), the create and a read of what it created, and shows the outcome
    inline.
    Choosing a type swaps in that type's fields. The body is checked locally
    before anything is sent; the service's answers (409 duplicate name, 423
    locked card definition, 404 missing reference) appear next to the field
    they concern. ``errors[column]`` holds each field's error label.
    """

    def __init__(self, client: LoyaltyClient) -> None:
        self.client = client
        style = {"description_width": "150px"}
        self.name_input = w.Text(description="Name", style=style)
        self.type_select = w.Dropdown(
            options=[t.value for t in BenefitType], value="POINTS", description="Type", style=style
        )
        self.status_select = w.Dropdown(
            options=[s.value for s in BenefitCreateStatus], description="Status", style=style
        )
        self.stock_quantity = w.Text(
            description="Stock quantity", placeholder="empty = unlimited", style=style
        )
        self.card_definition = w.Dropdown(description="Card definition", style=style)
        self._definition = Taken[str | None](self.card_definition)
        """The card definition chosen: a load keeps it chosen without reading the dropdown."""
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.points_value = w.IntText(value=100, description="Points", style=style)
        self.order_every = w.IntText(value=100, description="Every order amount", style=style)
        self.order_value = w.FloatText(value=1.0, description="Points per step", style=style)
        self.product_id = w.Text(description="Product ID", placeholder="prod_...", style=style)
        self.sku_id = w.Text(description="SKU ID (optional)", placeholder="sku_...", style=style)
        self.digital_type = w.Dropdown(
            options=[t.value for t in DigitalBenefitType], description="Digital type", style=style
        )
        self.campaign_id = w.Text(description="Campaign ID", placeholder="camp_...", style=style)
        self.balance = w.FloatText(value=0.0, description="Balance", style=style)
        self.submit_button = w.Button(description="Create benefit", button_style="primary")
        self.message = w.HTML()
        self.result = w.HTML()

        self._inputs = {
            "name": self.name_input,
            "type": self.type_select,
            "status": self.status_select,
            "stock_quantity": self.stock_quantity,
            "card_definition_id": self.card_definition,
            "points_value": self.points_value,
            "order_amount_every": self.order_every,
            "order_amount_value": self.order_value,
            "product_id": self.product_id,
            "sku_id": self.sku_id,
            "digital_type": self.digital_type,
            "campaign_id": self.campaign_id,
            "balance": self.balance,
        }
        self.errors: dict[str, w.HTML] = {column: w.HTML() for column in self._inputs}
        self._rows = {c: w.HBox([widget, self.errors[c]]) for c, widget in self._inputs.items()}
        self._rows["card_definition_id"].children = (
            self.card_definition,
            self.refresh_button,
            self.errors["card_definition_id"],
        )
        self.type_fields = w.VBox()

        self.refresh_button.on_click(lambda _: self.refresh_in_background())
        self.type_select.observe(lambda _: self._show_type_fields(), names="value")
        self.digital_type.observe(lambda _: self._show_type_fields(), names="value")
        self.submit_button.on_click(lambda _: self.submit())
        self._show_type_fields()
        super().__init__(
            [
                self._rows["name"],
                self._rows["type"],
                self.type_fields,
                self._rows["status"],
                self._rows["stock_quantity"],
                self.submit_button,
                self.message,
                self.result,
            ]
        )

    # -- layout ---------------------------------------------------------------------------

    def refresh(self) -> None:
        """Load the card definitions, ACTIVE ones first; the one chosen stays chosen if it is
        still listed, else the first is (an ACTIVE one when there is any)."""
        try:
            found = list(self.client.card_definitions.iter(limit=100))
        except Exception as exc:  # the form still works with IDs typed elsewhere
            self.message.value = error_html(
                f"Could not load card definitions: {describe_error(exc)}"
            )
            return
        found.sort(key=lambda c: enum_text(c.status) != "ACTIVE")  # stable: service order kept
        options = [(f"{c.name} ({enum_text(c.status)})", c.id) for c in found]
        self._shows((), partial(self._list_definitions, options))

    def _list_definitions(self, options: list[tuple[str, str]]) -> None:
        """List ``options``, the card definition chosen kept if still listed, else the first."""
        chosen = self._definition.value
        self.card_definition.options = options
        ids = [value for _, value in options]
        self.card_definition.value = chosen if chosen in ids else (ids[0] if ids else None)

    def show_loading(self, loading: bool) -> None:
        self.refresh_button.disabled = loading
        self.submit_button.disabled = loading
        if loading:
            self.message.value = _LOADING
        elif self.message.value in (_LOADING, _STILL_LOADING):  # no longer true
            self.message.value = ""

    def show_load_error(self, text: str) -> None:
        self.message.value = error_html(text)

    def _type_columns(self) -> list[str]:
        kind = BenefitType(self.type_select.value)
        if kind == BenefitType.DIGITAL:
            digital = DigitalBenefitType(self.digital_type.value)
            return ["digital_type", *DIGITAL_TYPE_FIELDS[digital]]
        return list(BENEFIT_TYPE_FIELDS[kind].fields)

    def _show_type_fields(self) -> None:
        self.type_fields.children = [self._rows[c] for c in self._type_columns()]
        self.clear_errors()

    def clear_errors(self) -> None:
        """Blank every field's error label and the form message.

        Runs before each submit and on every type switch, so no error from an
        earlier attempt, or from a field that is now hidden, is left showing.
        """
        for label in self.errors.values():
            label.value = ""
        self.message.value = ""

    # -- submit ---------------------------------------------------------------------------

    def row(self) -> dict[str, Any]:
        """The form's values in the flat benefit form (only the chosen type's fields)."""
        values: dict[str, Any] = {
            "name": self.name_input.value,
            "type": self.type_select.value,
            "status": self.status_select.value,
            "stock_quantity": self.stock_quantity.value.strip(),
        }
        for column in self._type_columns():
            value = self._inputs[column].value
            values[column] = "" if value is None else value
        if self.type_select.value == BenefitType.MATERIAL:
            values["product_id"] = values["product_id"].strip()
            values["sku_id"] = values["sku_id"].strip()
        return values

    def submit(self) -> None:
        """Validate locally, then create; show the outcome inline.

        Two calls, sent from the click handler: the create and, once it succeeded, a read
        of the benefit created (the table shows what the service holds); the button is
        disabled until the create is answered, so a second click cannot create the benefit
        twice. Refused while the card definitions load.
        """
        if self.loading:
            self.message.value = _STILL_LOADING
            return
        self.clear_errors()
        self.result.value = ""
        plan = actions.create_benefits([self.row()])
        self.submit_button.disabled = True
        try:
            results = plan.execute(self.client, concurrency=1, progress=False)
        except Exception as exc:  # refused unsent (the budget...): a handler's would only log
            self.message.value = error_html(f"Not created: {describe_error(exc)}")
            return
        finally:
            self.submit_button.disabled = False
        outcome = results.iloc[0]
        if outcome.outcome == actions.Outcome.SUCCEEDED:
            self._show_created(str(outcome.resource_id))
            return
        field = outcome.field if isinstance(outcome.field, str) else None
        text = failure_text(outcome.status, outcome.error_key, outcome.message)
        if field in self.errors:
            self.errors[field].value = error_html(text)
            self.message.value = error_html("Not created: see the highlighted field.")
        else:
            self.message.value = error_html(f"Not created: {text}")

    def _show_created(self, benefit_id: str) -> None:
        try:
            benefit = self.client.benefits.get(benefit_id)
        except Exception as exc:  # created all the same: say so, or a second click follows
            text = f"Created {benefit_id}; could not read it back: {describe_error(exc)}"
            self.message.value = ok_html(text)
            return
        self.message.value = ok_html("Created.")
        self.result.value = (
            "<table class='lyt-table'><tr><th>id</th><th>name</th><th>type</th><th>status</th></tr>"
            f"<tr><td>{html.escape(benefit.id)}</td><td>{html.escape(benefit.name)}</td>"
            f"<td>{benefit.type.value}</td><td>{benefit.status.value}</td></tr></table>"
        )
        self.created = benefit
