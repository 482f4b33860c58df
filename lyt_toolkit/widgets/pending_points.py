"""``PendingPointsPanel``: program -> member (listed, or found by ID) -> card -> pending
buckets, then activate; every read counted and held to the panel's share of the budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import pandas as pd

from .. import actions
from .._deprecation import deprecated_attribute, deprecation
from .._text import figure
from ..models.ids import IdPrefix
from ..models.listing import MAX_LIMIT
from ._grid import grid, selected, show
from ._legacy_select import LegacySelect
from ._messages import enum_text
from ._options import option_values
from ._paged import Walked, stopped, walk
from ._plan_panel import PlanPanel
from ._taken import Taken

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import Member, MemberWithCards, PendingBucket
    from ..models.programs import Card

__all__ = ["PendingPointsPanel"]

_CHOOSE = ("-- choose --", None)
BUCKET_VIEW = ("id", "points", "date", "status")
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
STILL_LOADING = "Still loading: choose again once the lists are shown."
"""Why a choice made while a load runs is refused (its dropdown shows the last one again)."""
SENT = "activation sent"
"""The status shown for a bucket this panel activated that the service still lists as
PENDING: its activation settles shortly after the answer, then the bucket leaves the list."""


class PendingPointsPanel(PlanPanel):
    """Activate pending point buckets ahead of their date.

    Choosing a program reads one page of its members (one call): a program of at most 100
    lists them all in ``member_select``; a larger one lists its first 100 and
    ``member_search`` finds any other: a member ID typed or pasted there costs one call
    (the member with its cards), a customer ID two (the member found, then its cards),
    on Find. Choosing a card reads its pending buckets, one call per page of 100; the
    interface gives no totals, so their calls are shown as the last load of the card's
    buckets took them, or, before one, as one call or more. ``reads`` shows what the next
    read costs; a read that does not fit the panel's ``budget_share`` is refused, nothing
    sent, and a walk of the buckets whose pages outrun the share stops before the page beyond
    it; either way the list shown stays as it was (empty for a card newly chosen) and the
    status says why. The chosen card's buckets show in ``buckets_grid``; its
    ``selected_rows`` are the buckets to activate. Each activation creates a
    PENDING_POINTS_ACTIVATED transaction; buckets the service refuses (423:
    date not in the future, inactive program or member, card definition without
    pending points) are listed with the reason. When a run ends the selection is cleared
    (Activate stays disabled until buckets are selected again: a second click sends nothing)
    and the card's buckets are read again (the calls their last load took, counted in the
    cost shown before the run); a bucket activated but not yet settled shows as
    ``activation sent``. A program, member or card chosen while a run rereads the buckets
    lists its own, and the reread, of the card chosen when the run began, shows nothing.
    """

    buckets_select = deprecated_attribute(
        deprecation("lyt_toolkit.widgets.PendingPointsPanel.buckets_select"),
        lambda panel: LegacySelect(panel.buckets_grid, lambda: panel.buckets),
    )
    """Deprecated since 0.4.0, removed in 0.5.0: ``buckets_grid``'s selection as the
    ``SelectMultiple`` of 0.1.0 had it (``options``, settable ``value``)."""

    def __init__(self, client: LoyaltyClient) -> None:
        super().__init__(client, progress_label="Activating", result_columns=RESULTS_VIEW)
        self.program_select = w.Dropdown(options=[_CHOOSE], description="Program")
        self.member_select = w.Dropdown(options=[_CHOOSE], description="Member")
        self.member_search = w.Text(
            placeholder="member ID (lmbr_...) or customer ID (cust_...)",
            layout=w.Layout(width="320px"),
        )
        self._search = Taken[str](self.member_search)
        """What the search box holds: the next read's line, worked out in a load's thread too,
        reads it here."""
        self.find_button = w.Button(description="Find", icon="search", disabled=True)
        self.reads = w.HTML()
        self.card_select = w.Dropdown(options=[_CHOOSE], description="Card")
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.buckets_grid = grid(BUCKET_VIEW, select=True)
        self.buckets: pd.DataFrame = pd.DataFrame(columns=list(BUCKET_VIEW))
        self.activate_button = w.Button(
            description="Activate selected", button_style="primary", disabled=True
        )
        self._buckets: dict[str, PendingBucket] = {}
        self._card: str | None = None
        """The card whose buckets ``_buckets`` holds (None: no card's)."""
        self._walks: dict[str, Walked] = {}
        """The calls each card's last load of its buckets took (by card ID)."""
        self._sent: set[str] = set()
        self._found: MemberWithCards | None = None
        """The member Find read, with its cards: choosing it reads nothing more."""
        self._path: tuple[str | None, str | None, str | None] = (None, None, None)
        """The program, member and card the latest choices ask the lists for, as their
        handlers took them: the loads are started with theirs, and read no dropdown."""

        # A new choice drops the last message and lists what it opens in the background; a
        # failed load shows as the status, not as a traceback from the observer.
        self.program_select.observe(partial(self._chosen, 0), "value")
        self.member_select.observe(partial(self._chosen, 1), "value")
        self.card_select.observe(partial(self._chosen, 2), "value")
        self.buckets_grid.observe(lambda _: self._selection_changed(), names="selected_rows")
        self.member_search.observe(lambda _: self._show_reads(), "value")
        self.find_button.on_click(lambda _: self.find_member())
        self.refresh_button.on_click(lambda _: self.refresh_in_background())
        self.activate_button.on_click(lambda _: self.activate())
        self._show_reads()
        self.children = [
            w.HBox([self.program_select, self.refresh_button]),
            w.HBox([self.member_select, self.member_search, self.find_button]),
            self.reads,
            self.card_select,
            self.buckets_grid,
            w.HBox([self.activate_button, self.cancel_button, self.budget]),
            *self._run_views(),
        ]

    def controls(self) -> Sequence[w.Button]:
        return (self.refresh_button, self.find_button, self.activate_button)

    def _chosen(self, level: int, change: dict[str, Any]) -> None:
        """A new choice of the program (``level`` 0), member (1) or card (2): refused while
        another load runs (the dropdown shows again the value before it, whose list is shown
        or loading), else taken (the choices below it none yet) and what it opens listed."""
        if self._choice_refused(change["owner"], change["old"], STILL_LOADING):
            return
        with self._choosing:
            program, member, card = self._path = _taken(self._path, level, change["new"])
        if level == 0:
            self._choose(partial(self._load_members, program), "members")
        elif level == 1:
            self._choose(partial(self._load_cards, program, member), "cards")
        else:
            self._choose(partial(self._load_buckets, program, member, card), "buckets")

    def _latest_choice(self) -> tuple[str | None, ...]:
        return self._path

    def _choose(self, load: Callable[[], None], what: str) -> None:
        self.status.value = ""
        if not self.load_in_background(lambda: self.guard(load, what)):
            self.show_error(STILL_LOADING)

    def show_loading(self, loading: bool) -> None:
        for choice in (self.program_select, self.member_select, self.card_select):
            choice.disabled = loading
        self.member_search.disabled = loading
        super().show_loading(loading)

    def next_read(self) -> tuple[str, int]:
        """What the panel reads next, as things stand, and its calls (a card's buckets: at
        least that many, until a load of them has walked them all)."""
        what, calls, _ = self._next_read()
        return what, calls

    def _next_read(self) -> tuple[str, int, str]:
        """``next_read``, and the note after its calls (`` or more`` while not known)."""
        program, member, card = self._path
        if program is None:
            return "Choosing a program reads its first page of members", 1, ""
        if member is None:
            text = self._search.value.strip()
            if text:
                return f"Find {text}", 1 if text.startswith(IdPrefix.MEMBER) else 2, ""
            return "Choosing a member reads its cards", 1, ""
        walked = self._walked(card)
        what = "Choosing a card reads its" if card is None else "Refresh reads the card's"
        return f"{what} pending buckets ({walked})", walked.calls, walked.note

    def _walked(self, card: str | None) -> Walked:
        """The calls a load of ``card``'s buckets takes, as far as known."""
        return self._walks.get(card, Walked()) if card else Walked()

    def _show_reads(self) -> None:
        self.reads.value = self._reads_html(*self._next_read())

    def refresh(self) -> None:
        """Load the programs (until one is chosen) and reload the chosen card's buckets
        (their statuses change after activation)."""
        self.status.value = ""
        program, member, card = self._path
        if program is None:
            self.guard(self._load_programs, "programs")
        if card is not None:
            self.guard(partial(self._load_buckets, program, member, card), "pending buckets")

    def _load_programs(self) -> None:
        """The programs, listed while none is chosen."""
        self._check_reads(1, "the programs")
        programs = list(self.client.programs.iter(limit=MAX_LIMIT))
        options = [_CHOOSE] + [(f"{p.name} ({enum_text(p.status)})", p.id) for p in programs]
        self._shows((None,), partial(setattr, self.program_select, "options", options))

    def _load_members(self, program: str | None) -> None:
        """The first page of ``program``'s members (one call), and whether more follow
        (then Find reaches them)."""
        self._shows((program,), partial(self._list_members, []))
        if program:
            self._check_reads(1, "the program's first page of members")
            page = self.client.members.list(program, limit=MAX_LIMIT)
            self._shows((program,), partial(self._list_members, page.data, page.next_cursor))

    def _list_members(self, members: list[Member], more: str | None = None) -> None:
        """List ``members`` (none chosen), and say when the program has ``more``."""
        self._found = None
        self.member_select.options = [_CHOOSE] + [_member_option(m) for m in members]
        if more is not None:
            self.show_ok(
                f"The first {figure(len(members))} members are listed; the program has more:"
                " type a member ID or customer ID and press Find."
            )

    def find_member(self) -> None:
        """Find the member whose ID or customer ID ``member_search`` holds in the chosen
        program, in the background, and choose it (its cards then list)."""
        text = self._search.value.strip()
        program = self._path[0]
        if program is None:
            self.show_error("Choose a program first.")
        elif not text:
            self.show_error("Type a member ID (lmbr_...) or a customer ID (cust_...).")
        else:
            self._choose(partial(self._find, program, text), "the member")

    def _find(self, program: str, text: str) -> None:
        by_id = text.startswith(IdPrefix.MEMBER)
        self._check_reads(1 if by_id else 2, f"finding the member {text}")
        if by_id:
            member = self.client.members.get(program, text)
            self._shows((program,), partial(self._show_found, member, member))
            return
        page = self.client.members.list(program, filters={"customer_id": {"$is": text}}, limit=1)
        if not page.data:
            why = f"No member of this program has customer ID {text}."
            self._shows((program,), partial(self.show_error, why))
            return
        self._shows((program,), partial(self._show_found, page.data[0], None))

    def _show_found(self, member: Member, with_cards: MemberWithCards | None) -> None:
        """Choose ``member``, Find's, listed if it is not (its cards: ``with_cards``, else
        read when it is chosen)."""
        self._found = with_cards
        if member.id not in option_values(self.member_select):
            self.member_select.options = [*self.member_select.options, _member_option(member)]
        self.member_search.value = ""
        self.member_select.value = member.id  # its cards list: read by ID, none more

    def _load_cards(self, program: str | None, member: str | None) -> None:
        """The cards of ``member`` of ``program``: read, unless Find read them."""
        self._shows((program, member), partial(self._list_cards, []))
        if program and member:
            found, self._found = self._found, None
            if found is None or found.id != member:
                self._check_reads(1, "the member's cards")
                found = self.client.members.get(program, member)
            cards = [mc.card for mc in found.cards if mc.card]
            self._shows((program, member), partial(self._list_cards, cards))

    def _list_cards(self, cards: list[Card]) -> None:
        self.card_select.options = [_CHOOSE] + [
            (f"{c.id} ({c.card_definition_id}, {c.balance.points} pts)", c.id) for c in cards
        ]

    def _load_buckets(self, program: str | None, member: str | None, card: str | None) -> None:
        """The buckets of ``card`` (of ``member`` of ``program``), every page, within the
        panel's share: the buckets of another card shown go first; a load refused or stopped
        shows nothing else."""
        chosen = (program, member, card)
        if card != self._card:
            self._shows(chosen, partial(self._show_buckets, None, {}))
        if not (program and member and card):
            return
        what = "the card's pending buckets"
        room = self._check_reads(self._walked(card).calls, what)
        pages = self.client.pending_buckets.pages(program, member, card, limit=MAX_LIMIT)
        buckets, walked = walk(pages, room, lambda bucket: bucket)  # a plan needs them whole
        self._walks[card] = walked
        if not walked.exact:
            raise stopped(what, walked, self.budget_share)
        self._shows(chosen, partial(self._show_buckets, card, {b.id: b for b in buckets}))

    def _show_buckets(self, card: str | None, buckets: dict[str, PendingBucket]) -> None:
        """Show ``buckets``, ``card``'s, in the grid (the selection cleared)."""
        self._card, self._buckets = card, buckets
        self.buckets = pd.DataFrame(
            [
                {
                    "id": b.id,
                    "points": b.points.total,
                    "date": str(b.date),
                    "status": self._shown_status(b),
                }
                for b in self._buckets.values()
            ],
            columns=list(BUCKET_VIEW),
        )
        show(self.buckets_grid, self.buckets)
        self._selection_changed()

    def selected_ids(self) -> list[str]:
        """The IDs of the buckets selected in the grid."""
        return [str(i) for i in selected(self.buckets_grid, self.buckets)["id"]]

    def _plan(self) -> actions.ActivatePendingBuckets:
        return actions.activate_pending_buckets([self._buckets[i] for i in self.selected_ids()])

    def _selection_changed(self) -> None:
        self.update_buttons()
        self.show_cost(self._plan())

    def update_buttons(self) -> None:
        self.enable(self.refresh_button, True)
        self.enable(self.find_button, self._path[0] is not None)
        self.enable(self.activate_button, bool(self.selected_ids()))

    def _reload_calls(self) -> int:
        """The card's buckets read again after a run: the calls their last load took."""
        return self._walked(self._path[2]).calls

    def activate(self) -> None:
        """Start activating the selected buckets; results list transactions and refusals."""
        if not self.selected_ids():
            self.show_error("Select at least one bucket.")
            return
        reload = partial(self._reload_after_run, *self._path)
        if self.run(self._plan(), RESULTS_VIEW, then=reload):
            # The batch holds its buckets: the selection goes, so the button stays disabled
            # when it ends, until buckets are chosen again.
            self.buckets_grid.selected_rows = []

    def _shown_status(self, bucket: PendingBucket) -> str:
        """The bucket's status, or ``SENT`` for one this panel activated still PENDING."""
        status = enum_text(bucket.status)
        return SENT if status == "PENDING" and bucket.id in self._sent else status

    def _reload_after_run(self, program: str | None, member: str | None, card: str | None) -> None:
        """The buckets of the card chosen when the run began read again, those the run
        activated marked (shown while that card is still the one chosen)."""
        if self.results is not None:
            done = self.results["outcome"] == "succeeded"
            self._sent |= {str(t) for t in self.results.loc[done, "target"]}
        self._load_buckets(program, member, card)


def _taken(
    path: tuple[str | None, str | None, str | None], level: int, value: str | None
) -> tuple[str | None, str | None, str | None]:
    """``path`` with ``value`` chosen at ``level`` (0 program, 1 member, 2 card), the choices
    below it none."""
    taken = [*path[:level], value, None, None][:3]
    return taken[0], taken[1], taken[2]


def _member_option(member: Member) -> tuple[str, str]:
    return f"{member.customer_id} ({enum_text(member.status)}) {member.id}", member.id
