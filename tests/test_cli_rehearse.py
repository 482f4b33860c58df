"""``lyt rehearse`` and ``lyt verify`` over real HTTP, the demo sandbox standing in for
production: a saved plan of four kinds rehearsed on a local copy of its base with no call to
the service, then applied, then read back in the calls ``actions.verify_touched`` sends;
every bad input one line naming the option or file, no secret printed."""

from __future__ import annotations

import copy
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from actions.helpers import (
    BUCKET,
    CREDENTIALS,
    SECRETS,
    TIERS,
    four_kinds_plan,
    pull,
    two_refused_one_made,
)

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.verify_touched import touched_reads
from lyt_toolkit.cli import main
from lyt_toolkit.cli import rehearse as cli_rehearse
from lyt_toolkit.cli._rehearsed import Rehearsed, rehearsed_or_fail
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot


@pytest.fixture(scope="module")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox(credentials=CREDENTIALS) as sandbox:
        yield sandbox


@pytest.fixture
def service(fresh: Sandbox, configure_lyt: Callable[[Sandbox], None]) -> Iterator[Sandbox]:
    """``lyt`` run in the test talks to ``fresh``, on a plan whose answers count its calls."""
    configure_lyt(fresh)
    fresh.set_plan("professional")
    yield fresh
    fresh.set_plan("unlimited")


@pytest.fixture
def client(service: Sandbox, make_client: Callable[..., LoyaltyClient]) -> Iterator[LoyaltyClient]:
    with make_client(service) as c:
        yield c


@pytest.fixture(scope="module")
def _saved_once(
    _fresh_pulled: ProgramSnapshot, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """The four-kind plan of the program as ``fresh`` holds it saved, its base exported to
    ``base/``: once a module (each test's sandbox is put back to the same program)."""
    root = tmp_path_factory.mktemp("four-kinds")
    base = copy.deepcopy(_fresh_pulled)
    plan, _ = four_kinds_plan(base)
    base.to_csv(root / "base")
    return plan.save(root / "plan.json"), root / "base"


@pytest.fixture
def saved(
    service: Sandbox,
    fresh_pulled: ProgramSnapshot,
    _saved_once: tuple[Path, Path],
    tmp_path: Path,
) -> tuple[Path, Path, ProgramSnapshot]:
    """The four-kind plan of the live program saved to ``plan.json`` (a copy of the
    module's: its apply's log and plan for review are the test's own), its base exported to
    a folder only read: the plan file, the folder and the base."""
    plan, folder = _saved_once
    return Path(shutil.copy(plan, tmp_path / "plan.json")), folder, fresh_pulled


def lyt(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``lyt argv``: its exit code, stdout and stderr, neither holding a secret."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert not any(secret in out + err for secret in SECRETS)
    assert "Traceback" not in err
    return code, out, err


def test_rehearse_shows_what_the_plan_would_change_and_sends_nothing_to_the_service(
    service: Sandbox,
    client: LoyaltyClient,
    saved: tuple[Path, Path, ProgramSnapshot],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, folder, base = saved
    used = service.plan()["used"]
    changes = tmp_path / "changes.csv"
    code, out, err = lyt(
        capsys, "rehearse", str(path), "--base", str(folder), "--out", str(changes)
    )
    assert code == 0, err
    assert service.plan()["used"] == used  # not one call to the service
    python = ChangePlan.load(path).rehearse(base, progress=False)  # the Python route
    assert "Rehearsed: 4 succeeded" in out
    assert f"Calls the run sent: {python.calls} (" in out
    assert f": {len(python.diff)} changes" in out
    assert re.search(rf"^  changed +tier_structures {TIERS} status: \w+ -> DELETED$", out, re.M)
    assert re.search(r"^  added +benefits .* \(Bonus 05\)$", out, re.M)
    assert f"{len(python.diff)} changes written to {changes.resolve()}" in out
    assert len(changes.read_text().splitlines()) == len(python.diff) + 1
    assert "Note:" not in out  # the folder is the plan's base
    assert "Bonus 05" not in set(pull(client).benefits["name"])  # the service untouched


def test_rehearse_counts_the_calls_lyt_apply_then_sends_its_re_read_with_them(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    path, folder, _ = saved
    code, out, err = lyt(capsys, "rehearse", str(path), "--base", str(folder))
    assert code == 0, err
    said = re.search(r"lyt apply sends (\d+) on a service in the snapshot's state", out)
    assert said is not None, out
    service.set_plan("professional")  # a whole window: its count is the apply's
    assert lyt(capsys, "apply", str(path), "--allow-destroy")[0] == 0
    assert service.plan()["used"] == int(said[1])  # the re-read's calls counted too


def test_apply_names_each_item_it_could_not_make_and_how_to_go_on(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _, base = saved
    service.advance_clock(400 * 86400)  # every bucket's activation date has passed: 423
    assert lyt(capsys, "apply", str(path), "--allow-destroy")[0] == 1  # stale: re-planned
    refreshed = path.with_name("plan.refreshed.json")  # the bucket kept, read back refused
    code, out, err = lyt(capsys, "apply", str(refreshed), "--allow-destroy")
    assert code == 1
    bucket = four_kinds_plan(base)[1]["activate_pending_bucket"]
    assert re.search(rf"^  activate_pending_bucket {bucket}: failed 423\b", out, re.M), out
    assert err.startswith("lyt apply: 1 item not made, as the lines above say")
    assert "1 write the service refused for good, which running again does not send" in err


def test_rehearse_names_what_it_cannot_use_in_one_line(
    service: Sandbox,
    saved: tuple[Path, Path, ProgramSnapshot],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, folder, base = saved
    used = service.plan()["used"]
    rewards = tmp_path / "rewards-only"
    ProgramSnapshot.from_frames(
        {"rewards": base.rewards, "reward_costs": base.reward_costs},
        source=base.source,
        pulled_at=base.pulled_at,
    ).to_csv(rewards)
    code, _, err = lyt(capsys, "rehearse", str(path), "--base", str(rewards))
    assert code == 1
    [line] = err.splitlines()
    assert line.startswith(
        f"lyt rehearse: --base {rewards}: rehearsing change_plan needs the kinds"
    )
    assert "export with --kinds " in line and "kinds=[" not in line

    code, _, err = lyt(capsys, "rehearse", str(tmp_path / "nowhere.json"), "--base", str(folder))
    assert code == 1 and err.startswith("lyt rehearse: ") and "nowhere.json" in err
    assert len(err.splitlines()) == 1
    code, _, err = lyt(capsys, "rehearse", str(path), "--base", str(tmp_path / "none"))
    assert code == 1 and err.startswith(f"lyt rehearse: --base {tmp_path / 'none'}: ")
    code, _, err = lyt(capsys, "rehearse", str(path), "--base", str(folder), "--log", "no.jsonl")
    assert (code, err) == (1, "lyt rehearse: --log no.jsonl: no such action log\n")
    assert service.plan()["used"] == used


def test_verify_after_apply_reads_back_in_the_calls_of_the_python_route(
    service: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    saved: tuple[Path, Path, ProgramSnapshot],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, folder, base = saved
    assert lyt(capsys, "apply", str(path), "--allow-destroy")[0] == 0
    service.settle()
    saved_plan = ChangePlan.load(path)
    rehearsal = saved_plan.rehearse(base, progress=False)
    reads = touched_reads(rehearsal)
    service.set_plan("professional")  # a whole window: its count is this command's
    checks = tmp_path / "checks.csv"
    code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder), "--out", str(checks))
    assert code == 0, err
    assert service.plan()["used"] == 1 + reads.calls  # the token, then the reads announced
    # the token came first (to learn the budget): the figure is the reads
    assert f"Reading back what the rehearsal changed: calls needed: {reads.calls};" in out
    assert "Verification(ok=True, " in out and f"({reads.objects} objects)" in out
    assert "Note:" not in out  # applied to completion
    service.set_plan("professional")
    log = actions.ActionLog(path.with_name(path.name + ".log.jsonl"), plan=saved_plan.sha256)
    results = actions.logged_results(rehearsal, log)  # the apply's, from its log: no call
    with make_client(service) as new:  # the Python route, from a new client as lyt's: the same
        python = actions.verify_touched(rehearsal, new, results=results)
    assert service.plan()["used"] == 1 + reads.calls
    assert f"{len(python.checks)} checks written to {checks.resolve()}" in out
    service.set_plan("professional")  # paced, counting the apply's log: the same reads
    code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder), "--paced")
    assert code == 0, err
    assert "Verification(ok=True, " in out and service.plan()["used"] == 1 + reads.calls


def test_verify_names_the_apply_outcome_of_each_item_that_explains_a_check(
    service: Sandbox,
    client: LoyaltyClient,
    saved: tuple[Path, Path, ProgramSnapshot],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The apply's log read (no call): the activation refused in production (its date passed
    after the apply's re-read, 423), the delete never sent (the apply cancelled before it);
    each shows as an outcome not as rehearsed, and the missing changes name it."""
    path, folder, _ = saved
    cancel = threading.Event()

    def meanwhile(done: int, total: int) -> None:  # between the plan's parts, one item each
        if done == 1 and not cancel.is_set():  # the create sent: the bucket's date passes
            service.advance_clock(5 * 86400)
        if done == 3:  # the activation sent: the delete is not
            cancel.set()

    applied = ChangePlan.load(path).apply(
        client,
        log=path.with_name(path.name + ".log.jsonl"),
        allow_destroy=True,
        progress=meanwhile,
        cancel=cancel,
    )
    assert list(applied["outcome"].astype(str)) == ["succeeded", "succeeded", "failed", "cancelled"]
    service.set_plan("professional")  # a whole window: its count is this command's
    checks = tmp_path / "checks.csv"
    code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder), "--out", str(checks))
    assert code == 2, err
    needed = re.search(r"Reading back what the rehearsal changed: calls needed: (\d+);", out)
    assert needed is not None and service.plan()["used"] == 1 + int(needed[1])  # no more
    assert "Comparing each item's outcome with the apply's, from its action log" in out
    refused = f"activate_pending_bucket {BUCKET}: failed 423 resource_locked"
    for item in (refused, f"delete_tier_structure {TIERS}: not sent"):
        shown = item.replace(": ", ": rehearsed succeeded, the apply ")
        assert re.search(rf"^  different +outcome {shown}$", out, re.M), out
    assert re.search(
        rf"^  missing +changed tier_structures {TIERS} status: rehearsed DELETED, the service NA;"
        rf" item delete_tier_structure {TIERS}: not sent in the apply$",
        out,
        re.M,
    ), out
    assert re.search(
        rf"^  missing +changed pending_buckets {BUCKET} status: rehearsed not PENDING \(no longer"
        rf" listed\), the service NA; item {refused} in the apply$",
        out,
        re.M,
    ), out
    written = pd.read_csv(checks)
    assert {"item", "item_outcome"} <= set(written.columns)
    mine = written[written["item"] == f"activate_pending_bucket {BUCKET}"]
    assert set(mine["item_outcome"]) == {"failed 423 resource_locked"}


def test_verify_of_a_plan_not_applied_exits_2_naming_each_change_missing(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    path, folder, _ = saved
    code, out, _ = lyt(capsys, "verify", str(path), "--base", str(folder))
    assert code == 2
    assert f"Note: {path} has no record of an apply to completion" in out
    assert "Verification(ok=False, " in out
    shown = (
        rf"^  missing +changed tier_structures {TIERS} status: rehearsed DELETED, the service NA$"
    )
    assert re.search(shown, out, re.M)
    assert re.search(
        r"^  missing +changed rewards \S+ status: rehearsed DRAFT, the service NA$", out, re.M
    )


def test_verify_keeps_to_its_share_and_names_the_options_to_go_on(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    path, folder, base = saved
    reads = touched_reads(ChangePlan.load(path).rehearse(base, progress=False))
    service.set_plan(f"{reads.calls + 1}/hour")  # the token and the reads: over half
    code, _, err = lyt(capsys, "verify", str(path), "--base", str(folder))
    assert code == 1
    [line] = err.splitlines()
    assert line.startswith("lyt verify: ") and "--paced" in line and "paced=True" not in line
    assert service.plan()["used"] == 1  # the token only
    for argv, said in (
        (["--budget-share", "2"], "--budget-share: must be a number above 0 and at most 1"),
        (["--log", "x.jsonl"], "--log x.jsonl: no such action log"),  # unpaced too, now
    ):
        code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder), *argv)
        assert (code, out) == (1, "") and err.startswith(f"lyt verify: {said}")
    assert service.plan()["used"] == 1


def test_rehearse_on_another_snapshot_than_the_plans_base_says_so(
    service: Sandbox,
    saved: tuple[Path, Path, ProgramSnapshot],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, _, base = saved
    later = tmp_path / "later"
    ProgramSnapshot.from_frames(
        base.frames(), source=base.source, pulled_at=base.pulled_at + pd.Timedelta(hours=1)
    ).to_csv(later)
    code, out, err = lyt(capsys, "rehearse", str(path), "--base", str(later))
    assert code == 0, err
    note = (
        f"Note: the plan was made from the snapshot of {base.source} pulled at"
        f" {base.pulled_at:%Y-%m-%d %H:%M:%S} UTC; {later} holds {base.source} pulled at"
    )
    assert note in out and "Rehearsed: 4 succeeded" in out


def test_verify_refuses_on_budget_before_rehearsing_with_its_bound_said_a_lower_one(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    """The reads the read-back certainly sends, counted from the file and its base (those of
    the objects the items write to, and the member of the card its activation changes: here
    every read), already do not fit: refused before the rehearsal (at 20,000 members some
    70 s), not after it, saying the count is at least the read-back's, the ways it names
    judged by it, and that a paced verification stopped starts again (no log)."""
    path, folder, base = saved
    exact = touched_reads(ChangePlan.load(path).rehearse(base, progress=False)).calls
    service.set_plan(f"{2 * exact}/hour")  # after the token, half holds one read too few
    code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder))
    assert code == 1 and "Rehearsing" not in out  # not refused after the rehearsal
    [line] = err.splitlines()
    assert f"(at least {exact} reads, counted from the plan file and its base before" in line
    assert "so a way below judged by this count can still be refused after it)" in line
    assert "--budget-share 1 to let it take the window's whole budget" in line
    assert "--paced to send its share of every window" in line
    assert "(stopped, it starts again)" in line and "resumable" not in line
    assert service.plan()["used"] == 1  # the token only


def test_verify_paced_says_how_it_keeps_to_a_budget_it_has_not_read(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    path, folder, _ = saved
    code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder), "--paced")
    assert code == 2, err  # not applied
    assert "budget unknown" not in out
    assert re.search(
        r"^Reading back what the rehearsal changed: calls needed: \d+; paced: each window's"
        r" budget is read with its first call and 0.5 of it sent, then it waits for the reset$",
        out,
        re.M,
    ), out


def test_verify_not_paced_says_the_budget_unknown_not_how_a_paced_one_keeps_to_it(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    """On the unlimited plan the service's answers carry no rate-limit header: no call has
    read the budget when the read-back's line is printed."""
    path, folder, _ = saved
    service.set_plan("unlimited")
    code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder))
    assert code == 2, err  # not applied
    assert "paced:" not in out and "each window's budget is read" not in out
    assert re.search(
        r"^Reading back what the rehearsal changed: calls needed: \d+; budget unknown \(no limit"
        r" headers seen yet\)$",
        out,
        re.M,
    ), out


def test_verify_says_an_apply_gone_to_its_end_but_for_refusals_for_good_as_it_is(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    path, folder, _ = saved
    service.advance_clock(400 * 86400)  # every bucket's activation date has passed: 423
    assert lyt(capsys, "apply", str(path), "--allow-destroy")[0] == 1  # stale: re-planned
    refreshed = path.with_name("plan.refreshed.json")  # the bucket kept, read back refused
    assert lyt(capsys, "apply", str(refreshed), "--allow-destroy")[0] == 1  # one 423
    _, out, _ = lyt(capsys, "verify", str(refreshed), "--base", str(folder))
    assert f"Note: the apply of {refreshed} went to its end but the service refused 1 write" in out
    assert "no record of an apply to completion" not in out


def test_verify_names_an_item_made_as_rehearsed_whose_row_changed_otherwise_since(
    service: Sandbox,
    client: LoyaltyClient,
    saved: tuple[Path, Path, ProgramSnapshot],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """After the apply, another client activates a bucket of the card the plan's activation
    wrote to, and one of the member's other card: the activation succeeded as rehearsed, so
    its card's balance names it, the row changed otherwise since; the other card, which no
    item wrote to though its key begins with the member's, names no item."""
    path, folder, base = saved
    assert lyt(capsys, "apply", str(path), "--allow-destroy")[0] == 0
    buckets = base.pending_buckets.set_index("id")
    mine = buckets.loc[BUCKET]
    future = buckets[
        (buckets["member_id"] == mine["member_id"])
        & (buckets["status"] == "PENDING")
        & (buckets["date"] > base.pulled_at)
        & (buckets.index != BUCKET)
    ]
    same = future[future["card_id"] == mine["card_id"]].iloc[0]
    other = future[future["card_id"] != mine["card_id"]].iloc[0]
    for bucket in (same, other):  # the card the plan wrote to, then one it did not
        client.pending_buckets.activate(
            bucket["program_id"], bucket["member_id"], bucket["card_id"], str(bucket.name)
        )
    service.settle()
    code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder))
    assert code == 2, err
    since = re.findall(r"^  different +changed cards (\S+) (\S+): .*; item (.*)$", out, re.M)
    why = (
        f"activate_pending_bucket {BUCKET}: succeeded as rehearsed, the row changed otherwise since"
    )
    card = f"{mine['member_id']}/{mine['card_id']}"
    assert sorted(since) == [(card, "balance_pending_points", why), (card, "balance_points", why)]
    elsewhere = rf"^  unexpected changed cards {mine['member_id']}/{other['card_id']} \S+: .*"
    assert len(re.findall(rf"{elsewhere}$", out, re.M)) == 2, out
    assert not re.search(rf"{elsewhere}; item ", out, re.M), out


def test_a_thousand_items_rehearsed_are_counted_with_thousands_separators(
    service: Sandbox,
    fresh_pulled: ProgramSnapshot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``lyt rehearse``'s outcome line, a rehearsal's and a verification's repr write a count
    of 1,000 as ``lyt apply`` and every other text of the toolkit write it: ``1,000``."""
    edit = actions.edit(fresh_pulled)
    card = fresh_pulled.card_definitions["id"].iloc[0]
    bonuses = [
        {"name": f"Bonus {n:04d}", "type": "POINTS", "points_value": 5, "card_definition_id": card}
        for n in range(1000)
    ]
    edit.benefits = pd.concat([edit.benefits, pd.DataFrame(bonuses)], ignore_index=True)
    plan = edit.plan()
    path, folder = plan.save(tmp_path / "plan.json"), tmp_path / "base"
    fresh_pulled.to_csv(folder)
    made: list[Rehearsed] = []  # the command's own rehearsal, kept: one run of 1,000 writes

    def kept(*args: Any, **kwargs: Any) -> Rehearsed | None:
        done = rehearsed_or_fail(*args, **kwargs)
        made.extend([] if done is None else [done])
        return done

    monkeypatch.setattr(cli_rehearse, "rehearsed_or_fail", kept)
    code, out, err = lyt(capsys, "rehearse", str(path), "--base", str(folder))
    assert code == 0, err
    assert "Rehearsed: 1,000 succeeded\n" in out
    [done] = made
    rehearsal = done.rehearsal
    assert "(1,000 succeeded)" in repr(rehearsal)
    assert "Verification(ok=True, 1,000 as rehearsed" in repr(rehearsal.verify(rehearsal.after))


def test_apply_ends_with_the_calls_it_sent_and_the_window_left_as_export_does(
    service: Sandbox, saved: tuple[Path, Path, ProgramSnapshot], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _, _ = saved
    used = service.plan()["used"]
    code, out, err = lyt(capsys, "apply", str(path), "--allow-destroy")
    assert code == 0, err
    window = service.plan()
    sent = window["used"] - used  # the service's count of the command's calls
    assert re.search(
        rf"^Applied: .*\nAPI calls used: {sent}; remaining this window:"
        rf" {window['remaining']:,} of 5,000; resets at \d{{4}}-\d\d-\d\d \d\d:00:00 UTC$",
        out,
        re.M,
    ), out


def test_verify_of_writes_refused_in_the_rehearsal_and_the_apply_alike_says_they_are_as_rehearsed(
    service: Sandbox, client: LoyaltyClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two activations the base shows blocked are refused for good by the apply, as by the
    rehearsal: the verification is ok, and its note does not say they show otherwise."""
    edit = two_refused_one_made(client)
    path, folder = edit.plan().save(tmp_path / "plan.json"), tmp_path / "base"
    edit.base.to_csv(folder)
    assert lyt(capsys, "apply", str(path))[0] == 1  # 2 items not made: refused 423
    code, out, err = lyt(capsys, "verify", str(path), "--base", str(folder))
    assert code == 0, out + err
    assert "Verification(ok=True, " in out
    note = next(line for line in out.splitlines() if line.startswith("Note: "))
    assert note.endswith(
        "for good (" + f"{path}.log.jsonl): those the rehearsal made show as not as rehearsed"
    ), note


def test_a_plan_from_a_sampled_base_says_rehearse_and_verify_cannot_follow_and_what_can(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lyt plan`` on a sampled export made its plan and said nothing more; ``lyt rehearse``
    and ``lyt verify`` then refused the base. The plan now says so when it is made, on a line
    naming the pull to rehearse and verify on, which runs as spelled; the plan is still made
    and saved, and its Python text says the same in Python."""
    base, edited, plan_file = tmp_path / "base", tmp_path / "edited", tmp_path / "plan.json"
    assert lyt(capsys, "export", "--out", str(base), "--sample", "3")[0] == 0
    shutil.copytree(base, edited)
    rewards = (edited / "rewards.csv").read_text().splitlines()
    first = next(i for i, row in enumerate(rewards) if ",ACTIVE," in row)
    rewards[first] = rewards[first].replace(",ACTIVE,", ",DRAFT,", 1)
    (edited / "rewards.csv").write_text("\n".join(rewards) + "\n")
    argv = ("plan", "--base", str(base), "--edited", str(edited), "--out", str(plan_file))
    code, out, err = lyt(capsys, *argv)
    assert code == 2 and err == "" and plan_file.is_file(), err  # made and saved
    follow = (
        "Rehearse and verify cannot follow: they refuse a sampled base (it cannot stand for"
        " production); this plan can be applied, but rehearsing it first and verifying it after"
        " needs the kinds reward_costs and rewards: pull them, lyt export --kinds"
        " reward_costs,rewards, and rehearse and verify on that"
    )
    assert out.splitlines()[2] == follow, out
    code, _, err = lyt(capsys, "rehearse", str(plan_file), "--base", str(base))
    assert code == 1 and err.rstrip().endswith(  # as it says, in words
        "needs only the kinds reward_costs and rewards: pull them, lyt export --kinds"
        " reward_costs,rewards, and rehearse on that"
    ), err
    kinds = tmp_path / "kinds"
    assert lyt(capsys, "export", "--out", str(kinds), "--kinds", "reward_costs,rewards")[0] == 0
    code, out, err = lyt(capsys, "rehearse", str(plan_file), "--base", str(kinds))
    assert code == 0 and "Rehearsed: 1 succeeded" in out, err
    python = str(ChangePlan.load(plan_file)).splitlines()[2]
    assert python == follow.replace(
        "lyt export --kinds reward_costs,rewards",
        "ProgramSnapshot.pull(client, kinds=['reward_costs', 'rewards'])",
    )
