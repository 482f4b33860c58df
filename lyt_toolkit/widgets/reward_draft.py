"""``RewardDraftPanel``: find rewards, pick some, confirm, move them back to draft."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w
import pandas as pd

from .. import actions
from ..models.enums import RewardType
from ._common import (
    RESULT_VIEW,
    describe_error,
    error_html,
    ok_html,
    outcome_summary,
    progress_bar,
    progress_callback,
    table_html,
)

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["RewardDraftPanel"]


class RewardDraftPanel(w.VBox):
    """Only ACTIVE rewards can move to draft; others come back as 409 rows, not errors."""

    def __init__(self, client: LoyaltyClient) -> None:
        self.client = client
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
        self.status = w.HTML()
        self.progress = progress_bar("Moving")
        self.results_html = w.HTML()
        self.results: pd.DataFrame | None = None
        self._rewards: dict[str, Any] = {}

        self.load_button.on_click(lambda _: self.load())
        self.rewards_select.observe(lambda _: self._update_button(), names="value")
        self.confirm.observe(lambda _: self._update_button(), names="value")
        self.draft_button.on_click(lambda _: self.move_to_draft())
        super().__init__(
            [
                w.HBox([self.name_filter, self.type_filter, self.load_button]),
                self.rewards_select,
                self.confirm,
                self.draft_button,
                self.status,
                self.progress,
                self.results_html,
            ]
        )

    def _filters(self) -> dict[str, Any]:
        filters: dict[str, Any] = {}
        if text := self.name_filter.value.strip():
            filters["name"] = {"$contains": text}
        if self.type_filter.value:
            filters["type"] = {"$is": self.type_filter.value}
        return filters

    def load(self) -> None:
        """List the rewards matching the filters (all pages)."""
        try:
            rewards = list(self.client.rewards.iter(filters=self._filters() or None, limit=100))
        except Exception as exc:
            self.status.value = error_html(f"Could not load rewards: {describe_error(exc)}")
            return
        self._rewards = {r.id: r for r in rewards}
        self.rewards_select.value = ()
        self.rewards_select.options = [
            (f"{r.name} | {_value(r.status)} | {_value(r.type)} | {r.id}", r.id) for r in rewards
        ]
        self.status.value = ok_html(f"{len(rewards)} rewards")

    def _update_button(self) -> None:
        self.draft_button.disabled = not (self.confirm.value and self.rewards_select.value)

    def move_to_draft(self) -> None:
        """Move the selected rewards; the confirmation is consumed by the run."""
        if not (self.confirm.value and self.rewards_select.value):
            self.status.value = error_html("Select rewards and tick the confirmation first.")
            return
        chosen = [self._rewards[i] for i in self.rewards_select.value]
        plan = actions.move_rewards_to_draft(chosen)
        self.results = plan.execute(self.client, progress=progress_callback(self.progress))
        self.results_html.value = table_html(self.results, ("name", *RESULT_VIEW))
        self.confirm.value = False
        summary = outcome_summary(self.results)
        self.load()
        self.status.value = ok_html(summary)


def _value(value: Any) -> str:
    return str(getattr(value, "value", value))
