"""``DangerZone``: delete tier structures and webhook configurations, typed confirmation first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .. import actions
from ..errors import MissingRequiredFeatureError
from ._common import RESULT_VIEW, PlanPanel, describe_error, enum_text

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


class _Section(w.VBox):
    """A selection, the phrase to type, the confirmation box and the delete button."""

    def __init__(self, title: str, noun: str, select: w.SelectMultiple) -> None:
        self.noun = noun
        self.select = select
        self.phrase = w.HTML()
        self.confirm_text = w.Text(placeholder="type the phrase shown above")
        self.delete_button = w.Button(description="Delete", button_style="danger", disabled=True)
        self.select.observe(lambda _: self._update(), names="value")
        self.confirm_text.observe(lambda _: self._update(), names="value")
        super().__init__(
            [w.HTML(f"<b>{title}</b>"), select, self.phrase, self.confirm_text, self.delete_button]
        )
        self._update()

    def ids(self) -> tuple[str, ...]:
        return tuple(self.select.value)

    def required(self) -> str:
        return confirmation_phrase(self.ids(), self.noun)

    def confirmed(self) -> bool:
        phrase = self.required()
        return bool(phrase) and self.confirm_text.value == phrase

    def _update(self) -> None:
        phrase = self.required()
        self.phrase.value = (
            f"Type <code>{phrase}</code> to enable the button." if phrase else "Select items."
        )
        self.delete_button.disabled = not self.confirmed()


class DangerZone(PlanPanel):
    """Deletions with a typed confirmation: the button stays disabled until the exact
    phrase (the resource ID, or ``DELETE 3 tier structures``) is typed."""

    def __init__(self, client: LoyaltyClient) -> None:
        super().__init__(client, progress_label="Deleting")
        self.tier_structures_select = w.SelectMultiple(
            options=[], rows=6, layout=w.Layout(width="640px")
        )
        self.project_select = w.Dropdown(options=[("-- choose --", None)], description="Project")
        self.webhooks_select = w.SelectMultiple(options=[], rows=6, layout=w.Layout(width="640px"))
        self.tier_structures = _Section(
            "Tier structures", "tier structure", self.tier_structures_select
        )
        self.webhooks = _Section("Webhooks", "webhook", self.webhooks_select)

        self.tier_structures.delete_button.on_click(lambda _: self.delete_tier_structures())
        self.webhooks.delete_button.on_click(lambda _: self.delete_webhooks())
        self.project_select.observe(lambda _: self._load_webhooks(), names="value")
        self.children = [
            self.tier_structures,
            w.VBox([self.project_select, self.webhooks]),
            self.status,
            self.progress,
            self.results_html,
        ]
        self.reload()

    # -- loading ---------------------------------------------------------------------------

    def reload(self) -> None:
        """Reload tier structures and projects (e.g. after a deletion)."""
        try:
            structures = [
                t
                for t in self.client.tier_structures.iter(limit=100)
                if enum_text(t.status) != "DELETED"
            ]
            projects = self.client.projects.list()
        except Exception as exc:
            self.show_error(f"Could not load: {describe_error(exc)}")
            return
        self.tier_structures_select.value = ()
        self.tier_structures_select.options = [
            (f"{t.name} | {enum_text(t.status)} | {t.id}", t.id) for t in structures
        ]
        current = self.project_select.value
        self.project_select.options = [("-- choose --", None)] + [(p.name, p.id) for p in projects]
        if current in {p.id for p in projects}:
            self.project_select.value = current
            self._load_webhooks()

    def _load_webhooks(self) -> None:
        self.status.value = ""  # a message about the previous project no longer applies
        self.webhooks_select.value = ()
        self.webhooks_select.options = []
        if self.project_select.value:
            self.guard(self._list_webhooks, "webhooks")

    def _list_webhooks(self) -> None:
        try:
            hooks = self.client.webhooks.list(self.project_select.value)
        except MissingRequiredFeatureError:
            self.show_error("This project's plan has no webhooks (402).")
            return
        self.webhooks_select.options = [(f"{h.target_url} | {h.id}", h.id) for h in hooks]

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
        self._run(actions.delete_tier_structures(list(section.ids())), section)

    def delete_webhooks(self) -> None:
        """Delete the selected webhooks of the chosen project, if the phrase is typed.

        Checked again like :meth:`delete_tier_structures`; results land in
        ``results`` and the lists reload.
        """
        section = self.webhooks
        if not section.confirmed():
            self.show_error(f"Type {section.required()!r} to confirm.")
            return
        project = self.project_select.value
        self._run(actions.delete_webhooks([(project, h) for h in section.ids()]), section)

    def _run(self, plan: actions.ActionPlan[Any], section: _Section) -> None:
        def settle() -> None:
            section.confirm_text.value = ""
            self.reload()

        self.run(plan, RESULT_VIEW, then=settle)
