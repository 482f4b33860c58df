"""Each widget of the widgets notebook, used by typing and clicking like a person.

The notebook runs whole (it has no clean-up cell, so its sandbox keeps serving): the
run ``test_notebooks_in_browser`` checks, made once per session. A cell typed into it
then prints the sandbox's URL, and the test reaches that sandbox
over HTTP with the credentials the lab gave its kernels. Every test checks both what
the widget shows and what the service now holds. The notebook's own cells have
driven the widgets from code before, so the tests pick what those left untouched.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from lyt_toolkit import LoyaltyClient

from .lab import CREDENTIALS, Lab
from .notebook_ui import NotebookOpener, NotebookRuns, NotebookUI
from .widget_ui import (
    BenefitFormUI,
    BulkImportUI,
    DangerZoneUI,
    EditPanelUI,
    FindingsUI,
    PendingPointsUI,
    RewardDraftUI,
    WhatIfPanelUI,
    expect_status,
    grid_rows,
    result_row,
)

WIDGETS_NOTEBOOK = "03-bulk-edits-with-widgets.ipynb"
PROGRAM, MEMBER, CARD = "lprg_c0ffee0001", "lmbr_c0ffee0001", "lcrd_c0ffee0001"


@pytest.fixture(scope="module")
def notebook(notebook_runs: NotebookRuns) -> NotebookUI:
    run = notebook_runs(WIDGETS_NOTEBOOK)
    assert run.errors == []
    return run.ui


@pytest.fixture(scope="module")
def client(notebook: NotebookUI) -> Iterator[LoyaltyClient]:
    """A client on the notebook's own sandbox, whose URL a typed cell prints."""
    url = notebook.run_new_cell("print(sb.base_url)").strip()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url), url
    with LoyaltyClient(base_url=url, env_file=None, **CREDENTIALS.as_client_kwargs()) as c:
        yield c


def _benefits_named(client: LoyaltyClient, name: str) -> list[str]:
    return [b.id for b in client.benefits.iter(filters={"name": {"$is": name}})]


def test_benefit_form_creates_the_benefit_typed_in(
    notebook: NotebookUI, client: LoyaltyClient
) -> None:
    card_definition = client.card_definitions.get("lcdef_c0ffee0001")
    form = BenefitFormUI(notebook.page)
    form.fill(name="Browser: Friday Beans", type_="POINTS", points=250, status="ACTIVE")
    form.choose_card_definition(card_definition.name)
    form.submit()

    expect_status(form.root, "Created.")
    shown = re.search(r"lben_[0-9a-f]+", form.root.inner_text())
    assert shown is not None
    benefit = client.benefits.get(shown.group(0))
    assert (benefit.name, benefit.type.value, benefit.status.value) == (
        "Browser: Friday Beans",
        "POINTS",
        "ACTIVE",
    )
    assert benefit.points is not None
    assert (benefit.points.value, benefit.points.card_definition_id) == (250, card_definition.id)


def test_benefit_form_shows_the_services_refusal_beside_the_name(
    notebook: NotebookUI, client: LoyaltyClient
) -> None:
    form = BenefitFormUI(notebook.page)
    form.fill(name="Welcome Bonus 100 Beans", type_="POINTS", points=100, status="DRAFT")
    form.submit()

    expect(form.field_error("Name")).to_contain_text("409 duplicate_found")
    expect_status(form.root, "Not created")
    assert len(_benefits_named(client, "Welcome Bonus 100 Beans")) == 1


def test_bulk_import_uploads_checks_then_creates_the_valid_rows(
    notebook: NotebookUI, client: LoyaltyClient, tmp_path: Path
) -> None:
    csv = tmp_path / "browser_import.csv"
    csv.write_text(
        "name,type,status,card_definition_id,points_value\n"
        "Browser: Upload One,POINTS,DRAFT,lcdef_c0ffee0001,10\n"
        "Browser: Upload Two,POINTS,ACTIVE,lcdef_c0ffee0001,20\n"
        "Browser: Upload No Points,POINTS,DRAFT,lcdef_c0ffee0001,\n",
        encoding="utf-8",
    )
    bulk = BulkImportUI(notebook.page)
    bulk.upload(csv)
    expect_status(bulk.root, "browser_import.csv: 3 rows, 2 valid, 1 with errors")
    bulk.create_valid_rows()

    expect_status(bulk.root, "succeeded: 2")
    expect(result_row(bulk.root, "Browser: Upload One")).to_contain_text("succeeded")
    expect(result_row(bulk.root, "Browser: Upload No Points")).to_contain_text("invalid")
    assert len(_benefits_named(client, "Browser: Upload One")) == 1
    assert len(_benefits_named(client, "Browser: Upload Two")) == 1
    assert _benefits_named(client, "Browser: Upload No Points") == []


def test_reward_draft_moves_the_chosen_reward_after_confirmation(
    notebook: NotebookUI, client: LoyaltyClient
) -> None:
    active = sorted(
        (r for r in client.rewards.iter() if r.status.value == "ACTIVE" and "Free" not in r.name),
        key=lambda r: r.id,
    )
    reward = active[0]
    panel = RewardDraftUI(notebook.page)
    panel.load(reward.name)
    panel.select(reward.id)
    expect(panel.move_button).to_be_disabled()
    panel.confirm()
    expect(panel.move_button).to_be_enabled()
    panel.move_button.click()

    expect(result_row(panel.root, reward.id)).to_contain_text("succeeded", timeout=30_000)
    assert client.rewards.get(reward.id).status.value == "DRAFT"


def test_pending_points_activates_a_bucket_of_the_chosen_card(
    notebook: NotebookUI, client: LoyaltyClient
) -> None:
    bucket = "lcppb_c0ffee0002"  # 200 points, due 2026-02-04: still in the future
    before = _balance(client)
    program = client.programs.get(PROGRAM)
    panel = PendingPointsUI(notebook.page)
    panel.choose("Program", "-- choose --")
    panel.choose("Program", program.name)
    panel.choose("Member", MEMBER)
    panel.choose("Card", CARD)
    panel.select_bucket(bucket)
    panel.activate()

    expect(result_row(panel.root, bucket)).to_contain_text("succeeded", timeout=30_000)
    expected = (before[0] + 200, before[1] - 200)
    deadline = time.monotonic() + 10
    while _balance(client) != expected and time.monotonic() < deadline:
        time.sleep(0.1)  # the service completes the activation in the background
    assert _balance(client) == expected


def _balance(client: LoyaltyClient) -> tuple[float, float]:
    """(points, pending points) of the card the pending-points test uses."""
    card = client.members.get(PROGRAM, MEMBER).cards[0].card
    assert card is not None and card.id == CARD
    return card.balance.points, card.balance.pending_points


def test_danger_zone_deletes_only_once_the_exact_phrase_is_typed(
    notebook: NotebookUI, client: LoyaltyClient
) -> None:
    zone = DangerZoneUI(notebook.page)
    chosen = ("lts_c0ffee0004", "lts_c0ffee0005")
    zone.select("Tier structures", "lts_c0ffee0003", *chosen)
    expect(zone.phrase("Tier structures")).to_have_text("DELETE 3 tier structures")
    zone.select("Tier structures", *chosen)  # a plain click starts a new selection
    expect(zone.phrase("Tier structures")).to_have_text("DELETE 2 tier structures")
    zone.confirm("Tier structures", "DELETE 2")
    expect(zone.delete_button("Tier structures")).to_be_disabled()
    zone.confirm("Tier structures", "DELETE 2 tier structures")
    expect(zone.delete_button("Tier structures")).to_be_enabled()
    zone.delete_button("Tier structures").click()

    expect_status(zone.root, "succeeded: 2")
    for tier_structure in chosen:
        expect(result_row(zone.root, tier_structure)).to_contain_text("succeeded")
        assert client.tier_structures.get(tier_structure).status.value == "DELETED"

    hook = "wh_NwMainLoyalty01"  # the notebook deleted the project's other hook
    project = next(p for p in client.projects.list() if p.id == "proj_NwMain01")
    zone.choose_project("-- choose --")
    expect(grid_rows(zone.section("Webhooks"), hook)).to_have_count(0)
    zone.choose_project(project.name)  # its webhooks load in the background
    zone.select("Webhooks", hook)
    expect(zone.phrase("Webhooks")).to_have_text(hook)
    zone.confirm("Webhooks", hook)
    zone.delete_button("Webhooks").click()

    expect(result_row(zone.root, hook)).to_contain_text("succeeded", timeout=30_000)
    assert [h.id for h in client.webhooks.list("proj_NwMain01")] == []


def test_findings_panel_moves_the_selected_findings_reward_to_draft(
    notebook: NotebookUI, client: LoyaltyClient
) -> None:
    # The notebook acted on the expired rewards; a reward without costs is left, one whose
    # finding is the only one about it (so its row is the one click selects).
    left = notebook.run_new_cell(
        "import json; f = fixes.findings; done = set(fixes.results['target']); "
        "print(json.dumps([r for r in f.loc[f['rule'] == 'active-reward-without-costs', "
        "'resource_id'] if (f['resource_id'] == r).sum() == 1 and r not in done]))"
    )
    candidates = json.loads(left)
    assert candidates, "the demo program has an ACTIVE reward without costs"
    target = candidates[0]
    assert client.rewards.get(target).status.value == "ACTIVE"

    panel = FindingsUI(notebook.page)
    panel.select(target)
    expect(panel.act_button).to_be_enabled()
    panel.preview_button.click()
    expect(result_row(panel.root, target)).to_contain_text("move to DRAFT", timeout=30_000)
    panel.act_button.click()

    expect_status(panel.root, "succeeded: 1")
    expect(result_row(panel.root, target)).to_contain_text("succeeded")
    assert client.rewards.get(target).status.value == "DRAFT"


def test_edit_panel_applies_a_cell_typed_into_its_grid(
    notebook: NotebookUI, client: LoyaltyClient
) -> None:
    reward = "lrew_c0ffee0025"  # no other widget or test moves it
    assert client.rewards.get(reward).status.value == "ACTIVE"
    row, column = json.loads(
        notebook.run_new_cell(
            f"rewards = edits.frame_of('rewards'); print([list(rewards['id']).index({reward!r}),"
            " list(rewards.columns).index('status')])"
        )
    )
    panel = EditPanelUI(notebook.page)
    panel.choose_frame("rewards")
    panel.edit_cell("rewards", row, column, "DRAFT")
    expect(panel.apply_button).to_be_disabled()  # nothing planned since the edit
    panel.plan_button.click()

    expect_status(panel.root, "Plan: 0 to create, 1 to change, 0 to delete")
    assert client.rewards.get(reward).status.value == "ACTIVE"  # planning sends nothing
    expect(panel.apply_button).to_be_enabled()
    panel.apply_button.click()

    expect_status(panel.root, "Applied: succeeded: 1")
    assert client.rewards.get(reward).status.value == "DRAFT"


WHAT_IF_CELLS = [
    "from lyt_toolkit import LoyaltyClient, ProgramSnapshot\n"
    "from lyt_toolkit.sandbox import Sandbox\n"
    "from lyt_toolkit.widgets import WhatIfPanel\n\n"
    'sb = Sandbox.start(now="2026-01-15T12:00:00Z", seed=7)\n'
    "with LoyaltyClient(base_url=sb.base_url, **sb.credentials.as_client_kwargs()) as client:\n"
    "    snapshot = ProgramSnapshot.pull(client, progress=False)\n"
    "panel = WhatIfPanel(snapshot)\n"
    "panel",
    "sb.stop()",
]
"""A notebook of the panel on the demo program (its last cell, left unrun, stops it)."""


def test_what_if_panel_follows_the_earn_rate_slider_moved_with_the_keyboard(
    lab: Lab, open_notebook: NotebookOpener
) -> None:
    ui = open_notebook(lab.write_notebook("what-if-panel.ipynb", WHAT_IF_CELLS))
    ui.run_all_but_last()
    assert ui.errors() == []
    ui.wait_for_widgets()
    panel = WhatIfPanelUI(ui.page)
    panel.choose_card_definition("Northwind Gold Stars")  # the program's highest return
    highest = panel.figure("highest_effective_return")
    expect(highest.nth(2)).to_have_text("15.00%", timeout=30_000)
    expect(panel.readout("Earn rate")).to_have_text("0.015")

    panel.press("Earn rate", "ArrowRight", 5)  # 0.015 -> 0.02 points per unit, a step each

    expect(highest.nth(1)).to_have_text("15.00%")
    expect(highest.nth(2)).to_have_text("20.00%", timeout=30_000)
    expect(highest.nth(3)).to_have_text("+5.00%")
    expect(panel.readout("Earn rate")).to_have_text("0.020")
    chosen = panel.figure("earn_points_per_unit")
    expect(chosen.nth(2)).to_have_text("0.02")
