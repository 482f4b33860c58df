"""``lyt audit`` and ``lyt report economics`` past one budget window: their own ``--checkpoint``
paces the pull across windows and resumes it, as ``lyt export --checkpoint`` does, and
``lyt audit --base SNAPSHOT_DIR`` audits a snapshot saved before, ``lyt report economics
--base SNAPSHOT_DIR`` writes its economics report, sending no call.

A generated program of 40 members under a 60-call hourly plan: the pull needs about 55
calls, the default share of a window is 30. The sandbox's clock is fixed, so a window never
resets and a paced pull, its share spent, waits until it is stopped.
"""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest
from fixture_types import LytProcess, StartSandbox
from interrupting import ctrl_c_once_quiet, stderr_until

from lyt_toolkit import LoyaltyClient, ProgramSnapshot, audit
from lyt_toolkit.cli import main
from lyt_toolkit.reports import FINDINGS_CSV, read_findings, read_manifest
from lyt_toolkit.reports.economics_report import ECONOMICS_FORMAT, ECONOMICS_HTML
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import read_snapshot
from lyt_toolkit.synthetic import generate_program

PROGRAM = generate_program(
    members=40, rewards=20, benefits=5, card_definitions=2, tier_structures=1, seed=5
)
PLAN = "60/hour"
SHARE = 30
"""The default share, 0.5, of the window's 60 calls."""
NOW = "2026-01-15T12:00:00Z"
"""The sandbox's fixed clock (``start_sandbox``'s)."""
UNCOUNTED = r"the bucket lists \(known once the members are read\)"
"""What a paced pull's expected end leaves out until its members are read."""
CLOCK = r"\d\d:\d\d:\d\d UTC"
"""The time on this machine a paced command's line begins with."""


@pytest.fixture(scope="module")
def program(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox(PROGRAM) as sb:
        yield sb


def lyt(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``lyt argv`` in this process: its exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _stopped_at_its_share(program: Sandbox, paced: subprocess.Popen[str]) -> str:
    """What ``paced``, a checkpointed pull started under ``PLAN``, printed to stderr once it
    spent its share of the window (nothing beyond it), waited for a reset the fixed clock
    never brings and was stopped by a Ctrl-C (exit code 130)."""
    # not refused: it reads on to its share, then waits for a reset the fixed clock never brings
    _, err = ctrl_c_once_quiet(program, paced, SHARE, quiet=0.5)
    assert paced.returncode == 130, err
    assert program.plan()["used"] == SHARE  # nothing beyond its share of the window
    return err


@pytest.mark.waits
def test_a_paced_export_into_a_log_says_it_started_and_waits_for_the_next_window(
    program: Sandbox, lyt_process: LytProcess, tmp_path: Path
) -> None:
    """Its stderr a pipe (``nohup lyt export ... > log``), ``lyt export --checkpoint`` says
    when it starts and when it begins to wait for the next window, with its bar's figures; a
    Ctrl-C then ends it with its one line. The sandbox answers slowly: the pull runs a while
    before its share is spent."""
    folder = tmp_path / "checkpoint"
    argv = ["export", "--out", str(tmp_path / "out"), "--checkpoint", str(folder)]
    program.set_plan(PLAN)
    program.set_faults(delay_seconds=0.5)
    try:
        paced = lyt_process(program, tmp_path, *argv, progress="auto")
        said = stderr_until(paced, "waiting for the next window")
    finally:
        program.clear_faults()
    paced.send_signal(signal.SIGINT)
    _, rest = paced.communicate(timeout=20)
    assert paced.returncode == 130, said + rest
    assert program.plan()["used"] == SHARE
    # during the member reads: the bucket lists are not known yet
    figures = rf"next window in 60 min, end about \d\d:\d\d UTC, not counting {UNCOUNTED}"
    started, waiting = said.splitlines()
    assert re.fullmatch(
        rf"{CLOCK} paced pull: started: (\d+) of \d+ calls; \1 sent, \d+ left this window of"
        rf" its share of {SHARE}, {figures}",
        started,
    ), started
    assert re.fullmatch(
        rf"{CLOCK} paced pull: waiting for the next window: {SHARE} of \d+ calls; {SHARE} sent,"
        rf" 0 left this window of its share of {SHARE}, {figures}",
        waiting,
    ), waiting
    assert rest == (
        f"lyt export: interrupted; what it read is kept in {folder}: run the same command"
        " to go on\n"
    )


@pytest.mark.waits
def test_a_paced_export_on_an_unlimited_plan_says_in_its_log_that_it_started(
    program: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No budget, so no share and nothing to wait for: earlier its log stayed empty (its start
    waited for a share to know). The sandbox answers slowly: the pull runs past a redraw."""
    configure_lyt(program)
    monkeypatch.setenv("LYT_PROGRESS", "auto")  # stderr no terminal: its lines
    program.set_plan("unlimited")
    program.set_faults(delay_seconds=0.3)
    try:
        code, _, err = lyt(
            capsys, "export", "--out", str(tmp_path / "out"), "--checkpoint", str(tmp_path / "c")
        )
    finally:
        program.clear_faults()
    assert code == 0, err
    assert re.match(rf"{CLOCK} paced pull: started: (\d+) of \d+ calls; \1 sent", err), err


def _waiting_line(program: Sandbox, lyt_process: LytProcess, cwd: Path, folder: Path) -> str:
    """The line ``lyt export --checkpoint folder``, writing to a log, says as it begins to
    wait for the next window; a Ctrl-C then ends it."""
    argv = ["export", "--out", str(cwd / "out"), "--checkpoint", str(folder)]
    paced = lyt_process(program, cwd, *argv, progress="auto")
    said = stderr_until(paced, "waiting for the next window")
    paced.send_signal(signal.SIGINT)
    paced.communicate(timeout=20)
    assert paced.returncode == 130, said
    return next(line for line in said.splitlines() if "waiting for the next window" in line)


class FirstWait(NamedTuple):
    """A paced export under a 40-call window (a share of 20, so it waits during its member
    reads; the pull, about 55 calls, waits twice), stopped once it waits: where it ran, its
    checkpoint and the line it said as it began to wait."""

    cwd: Path
    folder: Path
    line: str


@pytest.fixture(scope="module")
def first_wait(
    program: Sandbox, module_lyt_process: LytProcess, tmp_path_factory: pytest.TempPathFactory
) -> FirstWait:
    """One run the tests of its line read, and the run again goes on from (once a module)."""
    cwd = tmp_path_factory.mktemp("first_wait")
    program.set_clock(NOW)
    program.set_plan("40/hour")
    line = _waiting_line(program, module_lyt_process, cwd, cwd / "checkpoint")
    return FirstWait(cwd, cwd / "checkpoint", line)


def test_a_paced_exports_end_says_it_does_not_count_the_bucket_lists_yet(
    first_wait: FirstWait,
) -> None:
    """Waiting during its member reads, its bucket lists are not known yet: its expected end
    says it leaves them out (earlier it read as the whole pull's, hours early at 20,000
    members)."""
    first = first_wait.line
    assert ": 20 of " in first, first  # its share spent before its 40 members are read
    assert re.search(rf" UTC, not counting {UNCOUNTED}$", first), first


def test_a_resumed_paced_export_counts_the_calls_its_checkpoint_answers_once(
    program: Sandbox, lyt_process: LytProcess, first_wait: FirstWait
) -> None:
    """Run again in the next window, the pull's calls in all are what they were in its first
    run: the member reads its checkpoint answers were counted a second time on top of the
    whole (on 20,000 members: "16,289 of 36,289 calls" for a pull of 20,220 at least), and
    its expected end with them."""
    first, folder, tmp_path = first_wait.line, first_wait.folder, first_wait.cwd
    program.set_plan("40/hour")  # the next window below holds 40 calls again
    try:
        program.advance_clock(3600)  # the next window
        second = _waiting_line(program, lyt_process, tmp_path, folder)
    finally:
        program.set_clock(NOW)
    calls = re.compile(r": (\d+) of (\d+) calls; ")
    done, total = map(int, calls.search(first).groups())  # type: ignore[union-attr]
    done_again, total_again = map(int, calls.search(second).groups())  # type: ignore[union-attr]
    assert done == 20 and "from the checkpoint" in second
    assert done_again > done
    assert total_again == total, (first, second)


def test_a_paced_export_waiting_during_its_bucket_lists_says_so_and_counts_them(
    program: Sandbox, lyt_process: LytProcess, tmp_path: Path
) -> None:
    """The pull (55 calls: 47 for the lists and the member reads, then 8 bucket lists) under
    a share of 52 spends it during its bucket lists: it says it waits for the next window, its
    calls in all counting the bucket lists once the members are read. It counted the lists
    and member reads alone, so a wait there looked done and went unsaid (on 20,000 members,
    silence for the hour, "19,993 of 20,214 calls" before 4,000 bucket lists)."""
    program.set_plan("104/hour")
    line = _waiting_line(program, lyt_process, tmp_path, tmp_path / "checkpoint")
    assert program.plan()["used"] == 52
    assert re.search(r": 52 of 55 calls; 52 sent, 0 left this window of its share of 52", line), (
        line
    )


def test_a_paced_export_in_a_window_others_spent_expects_each_later_window_s_whole_share(
    program: Sandbox,
    lyt_process: LytProcess,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """Other traffic spent 80 of the window's 120 calls: the pull's share of this window is
    20, but each later window gives it 60, so the rest of its calls (about 35) end in the
    next window, an hour from now, not in two hours as at 20 a window."""
    program.set_plan("120/hour")
    with make_client(program) as others:
        for _ in range(79):  # and its token request
            others.rewards.list(limit=1)
    assert program.plan()["used"] == 80
    line = _waiting_line(program, lyt_process, tmp_path, tmp_path / "checkpoint")
    end = rf"end about (\d\d):(\d\d) UTC, not counting {UNCOUNTED}$"  # during the reads
    found = re.match(rf"(\d\d):(\d\d):\d\d UTC .* {end}", line)
    assert found, line
    hour, minute, end_hour, end_minute = map(int, found.groups())
    assert "of its share of 20, next window in 60 min" in line
    # an hour away (two at this window's share), each time cut to its minute: 59 to 61
    assert (end_hour * 60 + end_minute - hour * 60 - minute) % (24 * 60) in (59, 60, 61), line


@pytest.mark.waits
def test_a_paced_export_refused_again_and_again_says_it_is_retrying(
    program: Sandbox, lyt_process: LytProcess, tmp_path: Path
) -> None:
    """The service answering every call 429, a paced export writing to a log says it is
    refused and retrying (not silence); a Ctrl-C ends it with its one line."""
    folder = tmp_path / "checkpoint"
    argv = ["export", "--out", str(tmp_path / "out"), "--checkpoint", str(folder)]
    program.set_plan(PLAN)
    program.set_faults(rate_limit=1.0, retry_after=2)
    try:
        paced = lyt_process(program, tmp_path, *argv, progress="auto")
        said = stderr_until(paced, "retrying")
        paced.send_signal(signal.SIGINT)
        _, rest = paced.communicate(timeout=20)
    finally:
        program.clear_faults()
    assert paced.returncode == 130, said + rest
    assert re.fullmatch(
        rf"{CLOCK} paced pull: started, refused by the service \(429 Too Many Requests\),"
        r" retrying: (\d+) calls? done; \1 sent, \d+ refused \(429\) and retried, .*\n",
        said,
    ), said
    # Refused by a fault, not for the budget: the window still holds the share, named.
    assert re.search(r" \d+ left this window of its share of 30, next window in ", said), said
    assert rest == (
        f"lyt export: interrupted; what it read is kept in {folder}: run the same command"
        " to go on\n"
    )


@pytest.mark.parametrize("command", [["audit"], ["report", "economics"]], ids=" ".join)
def test_a_refusal_offers_the_commands_own_checkpoint(
    program: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    configure_lyt(program)
    program.set_plan(PLAN)
    code, out, err = lyt(capsys, *command, "--out", str(tmp_path / "out"))
    assert code == 2 and out == ""
    assert "paced over at least" in err
    assert "(--checkpoint pull-checkpoint)" in err and "lyt export --checkpoint" not in err
    # The command has no --estimate: the cost is known first from lyt export's, the same pull.
    assert err.endswith(
        "\nTo know the cost first: lyt export --estimate --read-sample 100 (walks"
        " the lists again and reads 100 members drawn at random, one call each: the calls"
        " expected, with a 95 % interval; nothing is pulled or written)\n"
    ), err


@pytest.mark.parametrize("command", [["audit"], ["report", "economics"]], ids=" ".join)
def test_a_checkpointed_command_waits_for_the_next_window_then_resumes(
    program: Sandbox,
    lyt_process: LytProcess,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    """Stopped by a Ctrl-C while it waits (a process of its own), then run again (in this
    process: what it resumes from is the checkpoint on disk)."""
    folder = tmp_path / "checkpoint"
    argv = [*command, "--out", str(tmp_path / "out"), "--checkpoint", str(folder)]
    program.set_plan(PLAN)
    err = _stopped_at_its_share(program, lyt_process(program, tmp_path, *argv))
    assert err == (
        f"lyt {' '.join(command)}: interrupted; what it read is kept in {folder}: "
        "run the same command to go on\n"
    )
    program.set_plan("1000000/hour")  # a new window, large enough for the rest
    configure_lyt(program)
    code, out, err = lyt(capsys, *argv)
    assert code == 0, err
    assert f"(and {SHARE - 1:,} answers from the checkpoint)" in out  # all but the token
    assert (tmp_path / "out").is_dir()


@pytest.fixture(scope="module")
def whole(program: Sandbox, make_client: Callable[..., LoyaltyClient]) -> ProgramSnapshot:
    """The program pulled whole, unpaced, and the calls that took."""
    program.set_plan("unlimited")
    with make_client(program) as client:
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture(scope="module")
def saved(whole: ProgramSnapshot, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The program pulled whole and saved as Parquet (as ``snapshot.to_parquet`` saves it)."""
    folder = tmp_path_factory.mktemp("saved") / "snapshot"
    whole.to_parquet(folder)
    return folder


def _same(a: ProgramSnapshot, b: ProgramSnapshot) -> None:
    for name, frame in a.frames().items():
        pd.testing.assert_frame_equal(frame, b.frames()[name], obj=name)


def test_lyt_export_stopped_part_way_resumes_in_the_process_serving_its_sandbox(
    program: Sandbox,
    whole: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    lyt_process: LytProcess,
    tmp_path: Path,
) -> None:
    """The sandbox served from a notebook (this process), ``lyt export --checkpoint`` run
    against it from a shell and stopped by a Ctrl-C: the notebook's pull resumes the folder,
    reading nothing the export read (one service, named alike in both processes)."""
    folder = tmp_path / "checkpoint"
    program.set_plan(PLAN)
    argv = ["export", "--out", str(tmp_path / "out"), "--checkpoint", str(folder)]
    _stopped_at_its_share(program, lyt_process(program, tmp_path, *argv))
    program.set_plan("1000000/hour")  # a new window, large enough for the rest
    with make_client(program) as client:
        resumed = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert resumed.calls is not None and whole.calls is not None
    assert resumed.calls.recalled == SHARE - 1  # every answer the export read but its token
    assert resumed.calls.used == whole.calls.used - (SHARE - 1)  # none of them read again
    _same(whole, resumed)


def test_a_pull_of_the_process_serving_the_sandbox_resumes_in_lyt_export(
    program: Sandbox,
    whole: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    lyt_process: LytProcess,
    tmp_path: Path,
) -> None:
    """The other way: a checkpointed pull of the notebook serving the sandbox, then ``lyt
    export`` on its folder from a shell answers every read from it."""
    folder = tmp_path / "checkpoint"
    program.set_plan("unlimited")
    with make_client(program) as client:
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    used = program.plan()["used"]
    argv = ["export", "--out", str(tmp_path / "out"), "--checkpoint", str(folder)]
    exported = lyt_process(program, tmp_path, *argv)
    out, err = exported.communicate(timeout=120)
    assert exported.returncode == 0, err
    assert whole.calls is not None
    assert f"(and {whole.calls.used - 1:,} answers from the checkpoint)" in out
    assert program.plan()["used"] - used == 1  # the token that says what it holds: no read


def test_audit_base_audits_a_saved_snapshot_sending_no_call(
    program: Sandbox,
    saved: Path,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_lyt(program)  # a service is configured: it is not asked
    program.set_plan(PLAN)
    out_dir = tmp_path / "reports"
    code, out, err = lyt(capsys, "audit", "--base", str(saved), "--out", str(out_dir))
    assert code == 0, err
    assert program.plan()["used"] == 0
    assert out.startswith(f"Audit of the snapshot saved in {saved} (pulled from ")
    assert "API calls: none (a saved snapshot)" in out
    expected = audit.run(read_snapshot(saved))
    pd.testing.assert_frame_equal(read_findings(out_dir), expected)
    assert (out_dir / FINDINGS_CSV).is_file()


@pytest.fixture(scope="module")
def pulled(
    program: Sandbox,
    lyt_configured: Callable[[Sandbox, Path], AbstractContextManager[None]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """``lyt report economics``'s report of the program pulled live, written once a module."""
    folder = tmp_path_factory.mktemp("pulled") / "economics"
    program.set_plan("unlimited")
    with lyt_configured(program, folder.parent):
        assert main(["report", "economics", "--out", str(folder)]) == 0
    return folder


@pytest.mark.parametrize("saved_by", ["to_parquet", "lyt export --checkpoint"])
def test_report_economics_base_reports_on_a_saved_snapshot_sending_no_call(
    program: Sandbox,
    saved: Path,
    pulled: Path,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    saved_by: str,
) -> None:
    configure_lyt(program)  # a service is configured: it is not asked
    program.set_plan("unlimited")
    if saved_by != "to_parquet":  # the folder a paced export wrote (CSV)
        saved = tmp_path / "exported"
        argv = ["export", "--out", str(saved), "--checkpoint", str(tmp_path / "checkpoint")]
        assert lyt(capsys, *argv)[0] == 0
    program.set_plan(PLAN)
    out_dir = tmp_path / "economics"
    code, out, err = lyt(capsys, "report", "economics", "--base", str(saved), "--out", str(out_dir))
    assert code == 0, err
    assert program.plan()["used"] == 0
    assert out.startswith(f"Economics of the snapshot saved in {saved} (pulled from ")
    assert "API calls: none (a saved snapshot)" in out
    page = (out_dir / ECONOMICS_HTML).read_text(encoding="utf-8")
    assert f"the snapshot saved in {saved}" in page
    report, live = (read_manifest(d, formats=(ECONOMICS_FORMAT,)) for d in (out_dir, pulled))
    assert report["headline"] == live["headline"]  # the program's, as a pull reports it
    for entry in live["frames"].values():
        name = entry["file"]
        assert (out_dir / name).read_bytes() == (pulled / name).read_bytes(), name


BASE_COMMANDS = [["audit"], ["report", "economics"]]


def test_report_economics_of_a_cards_only_folder_counts_no_kind_it_did_not_pull(
    program: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Pulled with ``--kinds programs,members,cards``: earlier its report said "card
    definitions 2" (those read by ID alone) and "mispriced rewards 0" (no reward pulled),
    figures that read as findings; later those two said not pulled, but the pending points
    a bare "n/a" and the manifest nothing of why."""
    configure_lyt(program)
    program.set_plan("unlimited")
    folder = tmp_path / "snap"
    lyt_ok = lyt(capsys, "export", "--out", str(folder), "--kinds", "programs,members,cards")
    assert lyt_ok[0] == 0, lyt_ok[2]
    code, out, err = lyt(capsys, "report", "economics", "--base", str(folder), "--out", "rep")
    assert code == 0, err
    assert re.search(r"^  card definitions +n/a \(card_definitions not pulled\)$", out, re.M), out
    mispriced = r"mispriced rewards +n/a \(rewards, reward_costs, card_definitions not pulled\)"
    assert re.search(rf"^  {mispriced}$", out, re.M), out
    pending = r"pending points +n/a \(pending_buckets not pulled\)"
    assert re.search(rf"^  {pending}$", out, re.M), out
    page = (tmp_path / "rep" / ECONOMICS_HTML).read_text(encoding="utf-8")
    assert "n/a (rewards, reward_costs, card_definitions not pulled)" in page
    manifest = read_manifest(tmp_path / "rep", formats=(ECONOMICS_FORMAT,))
    assert manifest["headline"]["card_definitions"] is None
    assert manifest["not_given"]["card_definitions"] == "card_definitions not pulled"


@pytest.mark.parametrize("command", BASE_COMMANDS, ids=" ".join)
@pytest.mark.parametrize(
    ("folder", "reason"),
    [
        ("missing", "manifest.json is missing: not a snapshot directory"),
        ("empty", "manifest.json is missing: not a snapshot directory"),
        ("file", "manifest.json is missing: not a snapshot directory"),
    ],
)
def test_base_of_a_folder_holding_no_snapshot_fails_in_one_line_naming_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    folder: str,
    reason: str,
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("not a folder")
    path = tmp_path / folder
    argv = [*command, "--base", str(path), "--out", str(tmp_path / "out")]
    code, out, err = lyt(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"lyt {' '.join(command)}: --base {path}: ") and reason in err
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", BASE_COMMANDS, ids=" ".join)
@pytest.mark.parametrize(
    "option",
    [
        ["--sandbox"],
        ["--sample", "10"],
        ["--sample-seed", "3"],
        ["--budget-share", "1"],
        ["--checkpoint", "c"],
    ],
    ids=lambda option: option[0],
)
def test_base_refuses_the_options_of_a_pull(
    saved: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    option: list[str],
) -> None:
    argv = [*command, "--base", str(saved), "--out", str(tmp_path / "out"), *option]
    code, out, err = lyt(capsys, *argv)
    assert code == 2 and out == ""
    assert err == (
        f"lyt {' '.join(command)}: {option[0]}: not with --base (the snapshot is read from its "
        "folder, nothing is pulled)\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_paced_export_resumed_with_every_member_read_starts_counting_their_bucket_lists(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    lyt_process: LytProcess,
    tmp_path: Path,
) -> None:
    """Run again in a new window after its first run read every member (and spent its share
    on a bucket list), a paced export's ``started`` line counts the bucket lists those
    members need: it said ``started: N of N+1 calls ... end about <now>, not counting the
    bucket lists (known once the members are read)``, the members read all the while (at
    20,000 members: 3,065 calls and two windows left)."""
    folder = tmp_path / "checkpoint"
    argv = ["export", "--out", str(tmp_path / "out"), "--checkpoint", str(folder)]
    with start_sandbox(PROGRAM) as sb:
        sb.set_plan("100/hour")  # a share of 50: the lists, the 40 member reads and a bucket list
        first = lyt_process(sb, tmp_path, *argv, progress="auto")
        said = stderr_until(first, "waiting for the next window")
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=20)
        assert first.returncode == 130, said
        sb.advance_clock(3600)
        again = lyt_process(sb, tmp_path, *argv, progress="auto")
        out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    started = next(line for line in err.splitlines() if "paced pull: started" in line)
    counted = re.search(r"started: \d+ of (\d+) calls; \d+ sent, \d+ from the checkpoint", started)
    assert counted is not None and "not counting" not in started, started
    calls = re.search(r"API calls used: (\d+) \(and (\d+) answers from the checkpoint\)", out)
    assert calls is not None, out
    assert int(counted[1]) == int(calls[1]) + int(calls[2]), (started, out)
