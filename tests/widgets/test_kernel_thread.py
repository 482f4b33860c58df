"""The widgets' workers (a load, a batch, its end) read no control, and write one only as
a load shows what it read (``LoadsWhenShown._shows``): a value set on the kernel's thread is
taken there. Each test watches the controls (``off_thread``) through a user's steps on the
sandbox."""

from __future__ import annotations

import threading

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.models.enums import BenefitType
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.widgets import BenefitForm, DangerZone, PendingPointsPanel, RewardDraftPanel

from .helpers import off_thread
from .test_background import _hold, release  # noqa: F401  (a fixture)
from .test_panels import select_ids

PROGRAM, MEMBER = "lprg_c0ffee0001", "lmbr_c0ffee0002"


def test_a_member_id_typed_while_the_members_load_is_the_next_read_and_find_finds_it(
    client: LoyaltyClient,
    fresh: Sandbox,
    release: threading.Event,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reads line the members' load shows at its end names the search typed meanwhile,
    taken on the kernel's thread (the load read the search box, earlier); Find then chooses
    that member and lists its cards."""
    panel = PendingPointsPanel(client)
    panel.refresh_button.click()
    panel.wait()
    seen = off_thread(panel, panel.member_search, panel.member_select)
    held = _hold(client, "members.list", release, monkeypatch)
    panel.program_select.value = PROGRAM
    assert held.wait(30)
    panel.member_search.value = MEMBER
    release.set()
    panel.wait()
    assert panel.reads.value.startswith(f"Find {MEMBER}: "), panel.reads.value
    panel.find_button.click()
    panel.wait()
    assert panel.member_select.value == MEMBER and panel.member_search.value == ""
    cards = [card.card.id for card in client.members.get(PROGRAM, MEMBER).cards if card.card]
    assert [value for _, value in panel.card_select.options][1:] == cards and cards
    assert seen == []


def test_a_refresh_keeps_the_card_definition_chosen_without_reading_the_dropdown(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    """Refresh's load keeps the card definition chosen on the kernel's thread (it read the
    dropdown, earlier), and a benefit created then earns on it."""
    form = BenefitForm(client)
    seen = off_thread(form, form.card_definition)
    form.refresh_button.click()
    form.wait()
    chosen = form.card_definition.options[-1][1]
    form.card_definition.value = chosen
    form.refresh_button.click()
    form.wait()
    assert form.card_definition.value == chosen
    form.name_input.value = "Kernel Points"
    form.type_select.value = BenefitType.POINTS.value
    form.points_value.value = 250
    form.submit_button.click()
    points = client.benefits.get(form.created.id).points
    assert points is not None and (points.card_definition_id, points.value) == (chosen, 250)
    assert seen == []


def test_a_move_to_draft_run_unticks_its_confirmation_as_a_load_shows_its_list(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    """The run's end unticks the confirmation and reads the list again with the filters as
    set on the kernel's thread (the run's thread wrote the box and read it and the filters,
    earlier)."""
    panel = RewardDraftPanel(client)
    seen = off_thread(panel, panel.confirm, panel.name_filter, panel.type_filter)
    panel.name_filter.value = "Latte"
    panel.load_button.click()
    panel.wait()
    active = [str(i) for i in panel.rewards.loc[panel.rewards["status"] == "ACTIVE", "id"]]
    select_ids(panel.rewards_grid, panel.rewards, active[:1])
    panel.confirm.value = True
    panel.draft_button.click()
    panel.wait()
    assert "succeeded: 1" in panel.status.value, panel.status.value
    assert client.rewards.get(active[0]).status == "DRAFT"
    assert not panel.confirm.value and panel.draft_button.disabled
    assert panel.rewards.set_index("id").loc[active[0], "status"] == "DRAFT"  # read again
    assert seen == []


def test_a_webhook_deletion_empties_its_phrase_box_as_a_load_shows_its_list(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    """The run's end empties the phrase box and syncs the Delete button with the phrase taken
    on the kernel's thread (the run's thread wrote the box and read it, earlier)."""
    zone = DangerZone(client)
    zone.refresh_button.click()
    zone.wait()
    zone.project_select.value = "proj_NwMain01"
    zone.wait()
    hooks = list(zone.webhooks.frame["id"])
    seen = off_thread(zone, zone.webhooks.confirm_text, zone.project_select)
    select_ids(zone.webhooks.grid, zone.webhooks.frame, hooks[:1])
    zone.webhooks.confirm_text.value = hooks[0]
    zone.webhooks.delete_button.click()
    zone.wait()
    assert "succeeded: 1" in zone.status.value, zone.status.value
    assert [h.id for h in client.webhooks.list("proj_NwMain01")] == hooks[1:]
    assert zone.webhooks.confirm_text.value == "" and zone.webhooks.delete_button.disabled
    assert seen == []
