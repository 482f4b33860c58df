"""DangerZone.tier_structures_select and webhooks_select, RewardDraftPanel.rewards_select and
PendingPointsPanel.buckets_select, the SelectMultiple lists of 0.1.0, are deprecated views of
the grids that replaced them: a FutureWarning naming the grid, and the old route (options,
value, the button) still acts on the selected rows."""

from __future__ import annotations

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.widgets import DangerZone, RewardDraftPanel

from .test_panels import _pending_panel, _zone


def test_tier_structures_select_warns_naming_the_grid(client: LoyaltyClient) -> None:
    zone = _zone(client)
    with pytest.warns(
        FutureWarning, match=r"removed in 0\.5\.0; use DangerZone\.tier_structures\.grid"
    ):
        zone.tier_structures_select  # noqa: B018


def test_the_old_route_still_deletes_a_tier_structure(client: LoyaltyClient) -> None:
    zone = _zone(client)
    with pytest.warns(FutureWarning):
        select = zone.tier_structures_select
    frame = zone.tier_structures.frame
    first = frame.iloc[0]
    assert select.options[0] == (
        f"{first['name']} | {first['status']} | {first['id']}",
        first["id"],
    )
    assert [value for _, value in select.options] == list(frame["id"])
    select.value = ("lts_c0ffee0006",)
    assert select.value == ("lts_c0ffee0006",) == zone.tier_structures.ids()
    zone.tier_structures.confirm_text.value = "lts_c0ffee0006"
    assert not zone.tier_structures.delete_button.disabled
    zone.tier_structures.delete_button.click()
    zone.wait()
    assert client.tier_structures.get("lts_c0ffee0006").status == "DELETED"


def test_an_unlisted_id_is_refused(client: LoyaltyClient) -> None:
    zone = _zone(client)
    with pytest.warns(FutureWarning):
        select = zone.tier_structures_select
    with pytest.raises(ValueError, match="lts_nope"):
        select.value = ("lts_nope",)


def test_webhooks_select_lists_the_chosen_project(client: LoyaltyClient) -> None:
    zone = _zone(client)
    zone.project_select.value = "proj_NwMain01"
    zone.wait()
    with pytest.warns(FutureWarning, match=r"DangerZone\.webhooks\.grid"):
        select = zone.webhooks_select
    hooks = list(zone.webhooks.frame["id"])
    assert [value for _, value in select.options] == hooks
    select.value = (hooks[1],)
    assert zone.webhooks.ids() == (hooks[1],)


def test_the_old_selects_cannot_be_replaced(client: LoyaltyClient) -> None:
    zone = DangerZone(client)
    with pytest.raises(AttributeError, match="cannot be set"):
        zone.tier_structures_select = None


def test_rewards_select_still_moves_the_selected_rewards_to_draft(client: LoyaltyClient) -> None:
    panel = RewardDraftPanel(client)
    panel.name_filter.value = "Latte"
    panel.load_button.click()
    panel.wait()
    with pytest.warns(FutureWarning, match=r"use RewardDraftPanel\.rewards_grid"):
        select = panel.rewards_select
    first = panel.rewards.iloc[0]
    label = f"{first['name']} | {first['status']} | {first['type']} | {first['id']}"
    assert select.options[0] == (label, first["id"])  # as 0.1.0 labelled a reward
    active = [i for i in panel.rewards["id"] if client.rewards.get(i).status == "ACTIVE"]
    select.value = tuple(active)
    assert sorted(panel.selected_ids()) == sorted(active) == sorted(select.value)
    panel.confirm.value = True
    panel.draft_button.click()
    panel.wait()
    assert all(client.rewards.get(i).status == "DRAFT" for i in active)


def test_buckets_select_selects_the_buckets_to_activate(client: LoyaltyClient) -> None:
    panel = _pending_panel(client)
    with pytest.warns(FutureWarning, match=r"use PendingPointsPanel\.buckets_grid"):
        select = panel.buckets_select
    assert [value for _, value in select.options] == list(panel.buckets["id"])
    select.value = ("lcppb_c0ffee0001",)
    assert panel.selected_ids() == ["lcppb_c0ffee0001"] and not panel.activate_button.disabled
