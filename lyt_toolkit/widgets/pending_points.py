"""``PendingPointsPanel``: program -> member -> card -> pending buckets, then activate."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as w

from .. import actions
from ._common import PlanPanel, enum_text

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import PendingBucket

__all__ = ["PendingPointsPanel"]

_CHOOSE = ("-- choose --", None)
RESULTS_VIEW = (
    "target",
    "points",
    "date",
    "outcome",
    "status",
    "transaction_id",
    "activation_status",
    "message",
)


class PendingPointsPanel(PlanPanel):
    """Activate pending point buckets ahead of their date.

    Each activation creates a PENDING_POINTS_ACTIVATED transaction; buckets the
    service refuses (423: date not in the future, inactive program or member,
    card definition without pending points) are listed with the reason.
    """

    def __init__(self, client: LoyaltyClient) -> None:
        super().__init__(client, progress_label="Activating")
        self.program_select = w.Dropdown(options=[_CHOOSE], description="Program")
        self.member_select = w.Dropdown(options=[_CHOOSE], description="Member")
        self.card_select = w.Dropdown(options=[_CHOOSE], description="Card")
        self.buckets_select = w.SelectMultiple(
            options=[], rows=8, description="Buckets", layout=w.Layout(width="640px")
        )
        self.activate_button = w.Button(
            description="Activate selected", button_style="primary", disabled=True
        )
        self._buckets: dict[str, PendingBucket] = {}

        # A new choice drops the last message; a failed load shows as the status, not as a
        # traceback from the observer.
        self.program_select.observe(lambda _: self._choose(self._load_members, "members"), "value")
        self.member_select.observe(lambda _: self._choose(self._load_cards, "cards"), "value")
        self.card_select.observe(lambda _: self._choose(self._load_buckets, "buckets"), "value")
        self.buckets_select.observe(
            lambda _: setattr(self.activate_button, "disabled", not self.buckets_select.value),
            names="value",
        )
        self.activate_button.on_click(lambda _: self.activate())
        self.children = [
            self.program_select,
            self.member_select,
            self.card_select,
            self.buckets_select,
            self.activate_button,
            self.status,
            self.progress,
            self.results_html,
        ]
        self.guard(self._load_programs, "programs")

    def _choose(self, load: Callable[[], None], what: str) -> None:
        self.status.value = ""
        self.guard(load, what)

    def _load_programs(self) -> None:
        programs = list(self.client.programs.iter(limit=100))
        self.program_select.options = [_CHOOSE] + [
            (f"{p.name} ({enum_text(p.status)})", p.id) for p in programs
        ]

    def _load_members(self) -> None:
        self.member_select.options = [_CHOOSE]
        program = self.program_select.value
        if program:
            members = list(self.client.members.iter(program, limit=100))
            self.member_select.options = [_CHOOSE] + [
                (f"{m.customer_id} ({enum_text(m.status)}) {m.id}", m.id) for m in members
            ]

    def _load_cards(self) -> None:
        self.card_select.options = [_CHOOSE]
        program, member = self.program_select.value, self.member_select.value
        if program and member:
            cards = [mc.card for mc in self.client.members.get(program, member).cards if mc.card]
            self.card_select.options = [_CHOOSE] + [
                (f"{c.id} ({c.card_definition_id}, {c.balance.points} pts)", c.id) for c in cards
            ]

    def _load_buckets(self) -> None:
        self.buckets_select.value = ()
        self.buckets_select.options = []
        self._buckets = {}
        program, member, card = (
            self.program_select.value,
            self.member_select.value,
            self.card_select.value,
        )
        if program and member and card:
            buckets = list(self.client.pending_buckets.iter(program, member, card, limit=100))
            self._buckets = {b.id: b for b in buckets}
            self.buckets_select.options = [
                (f"{b.id} | {b.points.total} pts | {b.date} | {enum_text(b.status)}", b.id)
                for b in buckets
            ]

    def refresh(self) -> None:
        """Reload the buckets of the chosen card (their statuses change after activation)."""
        self.guard(self._load_buckets, "pending buckets")

    def activate(self) -> None:
        """Activate the selected buckets and show the transactions and the refusals."""
        chosen = [self._buckets[i] for i in self.buckets_select.value]
        if not chosen:
            self.show_error("Select at least one bucket.")
            return
        self.run(actions.activate_pending_buckets(chosen), RESULTS_VIEW)
