"""``RewardDraftPanel``: find rewards, pick some in a grid, confirm, move them back to draft."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import pandas as pd

from .. import actions
from .._deprecation import deprecated_attribute, deprecation
from .._text import counted
from ..models.enums import RewardType
from ..models.listing import MAX_LIMIT
from ._grid import grid, selected, show
from ._legacy_select import LegacySelect
from ._messages import enum_text
from ._paged import Walked, stopped, walk
from ._plan_panel import PlanPanel
from ._results import RESULT_VIEW
from ._taken import Taken

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import Reward

__all__ = ["RewardDraftPanel"]

REWARD_VIEW = ("name", "status", "type", "id")


class RewardDraftPanel(PlanPanel):
    """Only ACTIVE rewards can move to draft; others come back as 409 rows, not errors.

    **Load rewards** reads every reward ``name_filter`` and ``type_filter`` let through, one
    call per page of 100. The interface gives no totals, so ``reads`` shows the calls the
    last load of these filters took, or, for filters not loaded yet, one call or more. A load
    that does not fit the panel's ``budget_share`` is refused, nothing sent; one whose pages
    outrun the share stops before the page beyond it. Either way the list shown stays as it
    was, and the status says why. The rewards found show in ``rewards_grid``; its
    ``selected_rows`` are the rewards the plan moves. After a run the list is read again
    (the filters it was loaded with; one call per page): the cost shown before the run
    counts those reads, and the budget check holds them too.
    """

    rewards_select = deprecated_attribute(
        deprecation("lyt_toolkit.widgets.RewardDraftPanel.rewards_select"),
        lambda panel: LegacySelect(panel.rewards_grid, lambda: panel.rewards),
    )
    """Deprecated since 0.4.0, removed in 0.5.0: ``rewards_grid``'s selection as the
    ``SelectMultiple`` of 0.1.0 had it (``options``, settable ``value``)."""

    def __init__(self, client: LoyaltyClient) -> None:
        super().__init__(client, progress_label="Moving", result_columns=("name", *RESULT_VIEW))
        self.name_filter = w.Text(description="Name contains", style={"description_width": "auto"})
        self.type_filter = w.Dropdown(
            options=[("any", None)] + [(t.value, t.value) for t in RewardType],
            description="Type",
        )
        self.load_button = w.Button(description="Load rewards", icon="refresh")
        self.reads = w.HTML()
        self.rewards_grid = grid(REWARD_VIEW, select=True)
        self.rewards: pd.DataFrame = pd.DataFrame(columns=list(REWARD_VIEW))
        self.confirm = w.Checkbox(
            value=False, description="I understand these go back to DRAFT", indent=False
        )
        self.draft_button = w.Button(
            description="Move to draft", button_style="warning", disabled=True
        )

        self._name = Taken[str](self.name_filter)
        self._type = Taken[str | None](self.type_filter)
        self._confirmed = Taken[bool](self.confirm)
        """The filters and the confirmation as set: a load's and a run's thread read these."""
        self._walks: dict[str, Walked] = {}
        """The calls each set of filters' last load took (by ``_key``)."""
        self._loaded: dict[str, Any] = {}
        """The filters the rewards shown were loaded with: a run's reload reads them again."""

        self.load_button.on_click(lambda _: self.refresh_in_background())
        self.name_filter.observe(lambda _: self._show_reads(), names="value")
        self.type_filter.observe(lambda _: self._show_reads(), names="value")
        self.rewards_grid.observe(lambda _: self._selection_changed(), names="selected_rows")
        self.confirm.observe(lambda _: self.update_buttons(), names="value")
        self.draft_button.on_click(lambda _: self.move_to_draft())
        self.children = [
            w.HBox([self.name_filter, self.type_filter, self.load_button]),
            self.reads,
            self.rewards_grid,
            self.confirm,
            w.HBox([self.draft_button, self.cancel_button, self.budget]),
            *self._run_views(),
        ]
        self._show_reads()

    def controls(self) -> Sequence[w.Button]:
        return (self.load_button, self.draft_button)

    def refresh(self) -> None:
        self.load()

    def _filters(self) -> dict[str, Any]:
        filters: dict[str, Any] = {}
        if text := self._name.value.strip():
            filters["name"] = {"$contains": text}
        if kind := self._type.value:
            filters["type"] = {"$is": kind}
        return filters

    def _walked(self, filters: dict[str, Any]) -> Walked:
        """The calls a load of the rewards ``filters`` let through takes, as far as known."""
        return self._walks.get(_key(filters), Walked())

    def _show_reads(self) -> None:
        filters = self._filters()
        walked = self._walked(filters)
        what = f"Load rewards reads {_named(filters)} ({walked})"
        self.reads.value = self._reads_html(what, walked.calls, walked.note)

    def refresh_in_background(self) -> bool:
        """:meth:`load` in a background thread, with the filters as they stand now (taken
        here, on the caller's thread: the load reads no box)."""
        return self.load_in_background(partial(self._load_filtered, self._filters()))

    def load(self) -> None:
        """List the rewards matching the filters (all pages), within the panel's share."""
        self._load_filtered(self._filters())

    def _load_filtered(self, filters: dict[str, Any]) -> None:
        self.guard(partial(self._load_rewards, filters), "rewards")

    def _load_rewards(self, filters: dict[str, Any]) -> None:
        what = _named(filters)
        room = self._check_reads(self._walked(filters).calls, what)
        pages = (
            self.client.rewards.pages(filters=filters, limit=MAX_LIMIT)
            if filters
            else self.client.rewards.pages(limit=MAX_LIMIT)
        )
        found, walked = walk(pages, room, _row)
        self._walks[_key(filters)] = walked
        if not walked.exact:
            raise stopped(what, walked, self.budget_share, filters=True)
        self._loaded = filters
        self.rewards = pd.DataFrame(found, columns=list(REWARD_VIEW))
        show(self.rewards_grid, self.rewards)
        self._selection_changed()
        self.show_ok(counted(len(self.rewards), "reward"))

    def _reload_calls(self) -> int:
        """The list read again after a run: the calls its last load took."""
        return self._walked(self._loaded).calls

    def selected_ids(self) -> list[str]:
        """The IDs of the rewards selected in the grid."""
        return [str(i) for i in selected(self.rewards_grid, self.rewards)["id"]]

    def _plan(self) -> actions.MoveRewardsToDraft:
        return actions.move_rewards_to_draft(selected(self.rewards_grid, self.rewards))

    def _selection_changed(self) -> None:
        self.update_buttons()
        self.show_cost(self._plan())

    def update_buttons(self) -> None:
        self.enable(self.load_button, True)
        self.enable(self.draft_button, bool(self._confirmed.value and self.selected_ids()))

    def move_to_draft(self) -> None:
        """Start moving the selected rewards; the confirmation is consumed by the run."""
        if not (self._confirmed.value and self.selected_ids()):
            self.show_error("Select rewards and tick the confirmation first.")
            return
        self.run(self._plan(), ("name", *RESULT_VIEW), then=self._after_run)

    def _after_run(self) -> None:
        """In the run's thread: the confirmation consumed (unticked as a load shows what it
        read), the rewards read again."""
        self._shows((), partial(setattr, self.confirm, "value", False))
        self._load_rewards(self._loaded)


def _row(reward: Reward) -> tuple[str, str, str, str]:
    """What the grid shows of ``reward`` (``REWARD_VIEW``)."""
    return (reward.name, enum_text(reward.status), enum_text(reward.type), reward.id)


def _key(filters: dict[str, Any]) -> str:
    return json.dumps(filters, sort_keys=True)


def _named(filters: dict[str, Any]) -> str:
    return "the rewards the filters let through" if filters else "the rewards"
