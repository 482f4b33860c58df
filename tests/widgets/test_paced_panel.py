"""A panel's batch larger than its share of the window, run paced over real HTTP: the refusal
offers ``panel.paced = True``; paced, the batch runs in the background at the share of every
window, the status counting its calls and naming the next window; Cancel during the wait for a
window ends it at once with nothing in doubt, and the next click sends only the rest.

Fourteen benefits imported under a 20-call plan, after a token and one read: the default share
(0.5) of the 18 calls the window has left is 9. On a running clock set 6 s before a minute's
end, the window resets by itself, as the service's does; on the sandbox's fixed clock an
hour's window never does, and a paced batch waits until it is cancelled.
"""

from __future__ import annotations

import csv
import html
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from actions.helpers import names_on_server
from interrupting import HANG, until

from lyt_toolkit.actions import ActionLog
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.widgets import BulkBenefitImport, EditPanel

from .test_edit_panel import plan, type_into

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

ROWS = 14
SHARE = 9
"""The default share (0.5) of the 18 calls a 20-call window has left after the token and a
read."""
CARD = "lcdef_c0ffee0001"


def _import(client: LoyaltyClient, tmp_path: Path, prefix: str) -> BulkBenefitImport:
    """An import of ``ROWS`` benefits named ``prefix NN``, loaded (nothing sent), with the
    budget known to the client (its token and one read)."""
    path = tmp_path / f"{prefix}.csv"
    with path.open("w", newline="") as file:
        out = csv.writer(file)
        out.writerow(["name", "type", "status", "card_definition_id", "points_value"])
        out.writerows([f"{prefix} {i:02d}", "POINTS", "ACTIVE", CARD, 10] for i in range(ROWS))
    widget = BulkBenefitImport(client, concurrency=2)
    widget.path_input.value = str(path)
    widget.load_button.click()
    client.programs.list(limit=1)
    return widget


def _status(widget: BulkBenefitImport) -> str:
    return html.unescape(widget.status.value)


def _waiting(widget: BulkBenefitImport) -> bool:
    """The status says the batch sent its share and waits for the next window."""
    return (
        f"Running paced at 0.5 of each window: {SHARE} of {ROWS} calls; {SHARE} sent,"
        f" 0 left this window of its share of {SHARE}, next window in" in _status(widget)
    )


def _outcomes(widget: BulkBenefitImport) -> Counter[str]:
    assert widget.results is not None
    return Counter(widget.results["outcome"].astype(str))


def test_a_batch_larger_than_the_share_runs_paced_across_windows_keeping_to_each_share(
    running: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    running.set_clock("2026-01-15T12:00:54Z")  # the window resets in 6 s
    running.set_plan("20/minute")
    with make_client(running) as client:
        widget = _import(client, tmp_path, "Paced")
        widget.log_path.value = str(tmp_path / "paced.jsonl")
        widget.submit_button.click()
        assert not widget.busy  # refused, nothing sent, the paced way offered
        assert "set the panel's paced = True to run it at 0.5 of every window" in _status(widget)
        assert running.plan()["used"] == 2  # the token and the read
        widget.paced = True
        widget.submit_button.click()
        assert widget.busy  # in the background, as any batch
        until(lambda: _waiting(widget) and "end about" in _status(widget), "waiting, its end said")
        widget.wait(HANG)
        window = running.plan()
        names = names_on_server(client, "Paced ")
    assert _outcomes(widget) == {"succeeded": ROWS}
    assert sorted(names) == sorted(widget.results["target"])  # each created once
    # Counted by the sandbox: the first window's calls (the token, the read and its share of
    # writes), then the rest in the next; neither beyond half of its 20 calls.
    first, second = window["cycle_used"] - window["used"], window["used"]
    assert (first, second) == (2 + SHARE, ROWS - SHARE)
    assert "succeeded: 14" in _status(widget)  # the outcome, not the paced line, at the end


def test_cancel_during_a_paced_wait_leaves_nothing_in_doubt_and_the_next_run_sends_the_rest(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path
) -> None:
    fresh.set_plan("20/hour")  # the fixed clock never resets it
    widget = _import(client, tmp_path, "Resumed")
    widget.paced = True
    widget.submit_button.click()  # no log: refused, nothing sent
    assert not widget.busy and "a paced batch needs an action log" in _status(widget)
    assert fresh.plan()["used"] == 2
    log = tmp_path / "resumed.jsonl"
    widget.action_log = log  # the panel's own log
    widget.submit_button.click()
    until(lambda: _waiting(widget) and "end about" in _status(widget), "waiting, its end said")
    assert widget.busy and fresh.plan()["used"] == 2 + SHARE  # its share, then the wait
    widget.cancel_button.click()
    widget.wait(HANG)  # the Cancel ends the wait at once
    assert _outcomes(widget) == {"succeeded": SHARE, "cancelled": ROWS - SHARE}
    state = ActionLog(log).state("create_benefits")
    assert not [t for t in state.last if state.in_doubt(t)]  # those waiting were not sent
    assert fresh.plan()["used"] == 2 + SHARE

    fresh.set_plan("1000000/hour")  # a new window, which the client reads from an answer
    client.programs.list(limit=1)
    widget.submit_button.click()
    widget.wait(HANG)
    assert fresh.plan()["used"] == 1 + ROWS - SHARE  # the rest only, nothing read back
    assert _outcomes(widget) == {"skipped_already_done": SHARE, "succeeded": ROWS - SHARE}
    assert sorted(names_on_server(client, "Resumed ")) == sorted(widget.results["target"])


def test_the_edit_panels_apply_runs_paced_and_a_cancel_during_the_wait_leaves_nothing_in_doubt(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path
) -> None:
    panel = EditPanel(ProgramSnapshot.pull(client, progress=False), client)
    fresh.set_plan("20/hour")  # a fresh window, which the fixed clock never resets
    client.rewards.list(limit=1)  # an answer carrying the limit: 19 calls left, 9 the share
    active = panel.edit.rewards.index[panel.edit.rewards["status"] == "ACTIVE"]
    assert len(active) > SHARE
    for label in active:
        type_into(panel, int(label), "status", "DRAFT")
    plan(panel)
    panel.apply_button.click()
    assert not panel.busy and "set the panel's paced = True" in html.unescape(panel.status.value)
    panel.paced, panel.action_log = True, tmp_path / "apply.jsonl"
    panel.apply_button.click()
    until(
        lambda: f"{SHARE} sent, 0 left this window" in html.unescape(panel.status.value),
        "its share sent",
    )
    assert panel.busy and fresh.plan()["used"] == 1 + SHARE  # its share, then the wait
    panel.cancel_button.click()
    panel.wait(HANG)
    assert panel.results is not None
    assert Counter(panel.results["outcome"].astype(str)) == {
        "succeeded": SHARE,
        "cancelled": len(active) - SHARE,
    }
    state = ActionLog(tmp_path / "apply.jsonl").state("move_rewards_to_draft")
    assert not [t for t in state.last if state.in_doubt(t)]  # those waiting were not sent
    assert fresh.plan()["used"] == 1 + SHARE  # nor the pull again, beyond the share
