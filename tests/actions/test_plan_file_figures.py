"""A plan of 1,000 changes or more, saved and loaded, over real HTTP: its summary's figures
have thousands separators, as every count in the toolkit's texts has, and a file an older
toolkit saved, its figures without them, is still read."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from fixture_types import StartSandbox

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.synthetic import generate_program

PROGRAM = generate_program(
    members=0, rewards=2500, benefits=0, card_definitions=2, tier_structures=0, seed=5
)


def test_a_summary_of_a_thousand_changes_has_separators_and_an_older_file_is_still_read(
    start_sandbox: StartSandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """Earlier the summary read ``Plan: 0 to create, 1234 to change, ...``; a file saved so
    must still load (the summary is checked against the plan's rows)."""
    with start_sandbox(PROGRAM) as sb:
        sb.set_plan("100000/hour")
        with make_client(sb) as client:
            before = ProgramSnapshot.pull(client, progress=False, kinds=["rewards"])
    rewards = before.rewards.copy()
    active = rewards["status"] == "ACTIVE"
    assert active.sum() >= 1000, active.sum()
    rewards.loc[active, "status"] = "DRAFT"
    path = ChangePlan.from_frames(before, {"rewards": rewards}).save(tmp_path / "plan.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    summary = document["summary"]
    changed = f"{int(active.sum()):,} to change"
    assert summary.startswith(f"Plan: 0 to create, {changed}, 0 to delete; "), summary
    assert ChangePlan.load(path).summary().startswith(summary)
    document["summary"] = re.sub(r"(?<=[0-9]),(?=[0-9]{3})", "", summary)  # an older toolkit's
    assert f"{int(active.sum())} to change, " in document["summary"]
    path.write_text(json.dumps(document), encoding="utf-8")
    assert len(ChangePlan.load(path).changes) == active.sum()
