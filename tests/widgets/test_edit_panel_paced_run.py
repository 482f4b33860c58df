"""An EditPanel's paced Apply is one run: the token request its check sends (a panel given
its client after planning offline: the check is that client's first call) is the Apply's own,
not "sent earlier in this window" on the status; an earlier Apply's calls in the window still
are. Over real HTTP, the status lines as the panel shows them."""

from __future__ import annotations

import html
from pathlib import Path

from interrupting import window_used

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.snapshot.again import again_calls
from lyt_toolkit.widgets import EditPanel

from .test_edit_panel import plan, row_of, type_into

EARLIER = "sent earlier in this window"
REWARDS = ("lrew_c0ffee0001", "lrew_c0ffee0002")
"""Two rewards ACTIVE in the demo program: each Apply moves one to draft."""


def _applied_paced(panel: EditPanel, reward: str, client: LoyaltyClient) -> list[str]:
    """The paced lines the status showed while an Apply through ``client``, given the panel
    once it planned, moved ``reward`` to draft."""
    type_into(panel, row_of(panel, reward), "status", "DRAFT")
    plan(panel)
    panel.client = client  # Apply armed at once
    shown: list[str] = []
    panel.status.observe(lambda change: shown.append(html.unescape(change["new"])), "value")
    panel.apply_button.click()
    panel.wait()
    assert "Applied: succeeded: 1" in panel.status.value, panel.status.value
    return [line for line in shown if "Running paced" in line]


def test_a_paced_apply_does_not_say_its_checks_token_was_sent_earlier(
    fresh_pulled: ProgramSnapshot, fresh: Sandbox, client: LoyaltyClient, tmp_path: Path
) -> None:
    fresh.set_plan("1000/hour")  # a share of 500
    panel = EditPanel(fresh_pulled)  # planned offline, then given its client
    panel.paced, panel.action_log = True, tmp_path / "apply.jsonl"
    lines = _applied_paced(panel, REWARDS[0], client)
    # its check's token request, its write, then the pull again (not paced)
    assert window_used(fresh) == 1 + 1 + again_calls(fresh_pulled)
    # before: "1 of 1 call; 1 sent, 1 sent earlier in this window, 498 left this window ..."
    assert "window: 1 of 1 call; 1 sent, 498 left this window of its share of 500" in lines[-1]
    assert not [line for line in lines if EARLIER in line], lines

    lines = _applied_paced(panel, REWARDS[1], client)  # another Apply in the window
    # the first Apply's token and write, another run's: sent earlier; before: 3 (its log
    # counted its check's token twice: a window line of the apply's own before its write)
    assert f"1 sent, {1 + 1} {EARLIER}, " in lines[-1], lines
