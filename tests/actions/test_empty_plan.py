"""A plan of no change (an analyst exported again and nothing changed) through the whole loop
over real HTTP: plan, rehearse, apply and verify each succeed, saying so plainly, their frames
carrying every column of a frame with rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lyt_toolkit.actions import (
    RESULT_COLUMNS,
    ActionLog,
    ChangePlan,
    logged_results,
    verify_touched,
)
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import SECRETS

RESULTS = ["call", *RESULT_COLUMNS]
PREVIEW = ["call", "item", "row", "target", "will", "calls", "valid", "error", "field"]


@pytest.mark.usefixtures("lyt_to_fresh")
def test_lyt_plan_rehearse_apply_and_verify_of_no_change_each_succeed_saying_so(
    fresh_pulled: ProgramSnapshot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, edited, plan = tmp_path / "base", tmp_path / "edited", str(tmp_path / "plan.json")
    fresh_pulled.to_csv(base)
    shutil.copytree(base, edited)  # exported again: nothing changed
    argv = ["plan", "--base", str(base), "--edited", str(edited), "--offline", "--out", plan]
    assert main(argv) == 0
    assert main(["rehearse", plan, "--base", str(base)]) == 0
    assert "Rehearsed: nothing to do" in capsys.readouterr().out.splitlines()

    assert main(["apply", plan]) == 0
    out, err = capsys.readouterr()
    assert "Applied: nothing, the plan has no change to send" in out.splitlines(), out

    code = main(["verify", plan, "--base", str(base)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Verification(ok=True, no changes;" in out
    assert not any(secret in out + err for secret in SECRETS)


def test_a_plan_of_no_change_previews_rehearses_applies_and_verifies_in_python(
    client: LoyaltyClient, fresh_pulled: ProgramSnapshot, tmp_path: Path
) -> None:
    plan = ChangePlan.from_frames(fresh_pulled, fresh_pulled)
    assert len(plan) == 0 and plan.cost(client).needed == 0
    assert list(plan.preview(client, progress=False).columns) == PREVIEW
    rehearsal = plan.rehearse(progress=False)
    assert list(rehearsal.results.columns) == RESULTS
    results = plan.apply(client, progress=False)
    assert list(results.columns) == RESULTS and results.empty
    verification = verify_touched(rehearsal, client, results=results)
    assert verification.ok and verification.checks.empty

    saved = ChangePlan.load(plan.save(tmp_path / "plan.json"))
    with pytest.raises(ValueError, match=r"^snapshot: the plan read from .* holds no base"):
        saved.rehearse(progress=False)  # was: "kinds: name at least one", never passed
    rehearsed = saved.rehearse(fresh_pulled, progress=False)
    assert list(saved.apply(client, log=tmp_path / "log.jsonl", progress=False)) == RESULTS
    with ActionLog(tmp_path / "log.jsonl", plan=saved.sha256) as log:
        logged = logged_results(rehearsed, log)
    assert verify_touched(rehearsed, client, results=logged).ok
