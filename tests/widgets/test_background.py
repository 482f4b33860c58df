"""Batches in a background worker: Cancel, a second click while busy, the call budget,
no service call in a constructor, and the audit findings grid turned into a plan."""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from interrupting import until

from lyt_toolkit import audit
from lyt_toolkit._text import counted
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.widgets import (
    FINDING_ACTIONS,
    BenefitForm,
    BulkBenefitImport,
    DangerZone,
    FindingsPanel,
    PendingPointsPanel,
    RewardDraftPanel,
)

from .helpers import ran, shown
from .test_panels import select_ids

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "benefits_import_example.csv"
CREATED = 6
"""Rows of the example file the demo program accepts (the others fail or are invalid)."""
SLOW_ANSWER = 1.0
"""Seconds the sandbox holds each answer where a load must be seen under way: a click (or a
choice) that returns with its load still under way did not wait for it. Seen so, not timed:
a loaded machine took 1.3 s to return from a choice that waited for nothing (0.75 s allowed)."""


def _imported(client: LoyaltyClient) -> list[str]:
    found = client.benefits.iter(filters={"name": {"$starts_with": "Import: "}}, limit=100)
    return [b.name for b in found]


def _slow_import(client: LoyaltyClient, fresh: Sandbox, log: Path) -> BulkBenefitImport:
    """An import loaded and started one row at a time on a sandbox answering slowly."""
    widget = BulkBenefitImport(client, concurrency=1)
    widget.path_input.value = str(EXAMPLE)
    widget.log_path.value = str(log)
    widget.load_button.click()
    fresh.set_faults(delay_seconds=0.25)  # ``fresh`` clears them afterwards
    widget.submit_button.click()
    assert widget.busy
    return widget


def test_the_kernel_is_free_and_a_second_click_while_busy_is_refused(
    client: LoyaltyClient, fresh: Sandbox, tmp_path: Path
) -> None:
    widget = _slow_import(client, fresh, tmp_path / "import.jsonl")  # returned, still busy
    assert widget.submit_button.disabled and widget.load_button.disabled
    assert not widget.cancel_button.disabled
    # one create per valid row, plus the token this client has not fetched yet
    assert "Running: 12 calls" in widget.status.value  # 11 valid rows
    widget.submit_button.click()  # a second click (even from code) starts nothing
    assert "already running" in widget.status.value
    widget.load_button.click()
    assert "already running" in widget.status.value or "is running" in widget.status.value
    widget.wait()
    fresh.clear_faults()
    assert sorted(_imported(client)) == sorted(set(_imported(client)))  # nothing twice
    assert len(_imported(client)) == CREATED
    assert (ran(widget)["outcome"] == "succeeded").sum() == CREATED
    assert not widget.submit_button.disabled and widget.cancel_button.disabled


def test_cancel_stops_after_the_requests_in_flight_and_the_log_resumes(
    client: LoyaltyClient, fresh: Sandbox, tmp_path: Path
) -> None:
    log = tmp_path / "import.jsonl"
    widget = _slow_import(client, fresh, log)
    until(lambda: widget.progress.value >= 2, "the progress reached 2")
    widget.cancel_button.click()
    assert widget.cancel_button.disabled and "Cancelling" in widget.status.value
    widget.wait()
    fresh.clear_faults()
    results = ran(widget)
    cancelled = results[results["outcome"] == "cancelled"]
    assert len(results) == 19 and len(cancelled) > 0
    assert "cancelled:" in widget.status.value and "\u26a0" in widget.status.value
    assert not widget.submit_button.disabled
    # Every row reported succeeded exists, and nothing else does: nothing acknowledged is lost.
    succeeded = results.loc[results["outcome"] == "succeeded", "target"]
    assert sorted(_imported(client)) == sorted(succeeded)
    assert len(succeeded) < CREATED

    widget.load_button.click()  # the log now shows what is done
    widget.submit_button.click()
    widget.wait()
    again = ran(widget)["outcome"].value_counts()
    assert again["skipped_already_done"] == len(succeeded)
    assert again["succeeded"] == CREATED - len(succeeded)
    assert len(_imported(client)) == CREATED


@pytest.fixture(scope="module")
def budget_sb() -> Iterator[Sandbox]:
    """A demo sandbox whose project allows 20 calls an hour."""
    with Sandbox.start(now="2026-01-15T12:00:00Z", seed=7, plan="20/hour") as sandbox:
        yield sandbox


@pytest.fixture
def budget_client(
    budget_sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> Iterator[LoyaltyClient]:
    budget_sb.reset()
    budget_sb.set_plan("20/hour")  # a fresh window
    with make_client(budget_sb) as c:
        yield c


def test_constructors_send_nothing_the_first_display_loads(
    budget_sb: Sandbox, budget_client: LoyaltyClient
) -> None:
    findings = audit.findings_frame()
    widgets = [
        BenefitForm(budget_client),
        BulkBenefitImport(budget_client),
        RewardDraftPanel(budget_client),
        PendingPointsPanel(budget_client),
        DangerZone(budget_client),
        FindingsPanel(budget_client, findings),
    ]
    assert budget_sb.plan()["used"] == 0 and budget_client.quota.remaining is None
    form = widgets[0]
    assert isinstance(form, BenefitForm)
    form._repr_mimebundle_()  # what a notebook does to show it
    form.wait()
    assert budget_sb.plan()["used"] > 0 and len(form.card_definition.options) == 5
    used = budget_sb.plan()["used"]
    form._repr_mimebundle_()  # only the first display loads
    form.wait()
    assert budget_sb.plan()["used"] == used


def test_a_batch_the_budget_cannot_carry_is_refused_with_the_numbers(
    budget_sb: Sandbox, budget_client: LoyaltyClient
) -> None:
    panel = RewardDraftPanel(budget_client)
    panel.load_button.click()
    panel.wait()
    remaining = budget_client.quota.remaining
    assert remaining is not None and remaining < len(panel.rewards)
    assert f"remaining this window: {remaining} of 20" in panel.budget.value
    select_ids(panel.rewards_grid, panel.rewards, list(panel.rewards["id"]))
    panel.confirm.value = True
    used = budget_sb.plan()["used"]
    panel.draft_button.click()
    assert not panel.busy
    needed = len(panel.rewards) + 1  # each reward moved, then the list read again (one page)
    shortfall = needed - remaining // 2  # half the window, as execute keeps to
    assert "Refused, nothing was sent" in panel.status.value
    assert f"calls needed: {needed}" in panel.status.value
    assert f"{counted(shortfall, 'call')} short" in panel.status.value
    assert budget_sb.plan()["used"] == used  # not one request
    budget_sb.set_plan("unlimited")
    statuses = {r.id: str(r.status) for r in budget_client.rewards.iter(limit=100)}
    assert statuses == dict(zip(panel.rewards["id"], panel.rewards["status"], strict=True))

    # A batch that fits is not refused.
    budget_sb.set_plan("20/hour")
    panel.load_button.click()
    panel.wait()
    active = list(panel.rewards.loc[panel.rewards["status"] == "ACTIVE", "id"])[:3]
    select_ids(panel.rewards_grid, panel.rewards, active)
    panel.confirm.value = True
    panel.draft_button.click()
    panel.wait()
    assert (ran(panel)["outcome"] == "succeeded").all() and len(ran(panel)) == 3


def test_a_batch_beyond_the_panels_share_is_refused_until_its_budget_share_is_raised(
    budget_sb: Sandbox, budget_client: LoyaltyClient
) -> None:
    panel = RewardDraftPanel(budget_client)
    panel.load_button.click()
    panel.wait()
    remaining = budget_client.quota.remaining
    assert remaining is not None
    active = list(panel.rewards.loc[panel.rewards["status"] == "ACTIVE", "id"])
    batch = active[: remaining // 2 + 1]  # beyond half the window, within the whole of it
    assert len(batch) == remaining // 2 + 1 <= remaining
    select_ids(panel.rewards_grid, panel.rewards, batch)
    panel.confirm.value = True
    used = budget_sb.plan()["used"]
    panel.draft_button.click()
    assert not panel.busy
    assert "this plan's share (0.5)" in html.unescape(panel.status.value)
    assert "set the panel's budget_share = 1.0" in html.unescape(panel.status.value)
    assert budget_sb.plan()["used"] == used  # not one request
    panel.budget_share = 1.0
    panel.draft_button.click()
    panel.wait()
    assert panel.results is not None and (panel.results["outcome"] == "succeeded").all()
    assert len(panel.results) == len(batch)


def test_a_batch_the_spent_budget_stops_shows_no_earlier_results_as_its_own(
    budget_sb: Sandbox, budget_client: LoyaltyClient, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Other traffic spends the window while the panel knows an older count: the batch is
    stopped by the service's budget part-way. The results of the batch before it no longer
    stand for it, and the status says how far it got."""
    panel = RewardDraftPanel(budget_client)
    panel.load_button.click()
    panel.wait()
    active = list(panel.rewards.loc[panel.rewards["status"] == "ACTIVE", "id"])
    select_ids(panel.rewards_grid, panel.rewards, active[:1])
    panel.confirm.value = True
    panel.draft_button.click()
    panel.wait()
    assert panel.results is not None and len(panel.results) == 1
    batch = active[1:11]
    select_ids(panel.rewards_grid, panel.rewards, batch)
    panel.confirm.value = True
    panel.budget_share = 1.0
    assert "calls needed: 11" in panel.budget.value  # fits what the client last read
    with make_client(budget_sb) as other:
        while budget_sb.plan()["remaining"] > 5:
            other.rewards.list(limit=1)
    panel.draft_button.click()
    panel.wait()
    budget_sb.set_plan("unlimited")
    with make_client(budget_sb) as reader:  # the panel's client still counts the window spent
        drafted = {r.id for r in reader.rewards.iter(limit=100) if r.status == "DRAFT"}
    done = len(set(batch) & drafted)
    assert 0 < done < len(batch)
    assert "The batch stopped" in panel.status.value
    assert f"of {len(batch)} items" in panel.status.value
    assert panel.results is None and len(shown(panel.results_grid)) == 0
    assert panel.download.value == ""


def test_a_batch_whose_refusals_are_read_back_keeps_to_the_panels_share(
    budget_sb: Sandbox, budget_client: LoyaltyClient, make_client: Callable[..., LoyaltyClient]
) -> None:
    """A reward the service refuses (not ACTIVE) is read back to tell already done from
    failed: a second call the cost does not count. The batch still never sends beyond the
    panel's share: beyond it an item is not sent (cancelled) or its refusal not read back."""
    panel = RewardDraftPanel(budget_client)
    panel.load_button.click()
    panel.wait()
    remaining = budget_client.quota.remaining
    assert remaining == 18  # the token and one page of rewards
    allowed = remaining // 2
    statuses = panel.rewards.set_index("id")["status"]
    refused = list(statuses[statuses.isin(["DRAFT", "INACTIVE"])].index[:4])
    batch = [*refused, *statuses[statuses == "ACTIVE"].index[:4]]
    select_ids(panel.rewards_grid, panel.rewards, batch)
    panel.confirm.value = True
    # Within the share of 9: each reward, and the rewards listed again after the batch.
    assert f"calls needed: {len(batch) + 1}" in panel.budget.value
    used = budget_sb.plan()["used"]
    panel.draft_button.click()
    panel.wait()
    reload = 1  # the rewards listed again after the batch: one page
    assert budget_sb.plan()["used"] - used - reload <= allowed
    results = ran(panel).set_index("target")
    assert set(results["outcome"]) <= {"already_done", "failed", "succeeded", "cancelled"}
    budget_sb.set_plan("unlimited")
    with make_client(budget_sb) as reader:
        now = {r.id: str(r.status) for r in reader.rewards.iter(limit=100)}
    target: Any  # a reward ID: the index's labels are typed Hashable
    for target, row in results.iterrows():
        if row["outcome"] == "succeeded":
            assert now[target] == "DRAFT"
        if row["outcome"] == "cancelled":  # never sent
            assert "beyond the plan's share" in row["message"]
            assert now[target] == statuses[target]


def test_a_benefit_the_budget_refuses_is_said_not_created_in_the_form(
    budget_sb: Sandbox, budget_client: LoyaltyClient, make_client: Callable[..., LoyaltyClient]
) -> None:
    """The form's one create refused before it is sent (the window's share spent) shows why
    in the form; nothing escapes the click handler into a log the notebook does not show."""
    form = BenefitForm(budget_client)
    form.refresh_button.click()
    form.wait()
    with make_client(budget_sb) as other:
        while budget_sb.plan()["remaining"] > 1:
            other.rewards.list(limit=1)
    budget_client.rewards.list(limit=1)  # the form's client reads that none is left
    form.name_input.value = "Form Without Budget"
    used = budget_sb.plan()["used"]
    form.submit()  # what the click runs; an exception would only reach the log
    assert budget_sb.plan()["used"] == used  # not sent
    assert "Not created" in form.message.value and "call budget" in form.message.value
    assert not form.submit_button.disabled


def test_findings_grid_acts_on_the_findings_with_a_matching_action(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    findings = audit.run(ProgramSnapshot.pull(client, progress=False))
    panel = FindingsPanel(client, findings)
    listed = shown(panel.findings_grid)
    assert len(listed) == len(findings)
    fixable = listed.loc[listed["action"] != "", ["rule", "resource_id"]]
    assert set(fixable["rule"]) == {"active-reward-expired", "active-reward-without-costs"}
    targets = sorted(fixable["resource_id"])
    pending = findings.index[findings["rule"] == "pending-bucket-not-activatable"][0]

    panel.findings_grid.selected_rows = [int(pending)]  # nothing fixes this one
    assert panel.act_button.disabled
    panel.act()
    assert "has a matching action" in panel.status.value

    rows = [int(i) for i in fixable.index] + [int(pending)]
    panel.findings_grid.selected_rows = rows
    assert not panel.act_button.disabled
    # One call per target, and a token request unless the client holds one (its pull left one).
    assert f"calls needed: {len(targets) + (not client.holds_token)}" in panel.budget.value
    fresh.set_faults(delay_seconds=SLOW_ANSWER)
    panel.preview_button.click()  # one read per target, in the background
    assert panel.loading  # returned with the reads under way: it did not wait for them
    assert panel.preview_button.disabled and panel.act_button.disabled
    assert "Loading" in panel.status.value
    panel.wait()
    fresh.clear_faults()
    assert not panel.act_button.disabled and panel.status.value == ""
    assert sorted(shown(panel.preview_grid)["target"]) == targets
    assert set(shown(panel.preview_grid)["will"]) == {"move to DRAFT"}
    panel.act_button.click()
    panel.wait()
    assert sorted(ran(panel)["target"]) == targets
    assert (ran(panel)["outcome"] == "succeeded").all()
    assert all(client.rewards.get(t).status == "DRAFT" for t in targets)


def test_a_findings_preview_keeps_to_the_panels_budget_share(
    budget_sb: Sandbox, budget_client: LoyaltyClient
) -> None:
    """Preview lists the targets (rewards by ID: one read for these four): beyond the
    panel's share it is refused as Act is, not read at the default half of the window."""
    targets = ["lrew_c0ffee0001", "lrew_c0ffee0002", "lrew_c0ffee0003", "lrew_c0ffee0004"]
    findings = audit.findings_frame(
        {
            "rule": "active-reward-without-costs",
            "severity": "error",
            "resource_type": "reward",
            "resource_id": target,
            "resource_name": None,
            "message": "ACTIVE reward has no cost in any card definition",
        }
        for target in targets
    )
    budget_client.rewards.list(limit=1)  # an answer carrying the limit: 19 of 20 left
    panel = FindingsPanel(budget_client, findings)
    panel.budget_share = 0.05  # no call: fewer than the one read, within half the window
    panel.findings_grid.selected_rows = list(range(len(targets)))
    used = budget_sb.plan()["used"]
    panel.act()
    assert "Refused, nothing was sent" in panel.status.value
    panel.preview_button.click()
    panel.wait()
    assert budget_sb.plan()["used"] == used  # not one read
    assert "Could not preview" in panel.status.value
    assert "share (0.05)" in html.unescape(panel.status.value)
    panel.budget_share = 1.0
    panel.preview_button.click()
    panel.wait()
    assert sorted(shown(panel.preview_grid)["target"]) == targets


def test_findings_need_their_columns(client: LoyaltyClient) -> None:
    with pytest.raises(ValueError, match="resource_id"):
        FindingsPanel(client, pd.DataFrame({"rule": ["x"]}))


def test_every_finding_action_names_a_registered_rule() -> None:
    assert FINDING_ACTIONS and set(FINDING_ACTIONS) <= set(audit.RULES)


# -- loads in the background -------------------------------------------------------------


def test_the_first_display_loads_in_the_background_and_says_so(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    form = BenefitForm(client)
    fresh.set_faults(delay_seconds=SLOW_ANSWER)  # ``fresh`` clears them afterwards
    form._repr_mimebundle_()  # what a notebook does to show it
    assert form.loading and "Loading" in form.message.value
    assert form.refresh_button.disabled and form.submit_button.disabled
    form.submit()  # from code too: nothing is sent while the list loads
    assert "still loading" in form.message.value
    form.wait()
    assert not form.loading and form.message.value == ""
    assert len(form.card_definition.options) > 0 and form.card_definition.value is not None
    assert not form.refresh_button.disabled and not form.submit_button.disabled


def test_a_refresh_while_loading_starts_no_second_load(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    panel = RewardDraftPanel(client)
    fresh.set_faults(delay_seconds=SLOW_ANSWER)
    assert panel.refresh_in_background()
    assert panel.load_button.disabled and "Loading" in panel.status.value
    assert not panel.refresh_in_background()
    panel.load_button.click()  # disabled in the browser; from code it is ignored as well
    assert panel.busy  # no batch starts over a half-loaded list
    panel.wait()
    assert len(panel.rewards) > 0 and not panel.load_button.disabled
    assert (
        "Loading" not in panel.status.value
        and f"{len(panel.rewards)} rewards" in panel.status.value
    )


def test_a_background_load_that_fails_shows_why_in_the_widget(
    fresh: Sandbox, single_try_client: LoyaltyClient
) -> None:
    form = BenefitForm(single_try_client)
    panel = DangerZone(single_try_client)
    fresh.set_faults(unavailable=1.0, seed=1)
    form.refresh_button.click()
    panel.refresh_button.click()
    form.wait()
    panel.wait()
    assert "Could not load card definitions" in form.message.value and "503" in form.message.value
    assert "Could not load" in panel.status.value and "503" in panel.status.value
    assert not form.refresh_button.disabled and not panel.refresh_button.disabled


def _choose_while_answers_are_slow(widget: Any, select: str, value: str, sb: Sandbox) -> None:
    """Load ``widget``'s choices, then, with every answer of ``sb`` ``SLOW_ANSWER`` late, choose
    ``value`` in its dropdown ``select`` as a choice in the dropdown does: the choice returns
    at once and the widget says it is loading (the faults stay on)."""
    widget.refresh_button.click()
    widget.wait()
    sb.set_faults(delay_seconds=SLOW_ANSWER)
    getattr(widget, select).value = value
    assert widget.loading and "Loading" in widget.status.value


def test_choosing_a_project_lists_its_webhooks_in_the_background(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    zone = DangerZone(client)
    _choose_while_answers_are_slow(zone, "project_select", "proj_NwMain01", fresh)
    assert zone.project_select.disabled and zone.refresh_button.disabled
    assert zone.webhooks.frame.empty
    zone.project_select.value = "proj_NwStage01"  # from code: refused while the list loads
    assert "Still loading" in zone.status.value
    assert zone.project_select.value == "proj_NwMain01"  # put back: the project loading
    zone.wait()
    fresh.clear_faults()
    assert not zone.loading and not zone.project_select.disabled
    assert not zone.refresh_button.disabled
    assert list(zone.webhooks.frame["id"]) == [h.id for h in client.webhooks.list("proj_NwMain01")]


class _Held:
    """A client's resource whose ``method`` is held for its first caller until ``release`` is
    set (``held`` set then; later callers pass): held as the method is looked up, so before a
    caller's arguments are taken (a load reading a dropdown for them reads it after what the
    test does meanwhile)."""

    def __init__(
        self, resource: Any, method: str, held: threading.Event, release: threading.Event
    ) -> None:
        self._resource, self._method, self._held, self._release = resource, method, held, release
        self._first = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        if name == self._method and self._first.acquire(blocking=False):
            self._held.set()
            assert self._release.wait(30), f"the test never released the {name} read"
        return getattr(self._resource, name)


def _hold(
    client: LoyaltyClient, read: str, release: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> threading.Event:
    """Hold ``client``'s first ``read`` (``resource.method``) until ``release`` is set; the
    event returned is set once its caller is held there."""
    resource, method = read.split(".")
    held = threading.Event()
    monkeypatch.setattr(client, resource, _Held(getattr(client, resource), method, held, release))
    return held


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """An event a test sets to release a held read; set anyway at the test's end, so no
    thread is left waiting on it."""
    event = threading.Event()
    yield event
    event.set()


@pytest.mark.parametrize("refused", ["proj_NwStage01", None], ids=["another", "none"])
def test_a_project_chosen_while_webhooks_load_is_refused_and_put_back_delete_names_the_listed(
    client: LoyaltyClient,
    fresh: Sandbox,
    release: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
    refused: str | None,
) -> None:
    """The dropdown is disabled while a project's webhooks load; a choice made anyway (from
    code: another project, or none) is refused: the grid lists the first project's webhooks,
    the dropdown shows that project again, and Delete deletes from it (not from the refused
    one: that gave a 404, reported ``already_done``, and nothing deleted)."""
    zone = DangerZone(client)
    zone.refresh_button.click()
    zone.wait()
    main = [h.id for h in client.webhooks.list("proj_NwMain01")]
    stage = [h.id for h in client.webhooks.list("proj_NwStage01")]
    held = _hold(client, "webhooks.list", release, monkeypatch)
    used = fresh.plan()["used"]
    zone.project_select.value = "proj_NwMain01"
    assert held.wait(30)  # the load's thread is at its webhooks read
    zone.project_select.value = refused  # from code: refused while the list loads
    assert "Still loading" in zone.status.value
    release.set()
    zone.wait()
    assert fresh.plan()["used"] == used + 1  # one webhooks read: none for the refused choice
    assert list(zone.webhooks.frame["id"]) == main
    assert zone.project_select.value == "proj_NwMain01"
    select_ids(zone.webhooks.grid, zone.webhooks.frame, [main[0]])
    assert f"<code>{main[0]}</code>" in zone.webhooks.phrase.value
    zone.webhooks.confirm_text.value = main[0]
    zone.webhooks.delete_button.click()
    zone.wait()
    assert "succeeded: 1" in zone.status.value
    assert [h.id for h in client.webhooks.list("proj_NwMain01")] == main[1:]
    assert [h.id for h in client.webhooks.list("proj_NwStage01")] == stage
    assert (
        zone.project_select.value == "proj_NwMain01" and list(zone.webhooks.frame["id"]) == main[1:]
    )


def test_a_choice_refused_is_put_back_only_to_a_project_the_dropdown_still_offers(
    client: LoyaltyClient,
    fresh: Sandbox,
    release: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The project dropdown's options replaced (from code) while a project's webhooks load:
    the choice that replacement makes (none) is refused as any is then, but not put back to
    the project loading, which the dropdown no longer offers (a ``TraitError`` in the
    assignment, earlier); the refusal is said, and once the load ends a project chosen lists
    its webhooks."""
    zone = DangerZone(client)
    zone.refresh_button.click()
    zone.wait()
    held = _hold(client, "webhooks.list", release, monkeypatch)
    zone.project_select.value = "proj_NwMain01"
    assert held.wait(30)  # the load's thread is at its webhooks read
    zone.project_select.options = [("-- choose --", None), ("Stage", "proj_NwStage01")]
    assert "Still loading" in zone.status.value
    assert zone.project_select.value is None  # not put back: no longer offered
    release.set()
    zone.wait()
    zone.project_select.value = "proj_NwStage01"
    zone.wait()
    stage = [h.id for h in client.webhooks.list("proj_NwStage01")]
    assert list(zone.webhooks.frame["id"]) == stage and stage


CARD_PATH = {
    "program_select": "lprg_c0ffee0001",
    "member_select": "lmbr_c0ffee0001",
    "card_select": "lcrd_c0ffee0001",
}
"""The demo's first card, by the dropdowns of ``PendingPointsPanel`` that reach it."""


@pytest.mark.parametrize(
    ("dropdown", "read", "refused"),
    [
        ("program_select", "members.list", "lprg_c0ffee0002"),
        ("member_select", "members.get", "lmbr_c0ffee0002"),
        ("card_select", "pending_buckets.pages", "lcrd_c0ffee0002"),
        ("card_select", "pending_buckets.pages", None),
    ],
    ids=["program", "member", "card", "no-card"],
)
def test_a_choice_made_while_its_list_loads_is_refused_and_put_back_activate_lists_the_card(
    client: LoyaltyClient,
    fresh: Sandbox,
    release: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
    dropdown: str,
    read: str,
    refused: str | None,
) -> None:
    """The dropdowns are disabled while what a choice opens loads; a choice made anyway (from
    code) is refused, and its dropdown shows again the value whose list loads: the program,
    member and card shown are those the lists are of, the next choices read their own lists,
    and after Activate the card's buckets are read again (not the refused card's, nor none)."""
    panel = PendingPointsPanel(client)
    panel.refresh_button.click()
    panel.wait()
    before = list(CARD_PATH)[: list(CARD_PATH).index(dropdown)]
    for name in before:
        getattr(panel, name).value = CARD_PATH[name]
        panel.wait()
    held = _hold(client, read, release, monkeypatch)
    used = fresh.plan()["used"]
    getattr(panel, dropdown).value = CARD_PATH[dropdown]
    assert held.wait(30)  # the load's thread is at its read
    getattr(panel, dropdown).value = refused  # from code: refused while the list loads
    assert "Still loading" in panel.status.value
    assert getattr(panel, dropdown).value == CARD_PATH[dropdown]  # put back: the one loading
    release.set()
    panel.wait()
    assert fresh.plan()["used"] == used + 1  # one read: none for the refused choice
    for name in list(CARD_PATH)[len(before) + 1 :]:
        getattr(panel, name).value = CARD_PATH[name]
        panel.wait()
    assert "Could not load" not in panel.status.value
    shown_path = {name: getattr(panel, name).value for name in CARD_PATH}
    assert shown_path == CARD_PATH
    pending = {"lcppb_c0ffee0001", "lcppb_c0ffee0002", "lcppb_c0ffee0003", "lcppb_c0ffee0004"}
    assert set(panel.buckets["id"]) == pending
    select_ids(panel.buckets_grid, panel.buckets, ["lcppb_c0ffee0001"])
    panel.activate_button.click()
    panel.wait()
    assert "succeeded: 1" in panel.status.value
    assert {name: getattr(panel, name).value for name in CARD_PATH} == CARD_PATH
    status = panel.buckets.set_index("id")["status"]  # the card's buckets read again
    assert status.get("lcppb_c0ffee0001", "activation sent") == "activation sent"
    assert set(status.index) - {"lcppb_c0ffee0001"} == pending - {"lcppb_c0ffee0001"}
    other = client.pending_buckets.list("lprg_c0ffee0001", "lmbr_c0ffee0001", "lcrd_c0ffee0002")
    assert [(b.id, b.status) for b in other.data] == [("lcppb_c0ffee0006", "PENDING")]


@pytest.mark.parametrize(
    ("dropdown", "chosen", "listed"),
    [
        ("program_select", "lprg_c0ffee0002", set()),
        ("member_select", "lmbr_c0ffee0002", set()),
        ("card_select", "lcrd_c0ffee0002", {"lcppb_c0ffee0006"}),
    ],
    ids=["program", "member", "card"],
)
def test_a_choice_made_while_a_run_rereads_the_buckets_keeps_its_own_list(
    client: LoyaltyClient,
    fresh: Sandbox,
    release: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
    dropdown: str,
    chosen: str,
    listed: set[str],
) -> None:
    """A choice made while an activation runs is taken (no load runs: the run's reread of
    the card's buckets is part of the batch), and lists what it opens. The run's reread,
    begun for the card chosen before, then shows nothing: the grid holds the new choice's
    buckets (none for a new program or member, whose cards are not chosen yet), not the
    first card's under the new choice's name, whose Activate would act on them."""
    panel = PendingPointsPanel(client)
    panel.refresh_button.click()
    panel.wait()
    for name, value in CARD_PATH.items():
        getattr(panel, name).value = value
        panel.wait()
    held = _hold(client, "pending_buckets.pages", release, monkeypatch)
    select_ids(panel.buckets_grid, panel.buckets, ["lcppb_c0ffee0001"])
    panel.activate_button.click()
    assert held.wait(30)  # the run's reread of the first card's buckets, held
    getattr(panel, dropdown).value = chosen  # taken: no load runs
    until(lambda: not panel.loading, "the new choice's list was shown")
    release.set()
    panel.wait()
    assert "succeeded: 1" in panel.status.value
    assert getattr(panel, dropdown).value == chosen
    assert set(panel.buckets["id"]) == listed
    assert set(shown(panel.buckets_grid)["id"]) == listed


def test_choosing_a_program_lists_its_members_in_the_background(
    client: LoyaltyClient, fresh: Sandbox
) -> None:
    panel = PendingPointsPanel(client)
    _choose_while_answers_are_slow(panel, "program_select", "lprg_c0ffee0001", fresh)
    assert panel.member_select.disabled and panel.card_select.disabled
    panel.wait()
    fresh.clear_faults()
    members = [value for _, value in panel.member_select.options if value]
    assert "lmbr_c0ffee0001" in members and not panel.member_select.disabled
    assert panel.status.value == ""


def test_wait_returns_once_the_widget_shows_that_the_load_ended(client: LoyaltyClient) -> None:
    panel = RewardDraftPanel(client)
    entered, settled = threading.Event(), threading.Event()
    update_buttons = panel.update_buttons

    def slow_update_buttons() -> None:
        if panel.loading:  # the grid filled during the load
            update_buttons()
            return
        entered.set()  # the load's last step, made slow
        time.sleep(0.3)
        update_buttons()
        settled.set()

    panel.update_buttons = slow_update_buttons  # type: ignore[method-assign]
    panel.load_button.click()
    assert entered.wait(30)
    panel.wait()  # called while the widget is still showing the end of the load
    assert settled.is_set() and not panel.load_button.disabled and not panel.busy
