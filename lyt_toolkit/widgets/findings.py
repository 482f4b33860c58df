"""``FindingsPanel``: audit findings in a grid; the selected ones with a matching action
become a plan, previewed against the service, then executed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import pandas as pd

from .. import actions
from .._text import figure
from ..audit import FINDING_COLUMNS
from ._grid import grid, selected, show
from ._messages import describe_error
from ._plan_panel import PlanPanel
from ._results import RESULT_VIEW

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["FINDING_ACTIONS", "FindingAction", "FindingsPanel"]


@dataclass(frozen=True)
class FindingAction:
    """What fixes the findings of some audit rules: a label and a plan over resource IDs."""

    label: str
    plan: Callable[[list[str]], actions.ActionPlan[Any]]


_TO_DRAFT = FindingAction("move reward to DRAFT", actions.move_rewards_to_draft)

FINDING_ACTIONS: dict[str, FindingAction] = {
    "active-reward-expired": _TO_DRAFT,
    "active-reward-without-costs": _TO_DRAFT,
}
"""Audit rules whose findings an action fixes: an ACTIVE reward that has ended, or that
has no price, goes back to DRAFT. The other rules need a person's edit (a price, a date,
a card definition), and a pending bucket the audit flags is one that can no longer be
activated, so no action matches them."""

PREVIEW_VIEW = ("target", "will")


class FindingsPanel(PlanPanel):
    """Findings of ``lyt_toolkit.audit.run`` in a selectable grid, with their action.

    ``findings_grid`` shows every finding and, in ``action``, what would fix it.
    Select rows, press Preview to see what the service's state makes of each
    target, then "Act on selected" runs the plan (one action kind at a time).
    """

    def __init__(self, client: LoyaltyClient, findings: pd.DataFrame) -> None:
        super().__init__(client, progress_label="Fixing")
        missing = [c for c in FINDING_COLUMNS if c not in findings.columns]
        if missing:
            raise ValueError(f"findings: missing column(s) {', '.join(missing)}")
        self.findings = findings.reset_index(drop=True).assign(
            action=[_label(r) for r in findings["rule"]]
        )
        self.findings_grid = grid(("action", *FINDING_COLUMNS), select=True)
        self.preview_button = w.Button(description="Preview", icon="eye", disabled=True)
        self.act_button = w.Button(
            description="Act on selected", button_style="warning", disabled=True
        )
        self.preview_grid = grid(PREVIEW_VIEW)
        self.findings_grid.observe(lambda _: self._selection_changed(), names="selected_rows")
        self.preview_button.on_click(lambda _: self.preview())
        self.act_button.on_click(lambda _: self.act())
        show(self.findings_grid, self.findings, ("action", *FINDING_COLUMNS))
        self.children = [
            self.findings_grid,
            w.HBox([self.preview_button, self.act_button, self.cancel_button, self.budget]),
            self.status,
            self.preview_grid,
            self.progress,
            self.results_grid,
            self.download,
        ]

    def controls(self) -> Sequence[w.Button]:
        return (self.preview_button, self.act_button)

    def update_buttons(self) -> None:
        actionable = bool(self._chosen())
        self.enable(self.preview_button, actionable)
        self.enable(self.act_button, actionable)

    def _chosen(self) -> dict[FindingAction, list[str]]:
        """The selected findings that have an action: their resource IDs per action."""
        chosen: dict[FindingAction, list[str]] = {}
        rows = selected(self.findings_grid, self.findings)[["rule", "resource_id"]]
        for rule_id, resource in rows.itertuples(index=False):
            if rule_id in FINDING_ACTIONS:
                ids = chosen.setdefault(FINDING_ACTIONS[rule_id], [])
                if str(resource) not in ids:
                    ids.append(str(resource))
        return chosen

    def _single_plan(self) -> actions.ActionPlan[Any] | None:
        chosen = self._chosen()
        if len(chosen) != 1:
            return None
        ((action, ids),) = chosen.items()
        return action.plan(ids)

    def plan(self) -> actions.ActionPlan[Any] | None:
        """The plan for the selected findings, or ``None`` (a status says why)."""
        chosen = self._chosen()
        picked = len(selected(self.findings_grid, self.findings))
        if not chosen:
            self.show_error(
                f"None of the {figure(picked)} selected findings has a matching action."
                if picked
                else "Select findings that have an action."
            )
            return None
        plan = self._single_plan()
        if plan is None:
            labels = ", ".join(a.label for a in chosen)
            self.show_error(f"Select findings of one action at a time: {labels}.")
        return plan

    def _selection_changed(self) -> None:
        self.update_buttons()
        plan = self._single_plan()
        if plan is not None:
            self.show_cost(plan)
        else:
            self.budget.value = ""

    def preview(self) -> None:
        """Show what the plan would do to each target, read from the service in the
        background (the plan's ``preview_reads``: rewards listed by ID, 99 a read; within the
        panel's ``budget_share``; nothing sent)."""
        plan = self.plan()
        if plan is not None and not self.load_in_background(lambda: self._preview(plan)):
            self.show_error("A preview is still loading: wait for it to be shown.")

    def _preview(self, plan: actions.ActionPlan[Any]) -> None:
        try:
            frame = plan.preview(self.client, progress=False, budget_share=self.budget_share)
        except Exception as exc:
            self.show_error(f"Could not preview: {describe_error(exc)}")
            return
        show(self.preview_grid, frame, PREVIEW_VIEW)
        self.show_cost(plan)
        self.status.value = ""

    def act(self) -> None:
        """Start the plan of the selected findings."""
        plan = self.plan()
        if plan is not None:
            self.run(plan, RESULT_VIEW)


def _label(rule_id: Any) -> str:
    action = FINDING_ACTIONS.get(str(rule_id))
    return action.label if action is not None else ""
