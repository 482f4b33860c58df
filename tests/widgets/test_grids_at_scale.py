"""The selectable grids (itables) at the size of a real program: the browser is sent every
row, however many, so each can be seen and selected, and the columns keep their alignment;
the kernel holds those rows about as compactly as the frames they came from."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fixture_types import StartSandbox

from lyt_toolkit import audit
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.synthetic import generate_program
from lyt_toolkit.widgets import FindingsPanel, RewardDraftPanel

from .helpers import shown

REWARDS = 2_100
"""Rewards of the program, every one ended: some 1,200 ACTIVE ones, a finding each."""


@pytest.fixture(scope="module")
def ended(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """A generated program of ``REWARDS`` rewards, every one ended before its clock."""
    program = generate_program(
        rewards=REWARDS, benefits=2, card_definitions=2, tier_structures=1, members=2, seed=4
    )
    for reward in program["rewards"]:
        reward["end_date"] = "2025-12-31T00:00:00Z"
    with start_sandbox(program, now=program["now"]) as sandbox:
        yield sandbox


def sent_to_browser(table: Any) -> list[list[Any]]:
    """The rows an itables grid sends the browser (its widget state), as the browser reads
    them; a grid downsampled (``maxBytes``) sends only its first and last rows."""
    args = table._dt_args
    assert "downsampling_warning" not in args, args["downsampling_warning"]
    rows: list[list[Any]] = json.loads(args["data_json"])
    return rows


def test_a_findings_grid_of_over_a_thousand_findings_sends_each_and_acts_on_one_in_the_middle(
    ended: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    with make_client(ended) as client:
        findings = audit.run(ProgramSnapshot.pull(client, kinds=["rewards"], progress=False))
        assert len(findings) > 1_170  # what itables' default 64 KB held: 1,170 of 22,400 rows
        panel = FindingsPanel(client, findings)
        shown = sent_to_browser(panel.findings_grid)
        assert len(shown) == len(findings)
        assert panel.findings_grid._dt_args["columnDefs"] == [
            {"className": "dt-left", "targets": "_all"}
        ]
        middle = len(findings) // 2  # a row a downsampled grid does not show
        target = str(findings["resource_id"].iloc[middle])
        assert shown[middle][4] == target  # action, rule, severity, resource_type, resource_id
        panel.findings_grid.selected_rows = [middle]  # as a click on that row sends it
        used = ended.plan()["used"]
        panel.act_button.click()
        panel.wait()
        assert ended.plan()["used"] - used == 1  # the one write
        assert client.rewards.get(target).status == "DRAFT"
        assert [row[1] for row in sent_to_browser(panel.results_grid)] == [target]  # row, target


def test_a_findings_grid_holds_its_text_about_as_compactly_as_the_findings_frame(
    ended: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    with make_client(ended) as client:
        findings = audit.run(ProgramSnapshot.pull(client, kinds=["rewards"], progress=False))
        panel = FindingsPanel(client, findings)
    held = shown(panel.findings_grid).memory_usage(deep=True).sum()
    frame = panel.findings.memory_usage(deep=True).sum()  # the same columns, as the audit typed
    # A Python object a cell took 2.6 times the frame (710 KB against 269 KB here).
    assert held < 1.5 * frame, (held, frame)
    assert len(shown(panel.findings_grid)) == len(findings)


def test_a_rewards_grid_of_every_reward_loads_a_page_at_a_time_and_acts_on_one_in_the_middle(
    ended: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    with make_client(ended) as client:
        panel = RewardDraftPanel(client)
        tracemalloc.start()
        try:
            panel.load_button.click()
            panel.wait()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        shown = sent_to_browser(panel.rewards_grid)
        assert len(shown) == REWARDS and "rewards" in panel.status.value
        # Every reward read held whole until the grid was filled took some 12 MB here (5.8 KB
        # a reward); a page of them at a time, what the grid shows is what stays.
        assert peak < 6 * 2**20, f"{peak / 2**20:.1f} MiB"
        middle = next(i for i in range(REWARDS // 2, REWARDS) if shown[i][1] == "ACTIVE")
        target = shown[middle][3]  # name, status, type, id
        assert target == panel.rewards["id"].iloc[middle]
        panel.rewards_grid.selected_rows = [middle]  # as a click on that row sends it
        panel.confirm.value = True
        used = ended.plan()["used"]
        panel.draft_button.click()
        panel.wait()
        assert client.rewards.get(target).status == "DRAFT"
        # the one write and the list read again (a call per page of 100)
        assert ended.plan()["used"] - used == 1 + -(-REWARDS // 100) + 1
