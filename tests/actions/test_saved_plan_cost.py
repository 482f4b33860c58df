"""The cost of a saved plan says everything its apply sends, over real HTTP: the summary
counts the re-read of the touched objects with the writes (``lyt plan`` too), and an apply
refused before the re-read neither prints nor sends it."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.synthetic import generate_program

from .helpers import TIERS, SaveFour, bonus, first_id, pull


def test_a_saved_plan_counts_its_re_read_in_the_summary(
    tmp_path: Path, save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)
    loaded = ChangePlan.load(path)
    made = "Plan: 1 to create, 2 to change, 1 to delete; 0 changes the service cannot make"
    assert loaded.summary() == f"{made}; 9 calls (5 re-reads, then 4 writes)"
    assert loaded.cost().needed == 9
    assert json.loads(path.read_text())["summary"] == loaded.summary()


def test_lyt_plan_counts_the_re_read_lyt_apply_sends(
    client: LoyaltyClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = pull(client)
    snapshot.to_csv(tmp_path / "base")
    edit = actions.edit(snapshot)
    reward = first_id(snapshot.rewards, status="ACTIVE")
    edit.rewards.loc[edit.rewards["id"] == reward, "status"] = "DRAFT"
    card = str(snapshot.card_definitions["id"].iloc[0])
    edit.benefits = pd.concat([edit.benefits, bonus(card)], ignore_index=True)
    edited = ProgramSnapshot.from_frames(
        edit.frames(), source=snapshot.source, pulled_at=snapshot.pulled_at
    )
    edited.to_csv(tmp_path / "edited")
    args = ["plan", "--base", str(tmp_path / "base"), "--edited", str(tmp_path / "edited")]
    args += ["--offline", "--out", str(tmp_path / "plan.json")]
    assert main(args) == 2
    first = capsys.readouterr().out.splitlines()[0]
    # the reward, the bonus's card definition, one listing of names; then the two writes
    assert first.endswith("; 5 calls (3 re-reads, then 2 writes)"), first


@pytest.mark.usefixtures("lyt_to_fresh")
def test_an_apply_refused_before_the_re_read_neither_prints_nor_sends_it(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)
    used = fresh.plan()["used"]

    assert main(["apply", str(path)]) == 1  # deletes need --allow-destroy
    captured = capsys.readouterr()
    assert "Re-reading" not in captured.out and f"tier structure {TIERS}" in captured.err
    assert fresh.plan()["used"] == used

    with pytest.raises(actions.EditError, match="allow_destroy"):
        ChangePlan.load(path).apply(client, progress=False)
    assert fresh.plan()["used"] == used


def test_the_summary_of_a_plan_in_memory_counts_only_its_writes(
    tmp_path: Path, save_four: SaveFour
) -> None:
    plan = save_four(tmp_path / "plan.json")[0]
    assert plan.summary().endswith("; 4 calls") and plan.cost().needed == 4


MANY_REWARDS = generate_program(
    rewards=400, benefits=1, card_definitions=2, tier_structures=1, members=1, seed=8
)
"""A program of 400 rewards, over 198 of them ACTIVE: three listings of 99."""


def test_the_re_read_of_many_rewards_lists_them_by_id_99_a_call(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """On 20,000 members, a saved plan moving 300 rewards to draft re-read them one call
    each, 300 of its 1,814 re-reads, where a listing by ID takes 99 a call: 4. The re-read
    lists them so, sends what its cost says, and still finds one changed since the pull; a
    file an older toolkit saved (its summary counting a call a reward) is still read."""
    path = tmp_path / "plan.json"
    with start_sandbox(data=MANY_REWARDS) as sb, make_client(sb) as client:
        edit = actions.edit(pull(client))
        active = edit.rewards["status"] == "ACTIVE"
        assert 2 * 99 < active.sum() <= 3 * 99
        edit.rewards.loc[active, "status"] = "DRAFT"
        edit.plan().save(path)
        loaded = ChangePlan.load(path)
        drafts = int(active.sum())
        assert loaded.reread_cost().needed == 3
        assert loaded.summary().endswith(f"; {drafts + 3} calls (3 re-reads, then {drafts} writes)")
        changed = str(edit.rewards.loc[active, "id"].iloc[150])
        client.rewards.draft(changed)  # someone else, since the pull
        used = sb.plan()["used"]
        assert loaded.stale(client) == [f"rewards {changed}"]
        assert sb.plan()["used"] - used == 3

        older = json.loads(path.read_text())  # as a toolkit reading each reward saved it
        older["summary"] = older["summary"].replace(
            f"{drafts + 3} calls (3 re-reads", f"{2 * drafts} calls ({drafts} re-reads"
        )
        path.write_text(json.dumps(older))
        assert ChangePlan.load(path).reread_cost().needed == 3
