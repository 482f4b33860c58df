"""An action log answers for the plan file whose apply wrote it, over real HTTP: a new plan
saved at the same path (its default log, ``PLAN.log.jsonl``, is the old plan's) is neither
skipped as done nor spared its re-read by what the old plan's run did."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import httpx
import pandas as pd
import pytest
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog, ChangePlan
from lyt_toolkit.actions.kept_reads import KeptReads
from lyt_toolkit.actions.log import LogFileError
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import (
    SaveOne,
    bonus,
    bucket_lists,
    pull,
    refused_paced_apply,
    stopped_in_re_read,
)

pytestmark = pytest.mark.usefixtures("lyt_to_fresh")


def _save_bonus(snapshot: ProgramSnapshot, path: Path, points: int) -> str:
    """A plan creating ``Bonus 05`` worth ``points`` from ``snapshot``, saved at ``path``:
    its sha256."""
    edit = actions.edit(snapshot)
    row = bonus(str(snapshot.card_definitions["id"].iloc[0])).assign(points_value=points)
    edit.benefits = pd.concat([edit.benefits, row], ignore_index=True)
    edit.plan().save(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _points(client: LoyaltyClient) -> list[int]:
    benefits = pull(client).benefits
    return [int(v) for v in benefits.loc[benefits["name"] == "Bonus 05", "points_value"]]


def test_a_new_plan_saved_over_an_applied_one_is_not_skipped_by_its_default_log(
    client: LoyaltyClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reviewer asked for 80 points, not 50: the plan made again from the same pull and
    saved over the applied one was reported applied, its create skipped as done by the old
    plan's log (and not re-read: the name the old plan took was "its own"), 50 points live."""
    snapshot = pull(client)
    path = tmp_path / "plan.json"
    first = _save_bonus(snapshot, path, 50)
    assert main(["apply", str(path), "--sha256", first]) == 0
    assert _points(client) == [50]

    second = _save_bonus(snapshot, path, 80)
    capsys.readouterr()
    code = main(["apply", str(path), "--sha256", second])
    err = capsys.readouterr().err

    assert code == 1, err  # stale: the name is taken since the plan's base was pulled
    assert "is stale" in err and "Bonus 05" in err
    assert _points(client) == [50]
    assert not ChangePlan.load(path).applied_before()


def test_a_plans_own_log_still_resumes_it_after_another_plans_run(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    """Lines of another plan in between leave a plan's own lines its own: resumed, what
    its run made is neither stale nor sent again."""
    snapshot = pull(client)
    log = tmp_path / "shared.log.jsonl"
    mine = tmp_path / "mine.json"
    _save_bonus(snapshot, mine, 50)
    saved = ChangePlan.load(mine)
    first = saved.parts[0].items[0].target
    saved.apply(client, log=log, progress=False)
    other = tmp_path / "other.json"
    _save_bonus(snapshot, other, 80)
    with pytest.raises(StalePlanError):  # the name is mine's now
        ChangePlan.load(other).apply(client, log=log, progress=False)
    plans = [json.loads(line).get("plan") for line in log.read_text().splitlines()]
    assert [p for p in plans if p] == [saved.sha256, ChangePlan.load(other).sha256]

    ledger = saved.applied_marker
    ledger.unlink()  # as if the apply had been killed before recording itself
    assert saved.own_work(client, log)["create_benefit"] == {first}
    assert saved.stale(client, log=log) == []
    results = ChangePlan.load(mine).apply(client, log=ActionLog(log), progress=False)
    assert list(results["outcome"]) == ["skipped_already_done"]  # as its log saw it done
    assert _points(client) == [50]


def _stopped_in_re_read(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    path: Path,
    log: Path,
    save_one: SaveOne,
) -> tuple[pd.DataFrame, list[str]]:
    """A plan activating one pending bucket on each of several cards, saved at ``path``, its
    paced apply with ``log`` stopped (Ctrl-C) after reading two cards: the buckets chosen,
    and the key of the first card read (kept beside the log)."""
    chosen = save_one(path)
    stopped_in_re_read(fresh, make_client, path, log, 3)  # two cards read
    kept = log.with_name(log.name + ".reread.jsonl").read_text(encoding="utf-8")
    return chosen, json.loads(kept.splitlines()[0])["key"]


def test_a_re_read_kept_from_a_sandbox_reset_since_is_not_taken_for_its_state_now(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """A paced apply stopped in its re-read left its log with window lines only (no owner
    line: only the writes claimed it), so the run after a reset took the cards read before
    it for the state the sandbox holds now: a card changed since the reset was not seen."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen, read = _stopped_in_re_read(fresh, make_client, path, log, save_one)

    fresh.reset()  # fresh state: what was read before holds nothing of it
    first = chosen[chosen["card_id"].isin(read)].iloc[0]  # a card read before the stop
    with make_client(fresh) as client:
        client.pending_buckets.activate(first.program_id, first.member_id, first.card_id, first.id)
    fresh.settle()
    with make_client(fresh) as client, pytest.raises(actions.ForeignLogError, match="restarted"):
        ChangePlan.load(path).apply(client, log=log, progress=False, paced=True)
    log.unlink()  # "start a new log here": at the same path, what the old one kept beside it
    with make_client(fresh) as client, pytest.raises(StalePlanError) as stale:
        ChangePlan.load(path).apply(client, log=log, progress=False, paced=True)
    assert first.id in str(stale.value)


def test_a_kept_read_cut_mid_character_by_a_kill_is_read_again_not_a_traceback(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """A kill while a kept line was written (names are kept as UTF-8, not escaped) can cut a
    character in two: every later run of the plan stopped on a UnicodeDecodeError."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen, _ = _stopped_in_re_read(fresh, make_client, path, log, save_one)
    with log.with_name(log.name + ".reread.jsonl").open("ab") as kept:
        kept.write('{"log": "lyt-reread/1", "name": "Café'.encode()[:-1])
    sent: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = ChangePlan.load(path).apply(client, log=log, progress=False, paced=True)
    assert results["outcome"].eq("succeeded").sum() == len(chosen)
    assert bucket_lists(sent) == len(chosen) - 2  # the two kept are not read again


@pytest.mark.parametrize(
    ("link", "refusal"),
    [
        (Path.symlink_to, "is a symbolic link;"),
        (Path.hardlink_to, "is a hard link (one of 2 names of one file);"),
    ],
    ids=["symbolic", "hard"],
)
def test_a_link_at_the_kept_re_reads_path_is_refused_before_a_call_not_written_through(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    link: Callable[[Path, Path], None],
    refusal: str,
    save_one: SaveOne,
) -> None:
    """``LOG.reread.jsonl`` was appended to with ``open("a")``: a link planted there (to a
    user's notes, a dotfile) had the paced re-read's JSON lines appended to the file it
    named; a hard link (``O_NOFOLLOW`` stops symbolic ones only) still did. It is refused as
    the log refuses one, naming it, before the re-read's first call."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = save_one(path)
    notes = tmp_path / "notes.txt"
    notes.write_text("someone's notes\n", encoding="utf-8")
    kept = log.with_name(log.name + ".reread.jsonl")
    link(kept, notes)
    sent, refused = refused_paced_apply(fresh, make_client, path, log, LogFileError)
    assert str(refused).startswith(f"{kept}: {refusal}"), refused
    assert notes.read_text(encoding="utf-8") == "someone's notes\n"
    assert bucket_lists(sent) == 0 and not [
        r for r in sent if r.method == "POST" and "activ" in r.url.path
    ]
    with make_client(fresh) as client:
        statuses = pull(client).pending_buckets.set_index("id").loc[chosen["id"], "status"]
    assert (statuses != "ACTIVATED").all()


def test_a_read_kept_after_a_line_a_kill_cut_short_is_kept_not_glued_to_it(
    tmp_path: Path,
) -> None:
    """A kill while a kept line was written leaves it without its newline: the next run's
    first kept read was appended to it, one line of neither, and read again by the run
    after (the action log starts on a fresh line: ``open_append`` does so for both)."""
    kept = tmp_path / "plan.log.jsonl.reread.jsonl"
    KeptReads(kept, "sha").read(("card", "a"), list)
    with kept.open("ab") as file:
        file.write(b'{"log": "lyt-reread/1", "plan": "sha", "key": ["card", "b"')  # killed
    KeptReads(kept, "sha").read(("card", "c"), list)
    assert set(KeptReads(kept, "sha").held) == {("card", "a"), ("card", "c")}


def test_a_kept_re_read_larger_than_any_is_refused_unread(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """The kept re-read was read whole whatever its size (``read_bytes``): a file grown to
    gigabytes at its path was read into memory before the re-read began."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    save_one(path)
    kept = log.with_name(log.name + ".reread.jsonl")
    kept.write_bytes(b"")
    os.truncate(kept, 256 * 2**20 + 1)  # KEPT_MOST + 1, sparse: nothing written to the disk
    with make_client(fresh) as client, pytest.raises(LogFileError) as refused:
        ChangePlan.load(path).apply(client, log=log, progress=False, paced=True)
    assert str(refused.value) == f"{kept}: over 256 MiB; no JSON-lines kept re-read is that large"


@pytest.mark.parametrize("unsaved", ["ChangePlan.apply", "ActionPlan.execute"])
def test_an_unsaved_runs_lines_after_a_saved_plans_are_not_taken_for_its_own(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    client: LoyaltyClient,
    tmp_path: Path,
    unsaved: str,
) -> None:
    """A saved plan creating ``Bonus 05`` worth 50 was stopped (Ctrl-C) in its re-read; an
    unsaved plan then created ``Bonus 05`` worth 80 with the same log. Resumed, the saved plan
    read the unsaved run's line as its own: skipped as done, reported applied, 80 points live.
    The unsaved run's plan line (plan null) makes them no saved plan's: it is stale."""
    snapshot = pull(client)
    path, log = tmp_path / "plan.json", tmp_path / "shared.log.jsonl"
    _save_bonus(snapshot, path, 50)

    def ctrl_c(request: httpx.Request) -> None:
        if request.method == "GET":
            raise KeyboardInterrupt  # in the re-read: nothing written yet

    with (
        httpx.Client(event_hooks={"request": [ctrl_c]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as stopped,
        pytest.raises(KeyboardInterrupt),
    ):
        ChangePlan.load(path).apply(stopped, log=log, progress=False)
    edit = actions.edit(snapshot)
    row = bonus(str(snapshot.card_definitions["id"].iloc[0])).assign(points_value=80)
    edit.benefits = pd.concat([edit.benefits, row], ignore_index=True)
    other = edit.plan()
    if unsaved == "ChangePlan.apply":
        other.apply(client, log=log, progress=False)
    else:
        other.parts[0].execute(client, log=log, progress=False)
    assert _points(client) == [80]
    with pytest.raises(StalePlanError) as stale:
        ChangePlan.load(path).apply(client, log=log, progress=False)
    assert "Bonus 05" in str(stale.value)
    assert _points(client) == [80]
    plans = [json.loads(line).get("plan", "-") for line in log.read_text().splitlines()]
    mine = ChangePlan.load(path).sha256
    assert [p for p in plans if p != "-"] == [mine, None, mine]
