"""A plan larger than a window's share, executed paced over real HTTP: ``budget_share`` of
every window, a wait for each reset, then on, until done; stopped mid-way and run again with
its log, it sends nothing twice and, in the same window, nothing beyond the share its first
run took there; ``paced=True`` needs a log; ``lyt apply --paced`` does the same.

Fourteen benefits to create under a 20-call plan: one token request and 14 writes, where the
default share (0.5) of the 19 calls the window has left after the token is 9. Unpaced, the
plan is refused. On a running clock set 6 s before a minute's end, the window resets by
itself, as the service's does; on the sandbox's fixed clock an hour's window never does, and
a paced run waits until it is stopped.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from fixture_types import LytProcess
from interrupting import (
    clock_agreeing_here,
    ctrl_c_once_quiet,
    stderr_until,
    until_counted,
    until_quiet,
    window_used,
)
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog, ChangePlan, ProgramEdit
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import BudgetExceededError, CycleBudgetError, StoppedError
from lyt_toolkit.sandbox import Sandbox

from .helpers import names_on_server, pull

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

ROWS = 14
SHARE = 9
"""The default share (0.5) of the 19 calls a 20-call window has left after the token."""
CARD = "lcdef_c0ffee0001"
MINUTE = "2026-01-15T12:00"

ClientFor = Callable[..., LoyaltyClient]


def _rows(prefix: str) -> list[dict[str, object]]:
    return [
        {
            "name": f"{prefix} {i:02d}",
            "type": "POINTS",
            "points": {"value": 10, "card_definition_id": CARD},
        }
        for i in range(ROWS)
    ]


def _outcomes(results: pd.DataFrame) -> dict[str, int]:
    """How many items came out each way (those that did)."""
    counts = results["outcome"].astype(str).value_counts()
    return {str(outcome): int(n) for outcome, n in counts.items()}


def test_a_plan_larger_than_a_windows_share_finishes_paced_keeping_to_the_share_of_each(
    running: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    running.set_clock(f"{MINUTE}:54Z")  # the window resets in 6 s
    running.set_plan("20/minute")
    plan = actions.create_benefits(_rows("Paced"))
    log = tmp_path / "paced.jsonl"
    with make_client(running) as client:
        with pytest.raises(BudgetExceededError, match="pass paced=True"):
            plan.execute(client, log=log, progress=False)  # unpaced: refused, nothing sent
        assert window_used(running) == 1  # the token request that read the budget
        results = plan.execute(client, log=log, progress=False, paced=True)
        window = running.plan()
        names = names_on_server(client, "Paced ")
    assert window["resets_at"] == "2026-01-15T12:02:00.000Z"  # the next minute's window
    assert results["outcome"].eq("succeeded").all() and len(results) == ROWS
    assert sorted(names) == sorted(results["target"])  # each created once
    # Counted by the sandbox: the first window's calls (the token and its share of writes),
    # then the rest in the next; neither beyond half of its 20 calls.
    first, second = window["cycle_used"] - window["used"], window["used"]
    assert first == 1 + SHARE and second == ROWS - SHARE
    logged = Counter(e["outcome"] for e in ActionLog(log).entries())
    assert logged == {"attempted": ROWS, "succeeded": ROWS}


def test_the_writes_of_a_paced_run_in_a_new_window_are_counted_in_its_log_from_the_first(
    running: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    """A run killed (``kill -9``) just after a window began, before its line of that window
    once a second, left the writes it sent there counted in none (their ``attempted`` lines
    followed the last window's line): a resumed run took that window's share again."""
    running.set_clock(f"{MINUTE}:54Z")  # the window resets in 6 s
    running.set_plan("20/minute")
    plan = actions.create_benefits(_rows("Rolled"))
    log = tmp_path / "rolled.jsonl"
    going: list[tuple[str, int, int]] = []  # each write's window, its calls then, the log's

    def counted(request: httpx.Request) -> None:
        if request.method == "POST" and not request.url.path.endswith("/oauth/token"):
            window = running.plan()
            ends = datetime.fromisoformat(window["resets_at"]).timestamp()
            logged = ActionLog(log).earlier(ends, window["limit"]).sent
            going.append((window["resets_at"], window["used"] + 1, logged))

    with (
        httpx.Client(event_hooks={"request": [counted]}, verify=TLS) as http,
        make_client(running, http_client=http) as client,
    ):
        results = plan.execute(client, log=log, progress=False, paced=True)
    assert results["outcome"].eq("succeeded").all()
    second = [(used, logged) for ends, used, logged in going if ends.startswith(f"{MINUTE[:-2]}02")]
    assert len(second) == ROWS - SHARE  # the writes sent in the next minute's window
    assert all(logged >= used for used, logged in second), second


def test_a_paced_run_stopped_mid_way_and_run_again_sends_nothing_twice(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path
) -> None:
    fresh.set_plan("20/hour")  # the fixed clock never resets it
    plan = actions.create_benefits(_rows("Resumed"))
    log = tmp_path / "resumed.jsonl"

    def stopped_once_quiet(used: int) -> tuple[pd.DataFrame, int, float]:
        """The paced run, cancelled once the window counts ``used`` calls and it waits; its
        results, what the window counted, and how long the Cancel took to end it."""
        cancel = threading.Event()
        out: list[pd.DataFrame] = []
        worker = threading.Thread(
            target=lambda: out.append(
                plan.execute(client, log=log, progress=False, paced=True, cancel=cancel)
            ),
            daemon=True,
        )
        worker.start()
        counted = until_quiet(fresh, used, worker.is_alive)
        at = time.monotonic()
        cancel.set()
        worker.join(10)
        assert not worker.is_alive() and out
        return out[0], counted, time.monotonic() - at

    first, counted, took = stopped_once_quiet(1 + SHARE)
    assert counted == 1 + SHARE and took < 2  # its share, then the Cancel ended the wait
    outcomes = _outcomes(first)
    assert outcomes == {"succeeded": SHARE, "cancelled": ROWS - SHARE}
    cancelled = first[first["outcome"] == "cancelled"]
    assert (cancelled["message"] == "not sent: the batch was cancelled").all()
    state = ActionLog(log).state(plan.action)
    assert not [t for t in state.last if state.in_doubt(t)]  # those waiting were not sent

    # Again in the same window: its first run's share is spent, so it sends nothing.
    again, counted, _ = stopped_once_quiet(1 + SHARE)
    assert counted == 1 + SHARE
    assert _outcomes(again) == {
        "skipped_already_done": SHARE,
        "cancelled": ROWS - SHARE,
    }

    fresh.set_plan("1000000/hour")  # a new window, which the client reads from an answer
    client.programs.list(limit=1)
    last = plan.execute(client, log=log, progress=False, paced=True)
    assert window_used(fresh) == 1 + ROWS - SHARE  # the rest, no read back: nothing was in doubt
    assert _outcomes(last) == {
        "skipped_already_done": SHARE,
        "succeeded": ROWS - SHARE,
    }
    assert sorted(names_on_server(client, "Resumed ")) == sorted(last["target"])


def test_paced_needs_a_log(fresh: Sandbox, client: LoyaltyClient, tmp_path: Path) -> None:
    plan = actions.create_benefits(_rows("Unlogged"))
    with pytest.raises(ValueError, match=r"paced=True needs log="):
        plan.execute(client, progress=False, paced=True)
    assert client.quota.calls_used == 0  # refused before anything was sent
    edit = actions.edit(pull(client))
    assert isinstance(edit, ProgramEdit)
    with pytest.raises(ValueError, match=r"paced=True needs log="):
        edit.plan().apply(client, progress=False, paced=True)


def _many_bonuses(client: LoyaltyClient, path: Path) -> None:
    """A plan creating ``ROWS`` benefits, saved to ``path``."""
    snapshot = pull(client)
    edit = actions.edit(snapshot)
    added = pd.DataFrame(
        [
            {
                "name": f"Bonus {i:02d}",
                "type": "POINTS",
                "points_value": 5,
                "card_definition_id": CARD,
            }
            for i in range(ROWS)
        ]
    )
    edit.benefits = pd.concat([edit.benefits, added], ignore_index=True)
    edit.plan().save(path)


def test_lyt_apply_paced_waits_for_the_next_window_and_resumes_after_ctrl_c(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    lyt_process: LytProcess,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "plan.json"
    _many_bonuses(client, path)
    fresh.set_plan("20/hour")
    configure_lyt(fresh)
    assert main(["apply", str(path)]) == 1  # unpaced: refused before the re-read
    err = capsys.readouterr().err
    assert "not started" in err and "pass --paced to send its share of every window" in err
    assert window_used(fresh) == 1  # the token request that read the budget

    fresh.set_plan("20/hour")
    paced = lyt_process(fresh, tmp_path, "apply", str(path), "--paced")
    counted, err = ctrl_c_once_quiet(fresh, paced, 1 + SHARE)
    assert paced.returncode == 130, err
    assert counted == 1 + SHARE == window_used(fresh)  # its share of the window, nothing more
    assert "interrupted; run the same command again to resume from its log" in err
    lines = (path.with_name(path.name + ".log.jsonl")).read_text().splitlines()
    windows = [json.loads(line) for line in lines if '"lyt-action-window/1"' in line]
    assert windows and not [line for line in windows if "here" in line]  # the clock far off

    fresh.set_plan("1000000/hour")  # a new window, learnt from the run's first call
    # run again in this process: what it resumes from is the log on disk
    assert main(["apply", str(path), "--paced"]) == 0
    out, err = capsys.readouterr()
    assert "Applied: " in out, err
    assert sorted(names_on_server(client, "Bonus ")) == sorted(
        f"Bonus {i:02d}" for i in range(ROWS)
    )


def test_lyt_apply_paced_run_again_in_its_window_counts_its_token_request_in_the_share(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, lyt_process: LytProcess
) -> None:
    """The reported case at 20,000 members (a share of 1,505, two runs sent 1,507): each run of
    ``lyt apply --paced`` again in the window sent its token request beyond the share its
    first run took, uncounted in the log. The log's window line counts it now, and a run again
    whose share is spent sends nothing before the window's end; the calls of both runs, the
    tokens included, are the share (10 of the 20-call window, as the sandbox counts them).
    The sandbox's clock is fixed at this machine's time, so the window's end is reckoned here."""
    clock_agreeing_here(fresh)
    path = tmp_path / "plan.json"
    _many_bonuses(client, path)
    fresh.set_plan("20/hour")
    counted = []
    for _ in range(2):
        paced = lyt_process(fresh, tmp_path, "apply", str(path), "--paced", progress="auto")
        said = stderr_until(paced, "waiting for the next window")

        # what it let start reaches the window (one still on its way when it said it waits)
        def alive(run: subprocess.Popen[str] = paced) -> bool:
            return run.poll() is None

        until_counted(fresh, 1 + SHARE, alive)
        counted.append(window_used(fresh))
        paced.send_signal(signal.SIGINT)
        _, err = paced.communicate(timeout=20)
        assert paced.returncode == 130, said + err
    assert counted == [1 + SHARE, 1 + SHARE] == [window_used(fresh)] * 2
    log = ActionLog(path.with_name(path.name + ".log.jsonl"))
    assert log.earlier(*_last_window(log)).sent == 1 + SHARE


def _last_window(log: ActionLog) -> tuple[float, int | None]:
    """The end and budget of the window ``log``'s last run was in."""
    last = log.last_window()
    assert last is not None
    return last.ends, last.limit


def test_a_paced_plan_keeps_to_its_share_of_the_billing_cycle(
    fresh: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    plan = actions.create_benefits(_rows("Cycle"))
    with make_client(fresh, cycle_calls=20) as client:  # half of it: 10, of the 15 needed
        with pytest.raises(CycleBudgetError) as refused:
            plan.execute(client, log=tmp_path / "cycle.jsonl", progress=False, paced=True)
        assert names_on_server(client, "Cycle ") == []  # refused before any write
    text = str(refused.value)
    assert text.startswith("the create_benefit plan (14 items) stopped before its writes"), text
    assert "more than its share (0.5) of it" in text
    assert text.endswith("; it sent 1 call and nothing more"), text  # the budget's token request


def test_a_saved_plan_refused_for_the_billing_cycle_names_the_call_it_sent(
    fresh: Sandbox, client: LoyaltyClient, make_client: ClientFor, tmp_path: Path
) -> None:
    """What ``lyt apply --paced`` checks first: refused for the cycle, it names the token
    request that read the budget (the service counted it), not "0 calls"."""
    path = tmp_path / "plan.json"
    _many_bonuses(client, path)
    used = window_used(fresh)
    saved = ChangePlan.load(path)
    with make_client(fresh, cycle_calls=20) as other, pytest.raises(CycleBudgetError) as refused:
        saved.check_apply(other, log=tmp_path / "c.jsonl", paced=True)
    assert window_used(fresh) - used == 1
    assert str(refused.value).endswith("; it sent 1 call and nothing more"), refused.value


def _paced_until_quiet(
    plan: actions.ActionPlan[Any], client: LoyaltyClient, log: Path, sb: Sandbox
) -> int:
    """``plan`` executed paced with ``log`` until the window counts its share (``1 + SHARE``)
    and nothing more comes for a second (it waits for the reset, ``until_quiet``), then
    cancelled: what the window counts once it ended. (Cancelled after any quiet second, a
    run slow to send on a loaded machine was stopped before its share.)"""
    cancel = threading.Event()
    worker = threading.Thread(
        target=lambda: plan.execute(client, log=log, progress=False, paced=True, cancel=cancel),
        daemon=True,
    )
    worker.start()
    try:
        until_quiet(sb, 1 + SHARE, worker.is_alive)
    finally:
        cancel.set()
        worker.join(10)
    assert not worker.is_alive()
    return window_used(sb)


def _killed_after_its_first_window_line(log: Path) -> None:
    """``log`` as a paced run killed (``kill -9``) after sending its writes leaves it: any
    window line it wrote after its first lost (the first is written before any write); every
    item line kept."""
    lines = log.read_text().splitlines(keepends=True)
    windows = [i for i, line in enumerate(lines) if '"lyt-action-window/1"' in line]
    assert windows
    log.write_text("".join(line for i, line in enumerate(lines) if i not in windows[1:]))


def test_a_paced_run_killed_between_its_window_lines_then_resumed_keeps_to_the_windows_share(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path
) -> None:
    fresh.set_plan("20/hour")  # the fixed clock never resets it
    plan = actions.create_benefits(_rows("Killed"))
    log = tmp_path / "killed.jsonl"
    assert _paced_until_quiet(plan, client, log, fresh) == 1 + SHARE
    _killed_after_its_first_window_line(log)
    # Again in the same window: the writes logged after its last window line were sent there.
    assert _paced_until_quiet(plan, client, log, fresh) == 1 + SHARE
    assert len(names_on_server(client, "Killed ")) == SHARE


def _counted_in(log: Path) -> int:
    """What a paced run resumed now would count as sent by the earlier runs in the window
    ``log``'s last window line names (0 before any)."""
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    windows = [line for line in lines if line.get("log") == "lyt-action-window/1"]
    if not windows:
        return 0
    return ActionLog(log).earlier(windows[-1]["ends"], windows[-1]["limit"]).sent


def _each_call_counted_before_it_goes_out(
    sb: Sandbox, client: LoyaltyClient, make_client: ClientFor, tmp_path: Path
) -> list[tuple[str, int]]:
    """A saved plan of ``ROWS`` creates applied paced on ``sb`` under a plan its share holds,
    with the log ``tmp_path / "plan.log.jsonl"`` (as it may be already): each call as it went
    out (the token request aside), with what the log counted then; ``AssertionError`` when a
    call went out the log had not counted."""
    path = tmp_path / "plan.json"
    _many_bonuses(client, path)
    sb.set_plan("1000/hour")  # the plan fits its share
    log = tmp_path / "plan.log.jsonl"
    going: list[tuple[str, int]] = []

    def counted(request: httpx.Request) -> None:
        if not request.url.path.endswith("/oauth/token"):  # before the window's share
            going.append((request.method, _counted_in(log)))

    with (
        httpx.Client(event_hooks={"request": [counted]}, verify=TLS) as http,
        make_client(sb, http_client=http) as hooked,
    ):
        results = ChangePlan.load(path).apply(hooked, log=log, progress=False, paced=True)
    assert results["outcome"].eq("succeeded").sum() == ROWS, results.to_string()
    short = [(n, call) for n, call in enumerate(going, 1) if call[1] < n]
    assert not short, going
    return going


def test_each_call_of_a_paced_apply_is_counted_in_its_log_before_it_goes_out(
    fresh: Sandbox, client: LoyaltyClient, make_client: ClientFor, tmp_path: Path
) -> None:
    """A saved plan's re-read writes no item lines: its calls are noted in the log's window
    lines before each goes out, as the writes' attempted lines are, so a run killed (``kill
    -9``) between two of the lines written once a second leaves none of them uncounted."""
    going = _each_call_counted_before_it_goes_out(fresh, client, make_client, tmp_path)
    assert [method for method, _ in going].count("GET") > 1  # the re-read's


def test_both_calls_of_an_item_in_doubt_are_counted_in_a_paced_logs_window(
    fresh: Sandbox, client: LoyaltyClient, make_client: ClientFor, tmp_path: Path
) -> None:
    """An item a killed run left in doubt is read back, then written: two calls of the window
    for one item, each logged ``attempted`` before it goes out (the write was not: a run
    killed then left it uncounted)."""
    ActionLog(tmp_path / "plan.log.jsonl").record("create_benefit", "Bonus 03", "attempted")
    going = _each_call_counted_before_it_goes_out(fresh, client, make_client, tmp_path)
    assert [method for method, _ in going].count("POST") == ROWS


def _spent_by_others(sb: Sandbox, make_client: ClientFor) -> None:
    """``sb`` under a 20-call minute resetting in 6 s, spent whole by another client."""
    sb.set_clock(f"{MINUTE}:54Z")
    sb.set_plan("20/minute")
    with make_client(sb) as others:
        while window_used(sb) < 20:
            others.programs.list(limit=1)


def test_a_paced_run_started_in_a_window_other_traffic_spent_waits_for_the_next(
    running: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    _spent_by_others(running, make_client)
    plan = actions.create_benefits(_rows("Spent")[:SHARE])  # the next window's share
    with make_client(running, max_wait=1) as client:  # its token refused for 6 s, beyond it
        results = plan.execute(client, log=tmp_path / "spent.jsonl", progress=False, paced=True)
        names = names_on_server(client, "Spent ")
    assert results["outcome"].eq("succeeded").all()
    assert sorted(names) == sorted(results["target"])


def test_a_cancel_ends_a_paced_runs_wait_for_its_first_call_at_once(
    running: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    """Started in a window other traffic spent, the run's token request waits for the reset:
    a Cancel (a panel's) ends that wait at once, nothing sent."""
    _spent_by_others(running, make_client)
    plan = actions.create_benefits(_rows("Cancelled")[:SHARE])
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    with make_client(running, max_wait=1) as client:
        started = time.monotonic()
        with pytest.raises(StoppedError, match="the batch was cancelled"):
            plan.execute(
                client, log=tmp_path / "c.jsonl", progress=False, paced=True, cancel=cancel
            )
        took = time.monotonic() - started
    assert took < 3  # not the window's reset, 6 s away
    assert window_used(running) in (20, 21)  # the others' window (and the refused token request)


def test_a_paced_saved_plan_checked_in_a_window_other_traffic_spent_waits_for_the_next(
    running: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    path = tmp_path / "plan.json"
    running.set_plan("unlimited")
    with make_client(running) as client:
        _many_bonuses(client, path)
    _spent_by_others(running, make_client)
    saved = ChangePlan.load(path)  # what lyt apply --paced checks first
    with make_client(running, max_wait=1) as client:
        cost = saved.check_apply(client, log=tmp_path / "plan.log.jsonl", paced=True)
    assert cost.needed > SHARE and window_used(running) == 1  # its token, in the next window


CLOCK_MOVED_WITHIN = 8
"""Seconds the pipe apply's first window has left on the fixed clock: the process waits that
long on its own clock before it sends in the next window, and the test moves the fixed clock
on in far less (once the process says it waits and the window counts what it let start). It
must outlast the process's first chunk: with 3, a fresh clone's loaded run (2026-12-07) took
over 2 s for its 9 calls, the process's own clock saw the window end, and it sent on without
the wait the test is about."""


def _moved_on_as_it_waits(sb: Sandbox, proc: subprocess.Popen[str]) -> tuple[str, int]:
    """``proc``'s stderr once it ended, ``sb``'s fixed clock moved to the next minute's window
    each time ``proc`` said it waits for it, and how many times it moved. Each time once the
    window counts the calls ``proc`` let start there, as the line says them (its share less
    what is left of it: the calls sent earlier in the window, its token among them, count
    against the share): it says it waits as soon as they are let start, and one still on its
    way as the clock moved would be counted in the next window, which would then hold less
    for it. The process hears of the next window only once the last ends on its own clock
    (``CLOCK_MOVED_WITHIN``); a wait for a third window would take a minute."""
    err, moved = "", 0
    while True:
        said = stderr_until(proc, "waiting for the next window", or_end=True)
        err += said
        if "waiting for the next window" not in said:
            return err, moved
        [(left, share)] = re.findall(r"(\d+) left this window of its share of (\d+)", said)[-1:]
        until_counted(sb, int(share) - int(left), lambda: proc.poll() is None)
        moved += 1
        sb.set_clock(f"{MINUTE[:-1]}{moved}:00Z")


def test_lyt_apply_paced_into_a_pipe_says_it_started_waited_and_went_on(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, lyt_process: LytProcess
) -> None:
    """Its stderr a pipe (``nohup lyt apply --paced ... 2> log``), ``lyt apply --paced`` says
    once that it started, then a line per chunk naming it (its re-read's real size, then its
    writes), when it begins to wait for the next window and that it went on there, with the
    whole apply's figures, though the rest took less than a second (no redraw came). Earlier
    each chunk said "started" twice (its re-read, then its creates), its re-read "0 of 0
    calls", and its summary counted the card definition and the names its creates need once
    where each chunk re-reads them.

    The fixed clock moves to the next window once the process waits for it and the window
    counts what it let start there: on a running clock, a process slow to start (a loaded
    machine) saw the window end before its share was sent; moved as soon as the process said
    it waits, its last writes, still on their way, were counted in the next window; moved
    once the window counted one call more than the line says (its token, counted in the share
    already), only once the process, its wait over, sent into the window it had left, and a
    third window, a minute away, was needed. Two windows hold the plan: one wait."""
    path = tmp_path / "plan.json"
    _many_bonuses(client, path)
    fresh.set_clock(f"{MINUTE}:{60 - CLOCK_MOVED_WITHIN}Z")  # the process waits that long
    fresh.set_plan("20/minute")
    paced = lyt_process(fresh, tmp_path, "apply", str(path), "--paced", progress="auto")
    err, moved = _moved_on_as_it_waits(fresh, paced)
    out, _ = paced.communicate(timeout=10)
    assert paced.returncode == 0, out + err
    assert f"Applied: {ROWS} succeeded" in out
    # the summary's "N calls short" is what pacing sends in the next windows, not a refusal
    assert " calls short\n--paced: the " in out
    assert "calls beyond this window's share wait for the next windows, 0.5 of each" in out
    said = [re.sub(r"^\d\d:\d\d:\d\d UTC ", "", line).split(":")[:2] for line in err.splitlines()]
    # one work: started once, a line per chunk, a wait (the chunk's reads wait for the window
    # its writes fit in) said, then that it went on (a chunk's line may come between). The
    # first line may say it waits too ("started, waiting for the next window").
    assert {line[0] for line in said} == {"paced apply"}, err
    assert [at for at, line in enumerate(said) if line[1].startswith(" started")] == [0], err
    going = [line[1] for line in said if not line[1].startswith(" chunk ")]
    waiting = (" waiting for the next window", " started, waiting for the next window")
    waits = [at for at, line in enumerate(going) if line in waiting]
    assert moved == len(waits) == 1, err
    assert all(going[at + 1] == " a new window began, going on" for at in waits), err
    chunks = re.findall(
        r"paced apply: chunk (\d+) \(create_benefit\): re-reading (\d+) calls?, then (\d+) of"
        r" the (\d+) writes? left: ",
        err,
    )
    assert [int(chunk[0]) for chunk in chunks] == list(range(1, len(chunks) + 1)), err
    assert len(chunks) == moved + 1, err  # a chunk a window
    assert sum(int(chunk[2]) for chunk in chunks) == ROWS, err
    # each chunk re-reads the card definition its creates point at and their names
    assert all(int(chunk[1]) == 2 for chunk in chunks), err
    reads = sum(int(chunk[1]) for chunk in chunks)
    assert f"{reads + ROWS} calls ({reads} re-reads, then {ROWS} writes)" in out, out
    each_chunk = "touched objects, each chunk's just before its writes"
    assert f"Re-reading {ROWS + 1} {each_chunk}: calls needed: {reads};" in out, out


def test_lyt_apply_paced_into_a_pipe_says_its_first_call_waits_for_the_next_window(
    fresh: Sandbox,
    client: LoyaltyClient,
    make_client: ClientFor,
    tmp_path: Path,
    lyt_process: LytProcess,
) -> None:
    """Started in a window other traffic spent, ``lyt apply --paced ... 2> log`` says that its
    first call, the token request, was refused and waits for the next window (silent, it looked
    hung); a Ctrl-C then ends the wait."""
    path = tmp_path / "plan.json"
    _many_bonuses(client, path)
    _spent_by_others(fresh, make_client)  # the fixed clock: refused again after each wait
    paced = lyt_process(fresh, tmp_path, "apply", str(path), "--paced", progress="auto")
    said = stderr_until(paced, "paced apply")
    paced.send_signal(signal.SIGINT)
    _, rest = paced.communicate(timeout=20)
    assert paced.returncode == 130, said + rest
    assert re.fullmatch(
        r"\d\d:\d\d:\d\d UTC paced apply: started, refused by the service \(429 Too Many"
        r" Requests\), retrying: 1 call done; 1 sent, 1 refused \(429\) and retried, 0 left this"
        r" window, next window in \d+ s\n",
        said,
    ), said
    assert "interrupted; run the same command again to resume" in rest
