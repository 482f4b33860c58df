"""RewardDraftPanel, PendingPointsPanel and DangerZone driven headless: grids selected,
buttons clicked, the background batch waited for, the sandbox checked over HTTP."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd
import pytest
from fixture_types import StartSandbox
from frame_reads import cell
from itables.widget import ITable

from lyt_toolkit._shares import share_of
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program
from lyt_toolkit.widgets import (
    DangerZone,
    PendingPointsPanel,
    RewardDraftPanel,
    confirmation_phrase,
)
from lyt_toolkit.widgets._plan_panel import PlanPanel

from .helpers import ran, shown


def select_ids(grid: ITable, frame: pd.DataFrame, ids: list[str]) -> None:
    """Select in ``grid`` the rows of ``frame`` whose ``id`` is in ``ids`` (as a click would)."""
    grid.selected_rows = [i for i, value in enumerate(frame["id"]) if value in ids]


def _loaded_rewards(client: LoyaltyClient, **filters: str) -> RewardDraftPanel:
    """A reward draft panel that loaded the rewards its ``filters`` let through (filter widget
    name to value: ``name_filter="Latte"``)."""
    panel = RewardDraftPanel(client)
    for name, value in filters.items():
        getattr(panel, name).value = value
    panel.load_button.click()
    panel.wait()
    return panel


def test_reward_draft_panel(client: LoyaltyClient) -> None:
    panel = _loaded_rewards(client, name_filter="Latte")
    ids = list(panel.rewards["id"])
    assert list(shown(panel.rewards_grid)["id"]) == ids  # the grid shows what was loaded
    names = {client.rewards.get(i).name for i in ids}
    assert names and all("latte" in n.lower() for n in names)
    statuses = {i: client.rewards.get(i).status for i in ids}
    active = [i for i, s in statuses.items() if s == "ACTIVE"]
    others = [i for i, s in statuses.items() if s != "ACTIVE"]
    assert active and others

    select_ids(panel.rewards_grid, panel.rewards, ids)
    assert sorted(panel.selected_ids()) == sorted(ids)
    # One move per reward, and the list read again after the run (one page).
    assert f"calls needed: {len(ids) + 1} (with 1 read of the list" in panel.budget.value
    assert panel.draft_button.disabled  # not confirmed yet
    panel.confirm.value = True
    assert not panel.draft_button.disabled
    panel.draft_button.click()
    panel.wait()
    for reward_id in active:
        assert client.rewards.get(reward_id).status == "DRAFT"
    results = ran(panel).set_index("target")
    assert (results.loc[others, "status"] == 409).all()
    assert f"failed: {len(others)}" in panel.status.value
    assert "\u26a0" in panel.status.value  # some failed: the partial state, not a green line
    assert panel.progress.bar_style == "warning"
    assert set(shown(panel.results_grid)["target"]) == set(ids)
    assert 'download="move_reward_to_draft_results.csv"' in panel.download.value
    assert panel.confirm.value is False and panel.draft_button.disabled
    assert not panel.load_button.disabled and panel.cancel_button.disabled


def test_reward_type_filter(client: LoyaltyClient) -> None:
    panel = _loaded_rewards(client, type_filter="DIGITAL")
    ids = list(panel.rewards["id"])
    assert ids and all(client.rewards.get(i).type == "DIGITAL" for i in ids)


@pytest.fixture(scope="module")
def many(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """A generated program of 230 rewards and 250 members, three pages of 100 each: lists a
    panel must not walk whole unasked, or must count."""
    program = generate_program(
        rewards=230, benefits=10, card_definitions=3, tier_structures=2, members=250, seed=11
    )
    with start_sandbox(program, now=program["now"]) as sandbox:
        yield sandbox


def _put_back(sandbox: Sandbox) -> None:
    """``sandbox``'s data reloaded, with no faults and a budget without limit."""
    sandbox.set_plan("unlimited")
    sandbox.clear_faults()
    sandbox.reset()


@contextmanager
def _client_put_back(
    sandbox: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> Iterator[LoyaltyClient]:
    """A client of ``sandbox``, put back (``_put_back``) first: each test that reaches
    ``many`` or ``full_card`` does so through one of these."""
    _put_back(sandbox)
    with make_client(sandbox) as client:
        yield client


@pytest.fixture
def many_client(
    many: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> Iterator[LoyaltyClient]:
    """A client of ``many``, put back (data, a budget without limit) before the test."""
    with _client_put_back(many, make_client) as client:
        yield client


def _tight_budget(sandbox: Sandbox, client: LoyaltyClient, plan: str) -> int:
    """``plan`` in force, learnt by ``client`` (one call): the calls a panel's share allows."""
    sandbox.set_plan(plan)
    client.rewards.list(limit=1)
    assert client.quota.remaining is not None
    return share_of(client.quota.remaining, 0.5)


def test_reward_draft_cost_counts_the_list_read_again_and_the_budget_holds_it(
    many: Sandbox, many_client: LoyaltyClient
) -> None:
    panel = _loaded_rewards(many_client)
    assert len(panel.rewards) == 230  # three pages: the reload after a run reads them again
    active = list(panel.rewards.loc[panel.rewards["status"] == "ACTIVE", "id"])
    select_ids(panel.rewards_grid, panel.rewards, active[:5])
    assert "calls needed: 8 (with 3 reads of the list after the run)" in panel.budget.value
    panel.confirm.value = True
    used = many.plan()["used"]
    panel.draft_button.click()
    panel.wait()
    assert set(ran(panel)["outcome"]) == {"succeeded"}
    assert many.plan()["used"] == used + 8  # as shown: five moves, three pages read again

    # A run whose moves fit the panel's share but whose reload does not is refused unsent.
    allowed = _tight_budget(many, many_client, "20/hour")
    chosen = active[5 : 5 + allowed - 2]  # they fit the share; with the reload, one short
    select_ids(panel.rewards_grid, panel.rewards, chosen)
    assert f"calls needed: {len(chosen) + 3} (with 3 reads" in panel.budget.value
    assert "1 call short" in panel.budget.value
    panel.confirm.value = True
    used = many.plan()["used"]
    panel.draft_button.click()
    panel.wait()
    assert "Refused, nothing was sent: the call budget cannot carry it" in panel.status.value
    assert many.plan()["used"] == used
    assert all(many_client.rewards.get(r).status == "ACTIVE" for r in chosen[:1])


def _said(line: Any) -> str:
    """The text an HTML widget shows (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", line.value))


def test_reward_load_says_its_calls_before_it_reads_and_sends_what_it_said(
    many: Sandbox, many_client: LoyaltyClient
) -> None:
    many_client.rewards.list(limit=1)  # the token held: the sandbox counts what `reads` counts
    panel = RewardDraftPanel(many_client)
    reads = _said(panel.reads)
    assert "Load rewards reads the rewards (a call per page of 100, how many known" in reads
    assert "calls needed: 1 or more;" in reads  # no totals: the pages are known once read
    used = many.plan()["used"]
    panel.load_button.click()
    panel.wait()
    assert len(panel.rewards) == 230 and many.plan()["used"] == used + 3
    reads = _said(panel.reads)
    assert "(3 pages of 100, as its last load took): calls needed: 3;" in reads
    used = many.plan()["used"]
    panel.load_button.click()
    panel.wait()
    assert many.plan()["used"] == used + 3  # as shown
    panel.type_filter.value = "DIGITAL"  # filters not loaded yet: their pages are not known
    reads = _said(panel.reads)
    assert "reads the rewards the filters let through (a call per page" in reads
    assert "calls needed: 1 or more;" in reads


def test_a_reward_load_beyond_the_panels_share_is_refused_or_stopped_at_it(
    many: Sandbox, many_client: LoyaltyClient
) -> None:
    many.set_plan("8/hour")
    panel = _loaded_rewards(many_client)  # the token, then three pages: within half of 7
    shown = panel.rewards
    assert len(shown) == 230 and many.plan()["remaining"] == 4
    reads = _said(panel.reads)
    assert "calls needed: 3;" in reads and "share (0.5): 2; 1 call short" in reads
    used = many.plan()["used"]
    panel.load_button.click()
    panel.wait()
    status = _said(panel.status)
    assert "Could not load rewards: the rewards (3 calls) not started" in status
    assert "share (0.5)" in status
    assert many.plan()["used"] == used and panel.rewards is shown  # nothing sent

    # Pages not known yet: the load fits one call, and stops before a page beyond the share.
    other = RewardDraftPanel(many_client)
    assert "calls needed: 1 or more;" in _said(other.reads)
    other.load_button.click()
    other.wait()
    assert many.plan()["used"] == used + 2 and other.rewards.empty
    status = _said(other.status)
    assert "the rewards stopped after 2 pages of 100, more following" in status
    assert "Narrow the filters" in status and "budget_share = 1.0" in status
    reads = _said(other.reads)
    assert "(more than 2 pages: its last load stopped there): calls needed: 3 or more;" in reads
    used = many.plan()["used"]
    other.load_button.click()  # now known to need three or more: refused unsent
    other.wait()
    assert "not started" in other.status.value and many.plan()["used"] == used


def test_a_run_reads_again_the_rewards_it_showed_not_filters_edited_since(
    many: Sandbox, many_client: LoyaltyClient
) -> None:
    panel = _loaded_rewards(many_client, type_filter="DIGITAL")  # one page of them
    shown = set(panel.rewards["id"])
    assert 0 < len(shown) <= 100
    panel.type_filter.value = None  # all 230 rewards, three pages: not what is shown
    active = panel.rewards[panel.rewards["status"] == "ACTIVE"]
    # An ACTIVE one moves: a refused one is read back after its 409, a call no cost foresees.
    select_ids(panel.rewards_grid, panel.rewards, sorted(active["id"])[:1])
    assert "calls needed: 2 (with 1 read of the list after the run)" in panel.budget.value
    panel.confirm.value = True
    used = many.plan()["used"]
    panel.draft_button.click()
    panel.wait()
    assert many.plan()["used"] == used + 2  # as shown
    assert set(panel.rewards["id"]) == shown


def test_danger_zone_says_what_it_reads_and_sends_what_it_said(
    many: Sandbox, many_client: LoyaltyClient
) -> None:
    many_client.rewards.list(limit=1)  # the token held: the sandbox counts what `reads` counts
    zone = DangerZone(many_client)
    reads = _said(zone.reads)
    assert (
        "Refresh reads the tier structures (a call per page of 100, how many known once read)"
        " and the projects: calls needed: 2 or more;" in reads
    )
    assert "Choosing a project reads its webhooks: calls needed: 1;" in reads
    used = many.plan()["used"]
    zone.refresh_button.click()
    zone.wait()
    assert many.plan()["used"] == used + 2 and len(zone.tier_structures.frame) == 2
    reads = _said(zone.reads)
    assert "(1 page of 100, as its last load took) and the projects: calls needed: 2;" in reads
    used = many.plan()["used"]
    zone.project_select.value = zone.project_select.options[1][1]
    zone.wait()
    assert many.plan()["used"] == used + 1
    reads = _said(zone.reads)
    assert "(1 page of 100, as its last load took) and the projects: calls needed: 2;" in reads
    assert (
        "Then the chosen project's webhooks, if the projects still list it: calls needed: 1;"
        in reads
    )
    used = many.plan()["used"]
    zone.refresh_button.click()
    zone.wait()
    assert many.plan()["used"] == used + 2 + 1 and zone.status.value == ""  # as shown


def test_danger_zone_loads_beyond_the_panels_share_are_refused_unsent(
    many: Sandbox, many_client: LoyaltyClient
) -> None:
    many_client.rewards.list(limit=1)  # the token held
    many.set_plan("4/hour")
    zone = _zone(many_client)  # two calls: half the window
    project = zone.project_select.options[1][1]
    zone.project_select.value = project  # one: half the two left
    zone.wait()
    assert many.plan()["remaining"] == 1
    reads = _said(zone.reads)
    assert "the projects: calls needed: 2;" in reads and "2 calls short" in reads
    assert "webhooks, if the projects still list it: calls needed: 1;" in reads
    assert "1 call short" in reads
    used = many.plan()["used"]
    zone.refresh_button.click()
    zone.wait()
    status = _said(zone.status)
    assert "Could not load the lists: the tier structures and the projects (2 calls) not" in status
    zone.project_select.value = None
    zone.project_select.value = project
    zone.wait()
    status = _said(zone.status)
    assert "Could not load webhooks: the chosen project's webhooks (1 call) not started" in status
    assert many.plan()["used"] == used  # nothing sent
    assert len(zone.tier_structures.frame) == 2  # the list shown stays


def test_danger_zone_refresh_within_the_share_for_its_lists_only_refuses_the_webhooks_unsent(
    many: Sandbox, many_client: LoyaltyClient
) -> None:
    many_client.rewards.list(limit=1)  # the token held
    many.set_plan("5/hour")
    zone = _zone(many_client)  # two calls
    zone.budget_share = 1.0
    zone.project_select.value = zone.project_select.options[1][1]  # one: two left
    zone.wait()
    reads = _said(zone.reads)
    assert "the projects: calls needed: 2; remaining this window: 2 of 5" in reads
    used = many.plan()["used"]
    zone.refresh_button.click()
    zone.wait()
    assert many.plan()["used"] == used + 2  # the lists; the webhooks beyond the share: unsent
    status = _said(zone.status)
    assert "Could not load webhooks: the chosen project's webhooks (1 call) not started" in status
    assert len(zone.tier_structures.frame) == 2 and zone.webhooks.frame.empty


def _calls_needed(line: Any) -> list[int]:
    """The calls each read of a ``reads`` line needs, in the order it lists them."""
    return [int(n) for n in re.findall(r"calls needed: (\d+)", _said(line))]


@pytest.mark.parametrize(
    ("chosen", "listed"), [("proj_NwGone01", False), ("proj_NwMain01", True)], ids=["gone", "kept"]
)
def test_danger_zone_refresh_sends_what_its_reads_line_counts_the_chosen_project_gone_or_not(
    fresh: Sandbox, client: LoyaltyClient, chosen: str, listed: bool
) -> None:
    """The dropdown lists a project the service no longer has (deleted since the zone
    loaded): chosen, Refresh does not read its webhooks; another chosen, they are read once
    (the projects listed anew, the dropdown's options change)."""
    zone = _zone(client)
    gone = ("Northwind Gone", "proj_NwGone01")
    zone.project_select.options = [*zone.project_select.options, gone]
    zone.project_select.value = chosen
    zone.wait()
    assert ("404" in zone.status.value) is not listed  # the gone one's webhooks are not found
    refresh, webhooks = _calls_needed(zone.reads)
    used = fresh.plan()["used"]
    zone.refresh_button.click()
    zone.wait()
    sent = fresh.plan()["used"] - used
    assert sent == refresh + (webhooks if listed else 0)  # as shown
    assert sent == (3 if listed else 2)  # a page of tier structures, the projects, the webhooks
    assert zone.project_select.value == (chosen if listed else None)
    assert gone not in zone.project_select.options and zone.status.value == ""
    assert len(zone.webhooks.frame) == (2 if listed else 0)


def test_pending_points_panel_reads_one_page_of_members_and_finds_the_others(
    many: Sandbox, many_client: LoyaltyClient
) -> None:
    panel = PendingPointsPanel(many_client)
    panel.refresh_button.click()
    panel.wait()
    program = panel.program_select.options[1][1]
    used = many.plan()["used"]
    panel.program_select.value = program
    panel.wait()
    assert many.plan()["used"] == used + 1  # one page of 100, not all 250 members
    listed = [value for _, value in panel.member_select.options[1:]]
    assert len(listed) == 100
    assert "the program has more" in panel.status.value
    assert "Choosing a member reads its cards: " in panel.reads.value

    others = [m for m in many_client.members.iter(program, limit=100) if m.id not in listed]
    by_id, by_customer = others[0], others[1]
    panel.member_search.value = by_id.id  # pasted
    assert f"Find {by_id.id}: " in panel.reads.value and "calls needed: 1;" in panel.reads.value
    used = many.plan()["used"]
    panel.find_button.click()
    panel.wait()
    assert panel.member_select.value == by_id.id and len(panel.card_select.options) > 1
    assert many.plan()["used"] == used + 1  # the member with its cards, read once

    panel.member_select.value = None
    panel.wait()
    panel.member_search.value = by_customer.customer_id
    assert "calls needed: 2;" in panel.reads.value
    used = many.plan()["used"]
    panel.find_button.click()
    panel.wait()
    assert panel.member_select.value == by_customer.id and len(panel.card_select.options) > 1
    assert many.plan()["used"] == used + 2  # the member found, then its cards
    card = panel.card_select.options[1][1]
    panel.card_select.value = card
    panel.wait()
    assert many.plan()["used"] == used + 3
    assert set(panel.buckets["id"]) == {
        b.id for b in many_client.pending_buckets.iter(program, by_customer.id, card)
    }

    # A read beyond the panel's share of the budget is refused, nothing sent.
    panel.member_select.value = None
    panel.wait()
    assert _tight_budget(many, many_client, "4/hour") == 1
    panel.member_search.value = others[2].customer_id  # two calls: more than the share
    assert "1 call short" in panel.reads.value
    used = many.plan()["used"]
    panel.find_button.click()
    panel.wait()
    assert "Could not load the member" in panel.status.value
    assert "share (0.5)" in panel.status.value
    assert many.plan()["used"] == used and panel.member_select.value is None


def _pending_panel(client: LoyaltyClient) -> PendingPointsPanel:
    panel = PendingPointsPanel(client)
    panel.refresh_button.click()
    panel.wait()
    panel.program_select.value = "lprg_c0ffee0001"
    panel.wait()  # each choice lists the next one in the background
    panel.member_select.value = "lmbr_c0ffee0001"
    panel.wait()
    panel.card_select.value = panel.card_select.options[1][1]
    panel.wait()
    return panel


def test_pending_points_panel(client: LoyaltyClient) -> None:
    panel = _pending_panel(client)
    buckets = list(panel.buckets["id"])
    assert "lcppb_c0ffee0001" in buckets and "lcppb_c0ffee0003" in buckets
    assert panel.activate_button.disabled
    select_ids(panel.buckets_grid, panel.buckets, ["lcppb_c0ffee0001", "lcppb_c0ffee0003"])
    assert not panel.activate_button.disabled
    panel.activate_button.click()
    panel.wait()
    results = ran(panel).set_index("target")
    ok, locked = results.loc["lcppb_c0ffee0001"], results.loc["lcppb_c0ffee0003"]
    assert ok.outcome == "succeeded" and ok.transaction_id.startswith("lctx_")
    assert ok.transaction_id in set(shown(panel.results_grid)["transaction_id"])
    assert (locked.outcome, locked.status) == ("failed", 423)
    assert "succeeded: 1" in panel.status.value and "failed: 1" in panel.status.value
    # The service completes the activation in the background; Refresh shows the bucket gone
    # from the list (the service lists PENDING buckets only), the refused one still there.
    deadline = time.monotonic() + 10
    while _listed(panel, "lcppb_c0ffee0001") and time.monotonic() < deadline:
        time.sleep(0.05)
        panel.refresh_button.click()
        panel.wait()
    assert not _listed(panel, "lcppb_c0ffee0001") and _listed(panel, "lcppb_c0ffee0003")


def _listed(panel: PendingPointsPanel, bucket_id: str) -> bool:
    return bucket_id in set(panel.buckets["id"])


def test_a_finished_activation_cannot_be_sent_again_by_a_second_click(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    panel = _pending_panel(client)
    select_ids(panel.buckets_grid, panel.buckets, ["lcppb_c0ffee0001", "lcppb_c0ffee0003"])
    used = fresh.plan()["used"]
    panel.activate_button.click()
    panel.wait()
    assert cell(ran(panel).set_index("target"), "lcppb_c0ffee0001", "outcome") == "succeeded"
    # The run's three calls (two activations, the refused one read back with its card's
    # bucket list alone) and one read of the card's buckets, shown again: the activated
    # bucket gone (settled) or marked as sent, the refused one still PENDING; nothing selected.
    assert fresh.plan()["used"] == used + 3 + 1
    status = panel.buckets.set_index("id")["status"]
    assert status.get("lcppb_c0ffee0001", "activation sent") == "activation sent"
    assert status["lcppb_c0ffee0003"] == "PENDING"
    assert list(shown(panel.buckets_grid)["id"]) == list(panel.buckets["id"])
    assert panel.selected_ids() == [] and list(panel.buckets_grid.selected_rows) == []
    assert panel.activate_button.disabled and not panel.refresh_button.disabled
    # A second click sends nothing: there is nothing selected to activate.
    results, used = panel.results, fresh.plan()["used"]
    panel.activate_button.click()
    panel.wait()
    assert fresh.plan()["used"] == used and panel.results is results
    assert "Select at least one bucket" in panel.status.value
    # A new selection enables the button again.
    select_ids(panel.buckets_grid, panel.buckets, ["lcppb_c0ffee0003"])
    assert not panel.activate_button.disabled


@pytest.fixture(scope="module")
def full_card(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """A generated program of one member whose one card holds 200 pending buckets: two full
    pages of its bucket list (with ``full_page_cursor``, a cursor to an empty third)."""
    program = generate_program(
        rewards=1,
        benefits=1,
        card_definitions=2,
        tier_structures=1,
        members=1,
        pending_buckets=200,
        seed=3,
    )
    with start_sandbox(program, now=program["now"]) as sandbox:
        yield sandbox


@pytest.fixture
def full_card_client(
    full_card: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> Iterator[LoyaltyClient]:
    """A client of ``full_card``, put back (data, no faults, no limit) before the test."""
    with _client_put_back(full_card, make_client) as client:
        yield client


def _at_the_card(client: LoyaltyClient) -> PendingPointsPanel:
    """A pending points panel of ``client``'s one program and member, no card chosen yet."""
    panel = PendingPointsPanel(client)
    panel.refresh_button.click()
    panel.wait()
    panel.program_select.value = panel.program_select.options[1][1]
    panel.wait()
    panel.member_select.value = panel.member_select.options[1][1]
    panel.wait()
    return panel


def _choose_the_card(panel: PendingPointsPanel) -> None:
    panel.card_select.value = panel.card_select.options[1][1]
    panel.wait()


@pytest.mark.parametrize("full_page_cursor", [False, True])
def test_a_cards_buckets_show_1_or_more_calls_before_their_load_and_send_what_they_show(
    full_card: Sandbox, full_card_client: LoyaltyClient, full_page_cursor: bool
) -> None:
    full_card.set_faults(full_page_cursor=full_page_cursor)
    pages = 3 if full_page_cursor else 2  # the empty page the last full one's cursor names
    panel = _at_the_card(full_card_client)
    reads = _said(panel.reads)
    assert (
        "Choosing a card reads its pending buckets (a call per page of 100, how many known"
        " once read): calls needed: 1 or more;" in reads
    )
    used = full_card.plan()["used"]
    _choose_the_card(panel)
    assert len(panel.buckets) == 200 and full_card.plan()["used"] == used + pages
    reads = _said(panel.reads)
    assert (
        f"Refresh reads the card's pending buckets ({pages} pages of 100, as its last load"
        f" took): calls needed: {pages};" in reads
    )
    select_ids(panel.buckets_grid, panel.buckets, list(panel.buckets["id"][:1]))
    assert f"(with {pages} reads of the list after the run)" in panel.budget.value
    used = full_card.plan()["used"]
    panel.refresh_button.click()
    panel.wait()
    assert full_card.plan()["used"] == used + pages and len(panel.buckets) == 200  # as shown


def test_a_cards_bucket_load_beyond_the_panels_share_stops_or_is_refused_the_list_kept(
    full_card: Sandbox, full_card_client: LoyaltyClient
) -> None:
    loaded = _at_the_card(full_card_client)
    _choose_the_card(loaded)  # two pages, known
    other = _at_the_card(full_card_client)
    assert _tight_budget(full_card, full_card_client, "4/hour") == 1

    # Pages not known yet: the load fits one call, and stops before a page beyond the share.
    used = full_card.plan()["used"]
    _choose_the_card(other)
    assert full_card.plan()["used"] == used + 1 and other.buckets.empty
    status = _said(other.status)
    assert "the card's pending buckets stopped after 1 page of 100, more following" in status
    assert "budget_share = 1.0" in status
    reads = _said(other.reads)
    assert "(more than 1 page: its last load stopped there): calls needed: 2 or more;" in reads

    # Now known to need two or more, or two: refused unsent, the list shown kept.
    used, shown = full_card.plan()["used"], loaded.buckets
    for panel in (other, loaded):
        panel.refresh_button.click()
        panel.wait()
        assert "pending buckets (2 calls) not started" in _said(panel.status)
    assert full_card.plan()["used"] == used
    assert loaded.buckets is shown and len(shown) == 200
    select_ids(loaded.buckets_grid, loaded.buckets, list(shown["id"][:1]))
    assert loaded.selected_ids() == [shown["id"].iloc[0]] and not loaded.activate_button.disabled
    assert "calls needed: " in loaded.budget.value  # its plan is made of the buckets shown


def test_pending_points_panel_shows_a_failed_load_as_its_status(
    fresh: Sandbox, single_try_client: LoyaltyClient
) -> None:
    panel = PendingPointsPanel(single_try_client)
    panel.refresh()
    fresh.set_faults(unavailable=1.0, seed=1)
    panel.program_select.value = "lprg_c0ffee0001"  # no exception escapes the load
    panel.wait()
    assert "Could not load members" in panel.status.value and "503" in panel.status.value
    fresh.clear_faults()
    panel.program_select.value = None
    panel.wait()
    panel.program_select.value = "lprg_c0ffee0001"
    panel.wait()
    assert panel.status.value == "" and len(panel.member_select.options) > 1


def test_reward_draft_panel_shows_a_failed_load_as_its_status(
    fresh: Sandbox, single_try_client: LoyaltyClient
) -> None:
    panel = RewardDraftPanel(single_try_client)
    fresh.set_faults(unavailable=1.0, seed=1)  # ``fresh`` clears them afterwards
    panel.load_button.click()  # no exception escapes the click handler
    panel.wait()
    assert "Could not load rewards" in panel.status.value


def test_confirmation_phrase() -> None:
    assert confirmation_phrase((), "webhook") == ""
    assert confirmation_phrase(("lts_1",), "tier structure") == "lts_1"
    assert confirmation_phrase(("a", "b", "c"), "tier structure") == "DELETE 3 tier structures"


def _zone(client: LoyaltyClient) -> DangerZone:
    zone = DangerZone(client)
    zone.refresh_button.click()
    zone.wait()
    return zone


def test_danger_zone_tier_structures(fresh: Sandbox, client: LoyaltyClient) -> None:
    zone = _zone(client)
    section = zone.tier_structures
    select_ids(section.grid, section.frame, ["lts_c0ffee0006", "lts_c0ffee0003"])
    assert section.ids() == ("lts_c0ffee0003", "lts_c0ffee0006")  # in the grid's order
    assert section.delete_button.disabled
    # Two deletions, then the lists read again: the tier structures (a page), the projects.
    assert "calls needed: 4 (with 2 reads of the lists after the run)" in zone.budget.value
    section.confirm_text.value = "DELETE 2 tier structure"  # not exact
    assert section.delete_button.disabled
    section.confirm_text.value = "DELETE 2 tier structures"
    assert not section.delete_button.disabled
    used = fresh.plan()["used"]
    section.delete_button.click()
    zone.wait()
    assert fresh.plan()["used"] == used + 4  # as shown
    for ts_id in ("lts_c0ffee0006", "lts_c0ffee0003"):
        assert client.tier_structures.get(ts_id).status == "DELETED"
    assert "succeeded: 2" in zone.status.value and "\u2714" in zone.status.value
    assert zone.progress.bar_style == "success"
    remaining = list(section.frame["id"])
    assert list(shown(section.grid)["id"]) == remaining and section.grid.selected_rows == []
    assert "lts_c0ffee0006" not in remaining and "lts_c0ffee0001" in remaining
    assert section.confirm_text.value == "" and section.delete_button.disabled


def test_danger_zone_webhooks(fresh: Sandbox, client: LoyaltyClient) -> None:
    zone = _zone(client)
    zone.project_select.value = "proj_NwMain01"
    zone.wait()  # the project's webhooks load in the background
    hooks = list(zone.webhooks.frame["id"])
    assert len(hooks) == 2
    select_ids(zone.webhooks.grid, zone.webhooks.frame, [hooks[0]])
    # The deletion, then the tier structures, the projects and this project's webhooks.
    assert "calls needed: 4 (with 3 reads of the lists after the run)" in zone.budget.value
    zone.webhooks.confirm_text.value = hooks[0]
    used = fresh.plan()["used"]
    zone.webhooks.delete_button.click()
    zone.wait()
    assert fresh.plan()["used"] == used + 4  # as shown
    assert [h.id for h in client.webhooks.list("proj_NwMain01")] == [hooks[1]]
    assert list(zone.webhooks.frame["id"]) == [hooks[1]]

    zone.project_select.value = "proj_NwStarter01"
    zone.wait()
    assert "402" in zone.status.value and zone.webhooks.frame.empty

    zone.project_select.value = "proj_NwStage01"  # the 402 was about the other project
    zone.wait()
    assert zone.status.value == "" and len(zone.webhooks.frame) == 1


def test_danger_zone_refuses_without_phrase(client: LoyaltyClient) -> None:
    zone = _zone(client)
    select_ids(zone.tier_structures.grid, zone.tier_structures.frame, ["lts_c0ffee0006"])
    zone.delete_tier_structures()  # even called directly, the phrase is required
    assert "lts_c0ffee0006" in zone.status.value and "to confirm" in zone.status.value
    assert client.tier_structures.get("lts_c0ffee0006").status != "DELETED"


@pytest.mark.parametrize("widget", [RewardDraftPanel, PendingPointsPanel, DangerZone])
def test_every_batch_widget_has_a_progress_bar_and_a_cancel_button(
    client: LoyaltyClient, widget: Callable[[LoyaltyClient], PlanPanel]
) -> None:
    panel = widget(client)
    assert panel.progress.__class__.__name__ == "IntProgress"
    assert panel.cancel_button.description == "Cancel" and panel.cancel_button.disabled
