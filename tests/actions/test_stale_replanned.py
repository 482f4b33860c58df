"""A stale apply keeps its re-read, over real HTTP: the plan made again from the rows it read
is saved next to the plan file for review, and applied with that file's sha256 it reads
nothing again while the service shows no call of the project since; a call in between (a
change made meanwhile) and it reads again, as any plan."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from frame_reads import row_of

from lyt_toolkit.actions import ChangePlan, plan_file
from lyt_toolkit.actions.plan_file import PlanFileError, StalePlanError
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import BUCKET, SECRETS, TIERS, SaveFour, pull

pytestmark = pytest.mark.usefixtures("lyt_to_fresh", "professional")

_COMMAND = re.compile(r"lyt apply (\S+) --sha256 ([0-9a-f]{64})((?: --[a-z-]+)*)")


def _stale_four_kinds(client: LoyaltyClient, path: Path, save_four: SaveFour) -> tuple[str, str]:
    """The four-kind plan saved at ``path``, made stale: its reward drafted by someone else
    since. Its sha256 and the reward."""
    _, targets = save_four(path)
    client.rewards.draft(targets["move_reward_to_draft"])
    return hashlib.sha256(path.read_bytes()).hexdigest(), targets["move_reward_to_draft"]


def _refused(path: Path, sha256: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """``lyt apply PATH --sha256 HEX --allow-destroy``, refused as stale: its out and err."""
    assert main(["apply", str(path), "--sha256", sha256, "--allow-destroy"]) == 1
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_stale_refusal_saves_the_replanned_plan_and_its_apply_reads_nothing_again(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    """On 20,000 members a stale plan of 1,000 activations cost 1,001 calls to refuse and as
    many again for ``--refresh`` to read what the refusal had just read and thrown away."""
    path = tmp_path / "plan.json"
    sha256, reward = _stale_four_kinds(client, path, save_four)
    used = fresh.plan()["used"]

    out, err = _refused(path, sha256, capsys)
    refusal = fresh.plan()["used"] - used  # the token, then the re-read
    assert err.startswith(f"lyt apply: {path} is stale: 1 object changed") and reward in err
    command = _COMMAND.search(err)
    assert command is not None, err
    replanned = tmp_path / "plan.refreshed.json"
    assert command[1] == str(replanned) and command[3] == " --allow-destroy"
    assert command[2] == hashlib.sha256(replanned.read_bytes()).hexdigest()
    # the review: every change of the plan made again, the reward's (made) dropped out
    assert f"The plan made again from the state just read, saved to {replanned}:" in out
    assert "Plan: 1 to create, 1 to change, 1 to delete" in out and reward not in out
    for secret in SECRETS:
        assert secret not in out + err + replanned.read_text()
    assert refusal == 1 + ChangePlan.load(path).reread_cost().needed

    used = fresh.plan()["used"]
    assert main(["apply", command[1], "--sha256", command[2], "--allow-destroy"]) == 0
    out = capsys.readouterr().out
    assert "Not re-reading the 4 touched objects: the stale apply this plan was" in out
    assert "Applied: 3 succeeded" in out
    assert fresh.plan()["used"] - used == 1 + 3  # the token, then the writes: no re-read
    after = pull(client)
    assert BUCKET not in set(after.pending_buckets["id"])  # activated
    assert after.tier_structures.set_index("id").loc[TIERS, "status"] == "DELETED"


def test_a_call_of_the_project_since_the_refusal_reads_the_replanned_plan_again(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    """A change made between the refusal and the apply of the plan it saved is a call the
    service counts: the apply reads again, finds it, and refuses (saving the next plan)."""
    path = tmp_path / "plan.json"
    sha256, _ = _stale_four_kinds(client, path, save_four)
    _, err = _refused(path, sha256, capsys)
    command = _COMMAND.search(err)
    assert command is not None, err
    row = row_of(pull(client).pending_buckets.set_index("id"), BUCKET)
    client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, BUCKET)
    fresh.settle()
    used = fresh.plan()["used"]

    assert main(["apply", command[1], "--sha256", command[2], "--allow-destroy"]) == 1
    captured = capsys.readouterr()
    assert "Re-reading 4 touched objects" in captured.out
    assert "is stale: 1 object changed" in captured.err and BUCKET in captured.err
    assert fresh.plan()["used"] - used == 1 + 4  # the token, then the re-read: no write
    command = _COMMAND.search(captured.err)
    assert command is not None and command[1].endswith("plan.refreshed.refreshed.json")
    # the bucket is no longer PENDING: both ways on name the option it now needs
    assert command[3] == " --allow-destroy --ignore-unsupported"
    assert "or apply with --refresh and --ignore-unsupported to plan against" in captured.err


def test_the_replanned_file_is_bound_by_its_sha256_and_its_read_mark_checked(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """The mark of the read is inside what ``--sha256`` binds: a file whose mark was edited
    (to skip a re-read) is refused before any call; a broken mark is named."""
    path = tmp_path / "plan.json"
    sha256, _ = _stale_four_kinds(client, path, save_four)
    with pytest.raises(StalePlanError) as caught:
        ChangePlan.load(path).apply(client, allow_destroy=True, sha256=sha256, progress=False)
    replanned = caught.value.replanned
    assert replanned == tmp_path / "plan.refreshed.json"
    assert caught.value.replanned_sha256 == hashlib.sha256(replanned.read_bytes()).hexdigest()
    document = json.loads(replanned.read_text())
    assert set(document["read"]) == {"window_ends", "remaining", "today"}

    document["read"]["remaining"] += 1
    replanned.write_text(json.dumps(document))
    used = fresh.plan()["used"]
    assert main(["apply", str(replanned), "--sha256", caught.value.replanned_sha256]) == 1
    assert fresh.plan()["used"] == used  # refused before the token request
    document["read"]["today"] = "someday"
    replanned.write_text(json.dumps(document))
    with pytest.raises(PlanFileError, match=r"key 'read\.today': 'someday' is not a date"):
        ChangePlan.load(replanned)


@pytest.mark.parametrize("meanwhile", [False, True], ids=["quiet", "changed-meanwhile"])
def test_the_client_that_was_refused_hears_the_service_before_it_trusts_its_read(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    client: LoyaltyClient,
    tmp_path: Path,
    meanwhile: bool,
    save_four: SaveFour,
) -> None:
    """A notebook's client, refused, then applying the plan it saved: the window's count it
    holds is the one it heard at the refusal, blind to any call since. It asks the service
    first (a token request): quiet, the plan's writes follow with no re-read; a change made
    meanwhile, and it re-reads, finds it and refuses."""
    path = tmp_path / "plan.json"
    sha256, _ = _stale_four_kinds(client, path, save_four)
    with make_client(fresh) as analyst:
        with pytest.raises(StalePlanError) as caught:
            ChangePlan.load(path).apply(analyst, allow_destroy=True, sha256=sha256, progress=False)
        assert caught.value.replanned is not None
        replanned = ChangePlan.load(caught.value.replanned)
        if meanwhile:
            row = row_of(pull(client).pending_buckets.set_index("id"), BUCKET)
            client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, BUCKET)
            fresh.settle()
        used = fresh.plan()["used"]
        options: dict[str, Any] = {
            "allow_destroy": True, "sha256": replanned.sha256, "progress": False
        }  # fmt: skip
        if not meanwhile:
            assert replanned.cost(analyst).needed == 4 + 3  # heard nothing since: a re-read
            analyst.fetch_token(fresh=True)  # heard: quiet, the plan's cost is its writes
            assert replanned.cost(analyst).needed == 3
            assert replanned.apply(analyst, **options)["outcome"].eq("succeeded").all()
            assert fresh.plan()["used"] - used == 1 + 3  # the token request, the writes
            return
        with pytest.raises(StalePlanError, match=BUCKET):
            replanned.apply(analyst, **options)
        assert fresh.plan()["used"] - used == 1 + 4  # the token request, the re-read


def test_a_link_at_a_plan_files_path_is_replaced_never_written_through(
    client: LoyaltyClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], save_four: SaveFour
) -> None:
    """``NAME.refreshed.json`` (and any plan saved) was written with ``write_text``, through a
    link at its path: a link planted to the plan a reviewer approved had a stale apply's
    re-plan overwrite it, so the file approved no longer held what was reviewed. The file is
    written beside it and renamed onto the path: the link is replaced, its target untouched."""
    path, approved = tmp_path / "plan.json", tmp_path / "approved.json"
    plan, _ = save_four(approved)
    reviewed = approved.read_bytes()
    replanned = tmp_path / "plan.refreshed.json"
    replanned.symlink_to(approved)
    sha256, _ = _stale_four_kinds(client, path, save_four)

    _, err = _refused(path, sha256, capsys)
    assert approved.read_bytes() == reviewed
    command = _COMMAND.search(err)
    assert command is not None, err
    assert not replanned.is_symlink()
    assert command[2] == hashlib.sha256(replanned.read_bytes()).hexdigest()

    saved = tmp_path / "saved.json"
    saved.symlink_to(approved)
    plan.save(saved)
    assert approved.read_bytes() == reviewed and not saved.is_symlink()
    assert ChangePlan.load(saved).sha256 == hashlib.sha256(reviewed).hexdigest()


def test_the_sha256_said_of_a_refreshed_plan_is_of_the_bytes_written(
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    save_four: SaveFour,
) -> None:
    """The command a stale apply prints names the sha256 of ``NAME.refreshed.json`` as it was
    written, not as it is read back: a file another process puts in its place in between is
    then refused by that sha256, never approved by it."""
    path = tmp_path / "plan.json"
    sha256, _ = _stale_four_kinds(client, path, save_four)
    replanned = tmp_path / "plan.refreshed.json"
    written: dict[Path, bytes] = {}
    renamed = plan_file.replacing

    @contextlib.contextmanager
    def then_swapped(target: Path) -> Iterator[Path]:
        with renamed(target) as temporary:
            yield temporary
        written[target] = target.read_bytes()
        target.write_bytes(written[target] + b"\n")  # another process's file in its place

    monkeypatch.setattr(plan_file, "replacing", then_swapped)
    _, err = _refused(path, sha256, capsys)
    command = _COMMAND.search(err)
    assert command is not None, err
    assert command[2] == hashlib.sha256(written[replanned]).hexdigest()
    assert command[2] != hashlib.sha256(replanned.read_bytes()).hexdigest()


def test_a_refusal_whose_plan_for_review_cannot_be_written_says_so(
    client: LoyaltyClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], save_four: SaveFour
) -> None:
    """A folder at ``NAME.refreshed.json``'s path: the file cannot be written there. Earlier
    the refusal left the review out without a word, as if none were ever saved."""
    path = tmp_path / "plan.json"
    sha256, reward = _stale_four_kinds(client, path, save_four)
    (tmp_path / "plan.refreshed.json").mkdir()

    _, err = _refused(path, sha256, capsys)
    assert reward in err and _COMMAND.search(err) is None
    why = f"no plan made again was saved for review: {tmp_path / 'plan.refreshed.json'} could"
    assert why in err, err
    assert "or apply with --refresh" not in err and "apply with --refresh to plan" in err
