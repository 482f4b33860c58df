"""A stale refusal of a partly applied plan saves the plan made again for review too, over
real HTTP: it holds only what is still to do (the plan's own writes, made, drop out, its
create too: the file is applied with a log of its own), bound to the read it was made from,
and applied it sends none of the writes made again."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from frame_reads import row_of

from lyt_toolkit.actions import (
    ActionLog,
    ChangePlan,
    create_benefits,
    logged_results,
    review_log,
    verify_touched,
)
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import (
    BUCKET,
    SECRETS,
    TIERS,
    SaveFour,
    SaveOne,
    activate,
    bonus,
    names_on_server,
    pull,
    stopped_after,
)

pytestmark = pytest.mark.usefixtures("lyt_to_fresh", "professional")

_COMMAND = re.compile(r"lyt apply (\S+) --sha256 ([0-9a-f]{64})((?: --[a-z-]+)*)")


def test_lyt_apply_of_a_partly_applied_stale_plan_saves_what_is_left_for_review(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    """Its create and its reward's move made, then stopped; the bucket activated by someone
    else since. Earlier the refusal saved no file (the log showed writes of the plan's own):
    ``--refresh``, unreviewed, or a fresh pull were the only ways on."""
    path = tmp_path / "plan.json"
    _, targets = save_four(path)
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    drafted = lambda sent: any(r.url.path.endswith("/draft") for r in sent)  # noqa: E731
    made = stopped_after(fresh, make_client, path, drafted, allow_destroy=True)
    assert made == {"Bonus 05", targets["move_reward_to_draft"]}
    row = row_of(pull(client).pending_buckets.set_index("id"), BUCKET)
    client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, BUCKET)
    fresh.settle()

    assert main(["apply", str(path), "--sha256", sha256, "--allow-destroy"]) == 1
    out, err = capsys.readouterr()
    assert err.startswith(f"lyt apply: {path} is stale: 1 object changed") and BUCKET in err
    command = _COMMAND.search(err)
    assert command is not None, err
    replanned = tmp_path / "plan.refreshed.json"
    assert command[1] == str(replanned)
    assert command[2] == hashlib.sha256(replanned.read_bytes()).hexdigest()
    assert command[3] == " --allow-destroy --ignore-unsupported"  # the bucket: not PENDING
    assert "(without the 2 writes of the plan's own already made)" in err, err
    assert f"(then verify {path} against its base as before: lyt verify reads" in err, err
    # what is left: the delete; the create and the move made drop out, the bucket unsupported
    assert "Plan: 0 to create, 0 to change, 1 to delete; 1 change" in out, out
    for secret in SECRETS:
        assert secret not in out + err + replanned.read_text()

    used = fresh.plan()["used"]
    assert main(["apply", command[1], "--sha256", command[2], *command[3].split()]) == 0
    out = capsys.readouterr().out
    assert "Not re-reading the 1 touched object: the stale apply" in out, out
    assert "Applied: 1 succeeded" in out, out
    assert fresh.plan()["used"] - used == 1 + 1  # the token, then the delete: nothing again
    assert names_on_server(client, "Bonus 05") == ["Bonus 05"]  # created once
    assert pull(client).tier_structures.set_index("id").loc[TIERS, "status"] == "DELETED"

    # the original plan's verify reads its plan for review's log too: the delete it made is
    # the apply's; the bucket someone else activated stays not sent, said so
    base = tmp_path / "base"
    fresh_pulled.to_csv(base)
    assert main(["verify", str(path), "--base", str(base)]) == 2
    out = capsys.readouterr().out
    assert "1 write made by plan.refreshed.json's apply; 1 item sent by neither" in out, out
    assert f"its plan for review {replanned} has ({replanned}.applied)" in out, out
    assert f"delete_tier_structure {TIERS}" not in out, out  # made, by the review's apply
    assert f"tier_structures {TIERS}" not in out, out  # the row: deleted, as rehearsed
    assert f"activate_pending_bucket {BUCKET}: rehearsed succeeded, the apply not sent" in out
    assert "Verification(ok=False" in out and ", 1 different;" in out, out


def test_a_paced_partly_applied_stale_plan_saves_what_is_left_for_review(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    save_one: SaveOne,
) -> None:
    """Two activations made, then stopped; the last activated by someone else since. Earlier
    the paced refusal saved no file: "the log holds writes of this plan's own". Verified, the
    original plan's outcomes are read from both logs: each write made by one apply or the
    other, the last someone else's (not sent); earlier the review's writes were not sent."""
    path = tmp_path / "plan.json"
    chosen = save_one(path)
    assert len(chosen) > 3
    activations = lambda sent: sum(r.url.path.endswith("/activate") for r in sent) == 2  # noqa: E731
    made = stopped_after(fresh, make_client, path, activations, paced=True)
    assert len(made) == 2
    last = str(ChangePlan.load(path).parts[0].items[-1].target)
    with make_client(fresh) as client:
        activate(client, chosen[chosen["id"] == last].iloc[0])
    fresh.settle()

    loaded = ChangePlan.load(path)
    log = path.with_name(path.name + ".log.jsonl")
    with make_client(fresh) as client, pytest.raises(StalePlanError) as refused:
        loaded.apply(client, log=log, progress=False, paced=True, sha256=loaded.sha256)
    assert refused.value.replanned is not None, refused.value
    review = ChangePlan.load(refused.value.replanned)
    left = set(chosen["id"]) - made - {last}
    assert {str(item.target) for item in review.parts[0].items} == left
    assert list(review.unsupported["key"]) == [last]

    used = fresh.plan()["used"]
    with make_client(fresh) as client:
        results = review.apply(
            client,
            log=tmp_path / "plan.refreshed.json.log.jsonl",  # lyt apply's: its own
            progress=False,
            paced=True,
            ignore_unsupported=True,
            sha256=review.sha256,
        )
    assert set(results.loc[results["outcome"] == "succeeded", "target"]) == left
    assert fresh.plan()["used"] - used == 1 + len(left)  # a token, then the writes

    rehearsal = loaded.rehearse(fresh_pulled, concurrency=1, progress=False)
    review_logged = review_log(path)
    assert review_logged is not None and review_logged.plan == review.sha256
    with ActionLog(log, plan=loaded.sha256) as own, review_logged:
        logged = logged_results(rehearsal, own, review=review_logged)
    outcomes = dict(zip(logged["target"], logged["outcome"], strict=True))
    assert outcomes == {**dict.fromkeys(made | left, "succeeded"), last: "not sent"}
    with make_client(fresh) as client:
        problems = verify_touched(rehearsal, client, results=logged).problems
    assert list(zip(problems["change"], problems["item"], problems["actual"], strict=True)) == [
        ("outcome", f"activate_pending_bucket {last}", "not sent")
    ]  # its rows as rehearsed: only someone else's activation is not the apply's


@pytest.mark.parametrize("reached", [True, False], ids=["move-made", "move-not-made"])
def test_a_write_in_doubt_is_settled_by_its_read_back_in_the_plan_for_review(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, reached: bool, save_four: SaveFour
) -> None:
    """An apply killed with its create answered and its reward's move in flight (which the
    service made, or never got); then the bucket activated by someone else. The plan for
    review holds the delete, and the move only when the service does not show it made: read
    back, a move made drops out, as the create made does; applied, each write goes once."""
    path = tmp_path / "plan.json"
    _, targets = save_four(path)
    reward = targets["move_reward_to_draft"]
    create_benefits(bonus(targets["card"])).execute(client, progress=False)
    if reached:
        client.rewards.draft(reward)
    log = ActionLog(tmp_path / "plan.json.log.jsonl")
    log.record("create_benefit", "Bonus 05", "succeeded")
    log.record("move_reward_to_draft", reward, "attempted")
    row = row_of(pull(client).pending_buckets.set_index("id"), BUCKET)
    client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, BUCKET)
    fresh.settle()

    loaded = ChangePlan.load(path)
    with pytest.raises(StalePlanError, match=BUCKET) as refused:
        loaded.apply(client, log=log.path, progress=False, allow_destroy=True, sha256=loaded.sha256)
    assert refused.value.replanned is not None, refused.value
    review = ChangePlan.load(refused.value.replanned)
    left = [("delete_tier_structure", [TIERS])]
    if not reached:
        left.insert(0, ("move_reward_to_draft", [reward]))
    assert [(part.action, [str(i.target) for i in part.items]) for part in review.parts] == left
    results = review.apply(
        client, progress=False, allow_destroy=True, ignore_unsupported=True, sha256=review.sha256
    )
    assert list(results["outcome"]) == ["succeeded"] * len(left)
    assert names_on_server(client, "Bonus 05") == ["Bonus 05"]


def test_lyt_verify_of_a_plan_refused_before_any_write_takes_its_plan_for_reviews_outcomes(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    """Refused as stale before any write (the bucket activated by someone else), the plan
    for review applied as printed: verified, the original plan's items take that apply's
    outcomes. Earlier each was not sent."""
    path = tmp_path / "plan.json"
    save_four(path)
    row = row_of(pull(client).pending_buckets.set_index("id"), BUCKET)
    client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, BUCKET)
    fresh.settle()
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    assert main(["apply", str(path), "--sha256", sha256, "--allow-destroy"]) == 1
    command = _COMMAND.search(capsys.readouterr().err)
    assert command is not None
    assert main(["apply", command[1], "--sha256", command[2], *command[3].split()]) == 0
    capsys.readouterr()

    base = tmp_path / "base"
    fresh_pulled.to_csv(base)
    assert main(["verify", str(path), "--base", str(base)]) == 2
    out = capsys.readouterr().out
    assert "3 writes made by plan.refreshed.json's apply; 1 item sent by neither" in out, out
    assert "Verification(ok=False" in out and ", 1 different;" in out, out
    assert f"activate_pending_bucket {BUCKET}: rehearsed succeeded, the apply not sent" in out
