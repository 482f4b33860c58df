"""``DangerZone``: delete tier structures and webhook configurations, typed confirmation first.

Each section lists its resources in a grid; the selected rows are what the typed
phrase names and what the Delete button deletes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import pandas as pd

from .. import actions
from .._deprecation import deprecated_attribute, deprecation
from ..errors import MissingRequiredFeatureError
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

__all__ = ["DangerZone", "confirmation_phrase"]


def confirmation_phrase(ids: tuple[str, ...], noun: str) -> str:
    """What must be typed: the ID itself for one item, ``DELETE <n> <noun>s`` for several."""
    if not ids:
        return ""
    if len(ids) == 1:
        return ids[0]
    return f"DELETE {len(ids)} {noun}s"


STILL_LOADING = "Still loading: choose the project again once the lists are shown."
"""Why a project chosen while a load runs is refused (the dropdown shows the last one again)."""
TIER_STRUCTURE_VIEW = ("name", "status", "id")
WEBHOOK_VIEW = ("target_url", "id")


class _Section(w.VBox):
    """A grid to select from, the phrase to type, the confirmation box and the delete button."""

    def __init__(
        self,
        title: str,
        noun: str,
        columns: Sequence[str],
        busy: Callable[[], bool],
        changed: Callable[[], None],
    ) -> None:
        self.noun = noun
        self.grid = grid(columns, select=True)
        self.frame = pd.DataFrame(columns=list(columns))
        self._busy = busy
        self._changed = changed
        self.phrase = w.HTML()
        self.confirm_text = w.Text(placeholder="type the phrase shown above")
        self._typed = Taken[str](self.confirm_text)
        """The phrase typed: the buttons synced at a run's end read it, not the box."""
        self.delete_button = w.Button(description="Delete", button_style="danger", disabled=True)
        self.grid.observe(lambda _: self._edited(), names="selected_rows")
        self.confirm_text.observe(lambda _: self.sync(), names="value")
        super().__init__(
            [
                w.HTML(f"<b>{title}</b>"),
                self.grid,
                self.phrase,
                self.confirm_text,
                self.delete_button,
            ]
        )
        self.sync()

    def show_rows(self, frame: pd.DataFrame) -> None:
        """Show ``frame`` (one row per resource, with an ``id``); the selection is cleared."""
        self.frame = frame
        show(self.grid, frame)
        self.sync()

    def _edited(self) -> None:
        self.sync()
        self._changed()

    def ids(self) -> tuple[str, ...]:
        return tuple(selected(self.grid, self.frame)["id"])

    def required(self) -> str:
        return confirmation_phrase(self.ids(), self.noun)

    def confirmed(self) -> bool:
        phrase = self.required()
        return bool(phrase) and self._typed.value == phrase

    def sync(self) -> None:
        phrase = self.required()
        self.phrase.value = (
            f"Type <code>{phrase}</code> to enable the button." if phrase else "Select rows."
        )
        self.delete_button.disabled = self._busy() or not self.confirmed()


class DangerZone(PlanPanel):
    """Deletions with a typed confirmation: the button stays disabled until the exact
    phrase (the resource ID, or ``DELETE 3 tier structures``) is typed.

    Refresh reads the tier structures (one call per page of 100) and the projects (one call),
    then the chosen project's webhooks (one call) if the projects still list it; choosing a
    project reads its webhooks (one call). The interface gives no totals, so ``reads`` shows
    the tier structures' calls as their last load took them, or, before one, one call or
    more. A load that does not fit the panel's ``budget_share`` is refused, nothing sent (the
    webhooks after Refresh's lists are a load of their own, as a project's choice is); a tier
    structures list whose pages outrun the share stops before the page beyond it. Either way
    the lists shown stay as they were, and the status says why.
    """

    tier_structures_select = deprecated_attribute(
        deprecation("lyt_toolkit.widgets.DangerZone.tier_structures_select"),
        lambda zone: LegacySelect(zone.tier_structures.grid, lambda: zone.tier_structures.frame),
    )
    """Deprecated since 0.4.0, removed in 0.5.0: the tier structures grid's selection as the
    ``SelectMultiple`` of 0.1.0 had it (``options``, settable ``value``)."""
    webhooks_select = deprecated_attribute(
        deprecation("lyt_toolkit.widgets.DangerZone.webhooks_select"),
        lambda zone: LegacySelect(zone.webhooks.grid, lambda: zone.webhooks.frame),
    )
    """Deprecated since 0.4.0, removed in 0.5.0: the webhooks grid's selection, likewise."""

    def __init__(self, client: LoyaltyClient) -> None:
        super().__init__(client, progress_label="Deleting")
        self._tier_walk = Walked()
        """The calls the last load of the tier structures took (deleted ones listed too)."""
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.reads = w.HTML()
        self.project_select = w.Dropdown(options=[("-- choose --", None)], description="Project")
        self._project: str | None = None
        """The project whose webhooks the grid lists (or is loading): the one the dropdown
        shows and Delete deletes from."""
        self.tier_structures = _Section(
            "Tier structures",
            "tier structure",
            TIER_STRUCTURE_VIEW,
            lambda: self.busy,
            lambda: self.show_cost(self._tier_structures_plan()),
        )
        self.webhooks = _Section(
            "Webhooks",
            "webhook",
            WEBHOOK_VIEW,
            lambda: self.busy,
            lambda: self.show_cost(self._webhooks_plan()),
        )
        self.refresh_button.on_click(lambda _: self.refresh_in_background())

        self.tier_structures.delete_button.on_click(lambda _: self.delete_tier_structures())
        self.webhooks.delete_button.on_click(lambda _: self.delete_webhooks())
        self.project_select.observe(lambda _: self._project_chosen(), names="value")
        self.children = [
            self.refresh_button,
            self.reads,
            self.tier_structures,
            w.VBox([self.project_select, self.webhooks]),
            w.HBox([self.cancel_button, self.budget]),
            *self._run_views(),
        ]
        self._show_reads()

    def controls(self) -> Sequence[w.Button]:
        return (
            self.refresh_button,
            self.tier_structures.delete_button,
            self.webhooks.delete_button,
        )

    def update_buttons(self) -> None:
        self.enable(self.refresh_button, True)
        self.tier_structures.sync()
        self.webhooks.sync()

    def refresh(self) -> None:
        """Load tier structures and projects, then the chosen project's webhooks if still listed."""
        self.reload()

    def show_loading(self, loading: bool) -> None:
        self.project_select.disabled = loading
        super().show_loading(loading)

    # -- loading ---------------------------------------------------------------------------

    def _lists_read(self, tiers: str = "the tier structures") -> tuple[str, int]:
        """What Refresh reads before the chosen project's webhooks (the tier structures named
        ``tiers``, and the projects), and its calls (at least, while the tier structures'
        pages are not known)."""
        return f"{tiers} and the projects", self._tier_walk.calls + 1

    def _show_reads(self) -> None:
        what, calls = self._lists_read(f"the tier structures ({self._tier_walk})")
        refresh = self._reads_html(f"Refresh reads {what}", calls, self._tier_walk.note)
        if self._project:
            webhooks = "Then the chosen project's webhooks, if the projects still list it"
        else:
            webhooks = "Choosing a project reads its webhooks"
        self.reads.value = f"{refresh}<br>{self._reads_html(webhooks, 1)}"

    def reload(self) -> None:
        """Reload tier structures and projects (e.g. after a deletion), within the panel's
        share; a failure or a refusal shows as the status."""
        self.guard(self._load_lists, "the lists")

    def _load_lists(self) -> None:
        what, calls = self._lists_read()
        room = self._check_reads(calls, what)
        pages = self.client.tier_structures.pages(limit=MAX_LIMIT)
        listed, self._tier_walk = walk(
            pages,
            None if room is None else room - 1,  # 1: projects
            lambda t: (t.name, enum_text(t.status), t.id),  # TIER_STRUCTURE_VIEW
        )
        if not self._tier_walk.exact:
            raise stopped("the tier structures", self._tier_walk, self.budget_share)
        projects = self.client.projects.list()
        rows = [row for row in listed if row[1] != "DELETED"]
        tiers = pd.DataFrame(rows, columns=list(TIER_STRUCTURE_VIEW))
        options: list[tuple[str, str | None]] = [("-- choose --", None)]
        options += [(p.name, p.id) for p in projects]
        self._shows((), partial(self._show_lists, tiers, options))

    def _show_lists(self, tiers: pd.DataFrame, projects: list[tuple[str, str | None]]) -> None:
        """Show the ``tiers`` and the ``projects`` (options), then the webhooks of the project
        chosen, read again if the projects still list it."""
        self.tier_structures.show_rows(tiers)
        current = self._project
        # Options that changed reset the choice (its observer empties the webhooks): chosen
        # again, the observer reads them; options as they were keep it, and nothing fires.
        self.project_select.options = projects
        if current is None or current not in [value for _, value in projects]:
            return
        if self._project == current:
            self._project_chosen()
        else:
            self.project_select.value = current

    _reloaded = "the lists"

    def _reload_calls(self) -> int:
        """The lists read again after a run: the tier structures (a call per page of them),
        the projects, and the chosen project's webhooks (counted before the run: a project
        gone meanwhile is not read)."""
        return self._lists_read()[1] + (1 if self._project else 0)

    def _project_chosen(self) -> None:
        """Empty the webhooks grid, then list the chosen project's webhooks in the
        background. While another load runs the choice is refused, said so, and the dropdown
        put back to the project the grid lists (or is loading), its rows kept."""
        if self._choice_refused(self.project_select, self._project, STILL_LOADING):
            return
        with self._choosing:
            project = self._project = self.project_select.value
        self.status.value = ""  # a message about the previous project no longer applies
        self.webhooks.show_rows(pd.DataFrame(columns=list(WEBHOOK_VIEW)))
        self._show_reads()
        if project and not self.load_in_background(partial(self._load_webhooks, project)):
            self.show_error(STILL_LOADING)  # a load begun from another thread meanwhile

    def _latest_choice(self) -> tuple[str | None]:
        return (self._project,)

    def _load_webhooks(self, project: str) -> None:
        self.guard(partial(self._list_webhooks, project), "webhooks")

    def _list_webhooks(self, project: str) -> None:
        """The webhooks of ``project``, the one chosen when the load began (a choice refused
        while it runs does not change what it lists)."""
        self._check_reads(1, "the chosen project's webhooks")
        try:
            hooks = self.client.webhooks.list(project)
        except MissingRequiredFeatureError:
            none = "This project's plan has no webhooks (402)."
            self._shows((project,), partial(self.show_error, none))
            return
        rows = [(h.target_url, h.id) for h in hooks]
        frame = pd.DataFrame(rows, columns=list(WEBHOOK_VIEW))
        self._shows((project,), partial(self.webhooks.show_rows, frame))

    # -- deleting --------------------------------------------------------------------------

    def delete_tier_structures(self) -> None:
        """Delete the selected tier structures, if the confirmation phrase is typed.

        The phrase is checked again here, not only by the button, because the
        method can be called from code. Results land in ``results`` and the
        lists reload.
        """
        section = self.tier_structures
        if not section.confirmed():
            self.show_error(f"Type {section.required()!r} to confirm.")
            return
        self._run(self._tier_structures_plan(), section)

    def delete_webhooks(self) -> None:
        """Delete the selected webhooks of the chosen project, if the phrase is typed.

        Checked again like :meth:`delete_tier_structures`; results land in
        ``results`` and the lists reload.
        """
        section = self.webhooks
        if not section.confirmed():
            self.show_error(f"Type {section.required()!r} to confirm.")
            return
        self._run(self._webhooks_plan(), section)

    def _tier_structures_plan(self) -> actions.DeleteTierStructures:
        return actions.delete_tier_structures(list(self.tier_structures.ids()))

    def _webhooks_plan(self) -> actions.DeleteWebhooks:
        """The selected webhooks, of the project the grid lists."""
        return actions.delete_webhooks([(self._project, h) for h in self.webhooks.ids()])

    def _run(self, plan: actions.ActionPlan[Any], section: _Section) -> None:
        def settle() -> None:  # in the run's thread: the box emptied as a load shows its list
            self._shows((), partial(setattr, section.confirm_text, "value", ""))
            self.reload()

        self.run(plan, RESULT_VIEW, then=settle)
