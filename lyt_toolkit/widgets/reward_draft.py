"""``RewardDraftPanel``: find rewards, pick some, confirm, move them back to draft."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .. import actions
from ..models.enums import RewardType
from ._common import RESULT_VIEW, PlanPanel, enum_text

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import Reward

__all__ = ["RewardDraftPanel"]


class RewardDraftPanel(PlanPanel):
    """Only ACTIVE rewards can move to draft; others come back as 409 rows, not errors."""

    def __init__(self, client: LoyaltyClient) -> None:
        super().__init__(client, progress_label="Moving")
        self.name_filter = w.Text(description="Name contains")
        self.type_filter = w.Dropdown(
            options=[("any", None)] + [(t.value, t.value) for t in RewardType],
            description="Type",
        )
        self.load_button = w.Button(description="Load rewards")
        self.rewards_select = w.SelectMultiple(
            options=[], rows=12, description="Rewards", layout=w.Layout(width="640px")
        )
        self.confirm = w.Checkbox(value=False, description="I understand these go back to DRAFT")
        self.draft_button = w.Button(
            description="Move to draft", button_style="warning", disabled=True
        )
        self._rewards: dict[str, Reward] = {}

        self.load_button.on_click(lambda _: self.load())
        self.rewards_select.observe(lambda _: self._update_button(), names="value")
        self.confirm.observe(lambda _: self._update_button(), names="value")
        self.draft_button.on_click(lambda _: self.move_to_draft())
        self.children = [
            w.HBox([self.name_filter, self.type_filter, self.load_button]),
            self.rewards_select,
            self.confirm,
            self.draft_button,
            self.status,
            self.progress,
            self.results_html,
        ]

    def _filters(self) -> dict[str, Any]:
        filters: dict[str, Any] = {}
        if text := self.name_filter.value.strip():
            filters["name"] = {"$contains": text}
        if self.type_filter.value:
            filters["type"] = {"$is": self.type_filter.value}
        return filters

    def load(self) -> None:
        """List the rewards matching the filters (all pages)."""
        self.guard(self._load_rewards, "rewards")

    def _load_rewards(self) -> None:
        filters = self._filters()
        found = (
            self.client.rewards.iter(filters=filters, limit=100)
            if filters
            else self.client.rewards.iter(limit=100)
        )
        rewards = list(found)
        self._rewards = {r.id: r for r in rewards}
        self.rewards_select.value = ()
        self.rewards_select.options = [
            (f"{r.name} | {enum_text(r.status)} | {enum_text(r.type)} | {r.id}", r.id)
            for r in rewards
        ]
        self.show_ok(f"{len(rewards)} rewards")

    def _update_button(self) -> None:
        self.draft_button.disabled = not (self.confirm.value and self.rewards_select.value)

    def move_to_draft(self) -> None:
        """Move the selected rewards; the confirmation is consumed by the run."""
        if not (self.confirm.value and self.rewards_select.value):
            self.show_error("Select rewards and tick the confirmation first.")
            return
        chosen = [self._rewards[i] for i in self.rewards_select.value]
        self.run(
            actions.move_rewards_to_draft(chosen), ("name", *RESULT_VIEW), then=self._after_run
        )

    def _after_run(self) -> None:
        self.confirm.value = False
        self.load()
