"""An apply reads its action log once, over real HTTP: however many parts the plan has, each
line of a long-lived log is parsed once (the lines the apply appends read back as they come),
not once per owner check and per part's state (16 whole reads of a one-part saved plan).
So does the cost of one (12 whole reads of a four-part saved plan's, 16 paced)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lyt_toolkit.actions import ChangePlan, log
from lyt_toolkit.actions.log import PLAN
from lyt_toolkit.client import LoyaltyClient

from .helpers import SaveFour

pytestmark = pytest.mark.usefixtures("lyt_to_fresh")

EARLIER = 2_000
"""Item lines other plans' applies wrote before (a plan line every 500)."""


def _earlier_lines(path: Path) -> None:
    with path.open("w", encoding="utf-8") as file:
        for i in range(EARLIER):
            if i % 500 == 0:
                file.write(json.dumps({"log": PLAN, "plan": f"{i // 500:064x}"}) + "\n")
            line = {"action": "move_reward_to_draft", "target": f"rwd_{i:08d}"}
            file.write(json.dumps({**line, "outcome": "succeeded", "status": 200}) + "\n")


def _counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The count of log lines parsed from here on (its one item), as ``actions.log`` parses
    them."""
    parsed = [0]

    def loads(raw: str | bytes) -> Any:
        parsed[0] += 1
        return json.loads(raw)

    monkeypatch.setattr(log, "json", SimpleNamespace(loads=loads, dumps=json.dumps))
    return parsed


@pytest.mark.parametrize("how", ["saved", "saved paced", "unsaved"])
def test_an_apply_parses_each_line_of_its_log_once(
    client: LoyaltyClient,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    plan, _ = save_four(path)
    log_path = tmp_path / "plan.log.jsonl"
    _earlier_lines(log_path)
    parsed = _counting_parses(monkeypatch)
    applied = plan if how == "unsaved" else ChangePlan.load(path)
    results = applied.apply(
        client,
        log=log_path,
        allow_destroy=True,
        progress=False,
        paced=how.endswith("paced"),
    )

    assert results["outcome"].eq("succeeded").all(), results
    assert len(plan.parts) == 4
    lines = len(log_path.read_bytes().splitlines())
    assert EARLIER < lines < EARLIER + 40
    assert parsed[0] <= lines, f"{parsed[0]} lines parsed from a log of {lines}"


@pytest.mark.parametrize("how", ["saved", "saved paced", "unsaved"])
def test_a_plans_cost_parses_each_line_of_its_log_once(
    client: LoyaltyClient,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
    save_four: SaveFour,
) -> None:
    """The cost of an apply with a log reads the log once, not once per part's state, owner
    check and window (a saved plan's paced cost counts each chunk's re-read too,
    ``SavedPlan._chunked_reads``): each line parsed once."""
    path = tmp_path / "plan.json"
    plan, _ = save_four(path)
    log_path = tmp_path / "plan.log.jsonl"
    _earlier_lines(log_path)
    saved = ChangePlan.load(path)
    parsed = _counting_parses(monkeypatch)
    if how == "unsaved":
        cost = plan.cost(client, log=log_path)
    else:
        cost = saved.cost(client, log=log_path, paced=how.endswith("paced"))

    assert cost.needed > 0
    lines = len(log_path.read_bytes().splitlines())
    assert parsed[0] <= lines, f"{parsed[0]} lines parsed from a log of {lines}"
