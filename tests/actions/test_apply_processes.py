"""``lyt apply`` run as processes against a sandbox served over HTTP (issue 33, items 3 and
4): an apply killed with SIGKILL while its writes are in flight, or stopped with Ctrl-C, is
finished by the next run with the same log (run in this process), sending nothing twice;
two applies of one plan at once make one writer; and the refusals name the options ``lyt
apply`` takes, and a lock file that cannot be made is one line (those two in this process,
through ``main``)."""

from __future__ import annotations

import signal
import subprocess
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest
from fixture_types import LytProcess
from interrupting import catches, ctrl_c_while_refused, held, holder, until

from lyt_toolkit import actions
from lyt_toolkit._lock import lock_path
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SECRETS, TIERS, names_on_server, pull

SLOW = 0.3
"""Seconds the sandbox holds every request: writes stay in flight long enough to kill."""

CONCURRENCY = 8
"""The writes ``lyt apply`` sends at once (``ChangePlan.apply``'s default)."""


def _save(
    client: LoyaltyClient, path: Path, *, refusable: bool = False
) -> tuple[list[str], list[str]]:
    """A plan of 16 benefit creates and 8 moves to draft, saved to ``path``; ``refusable``
    adds a delete and a change the service cannot make. The names and rewards."""
    snapshot = pull(client)
    edit = actions.edit(snapshot)
    rewards = snapshot.rewards.loc[snapshot.rewards["status"] == "ACTIVE", "id"].head(8).tolist()
    edit.rewards.loc[edit.rewards["id"].isin(rewards), "status"] = "DRAFT"
    card = str(snapshot.card_definitions["id"].iloc[0])
    names = [f"Killed {i:02d}" for i in range(16)]
    created = [
        {"name": n, "type": "POINTS", "points_value": 10 + i, "card_definition_id": card}
        for i, n in enumerate(names)
    ]
    edit.benefits = pd.concat([edit.benefits, pd.DataFrame(created)], ignore_index=True)
    if refusable:
        edit.tier_structures = edit.tier_structures[edit.tier_structures["id"] != TIERS]
        other = snapshot.rewards["id"].iloc[-1]
        edit.rewards.loc[edit.rewards["id"] == other, "name"] = "Renamed"
    edit.plan().save(path)
    return names, rewards


def _wait_for(ready: Callable[[], bool], proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the apply never got there"
        time.sleep(0.01)


def _creates_in_flight(log: Path) -> bool:
    """At least 4 creates done and others sent, unanswered."""
    state = ActionLog(log).state("create_benefit")
    in_flight = [t for t, line in state.last.items() if line["outcome"] == "attempted"]
    return len(state.succeeded) >= 4 and bool(in_flight)


def _creates(method: str, path: str) -> bool:
    """Whether a call is a benefit's create."""
    return method == "POST" and path == "/v2/loyalties/benefits"


def _writers_under_way(log: Path) -> int:
    """The writes an apply of ``_save``'s plan has under way at once (``CONCURRENCY``, or the
    fewer its stage under way has left): its 16 creates, else its 8 moves to draft."""
    left = 16 - len(ActionLog(log).state("create_benefit").succeeded)
    left = left or 8 - len(ActionLog(log).state("move_reward_to_draft").succeeded)
    return min(CONCURRENCY, left)


def _sent_twice(log: Path) -> list[dict[str, object]]:
    """The log's lines of writes the service refused as done already (a second send)."""
    return [
        line
        for line in ActionLog(log).entries()
        if line.get("status") == 409 or line["outcome"] in ("already_done", "failed")
    ]


class _Applying(NamedTuple):
    """``lyt apply`` of a saved plan, caught with creates in flight."""

    plan: Path
    log: Path
    names: list[str]
    rewards: list[str]
    first: subprocess.Popen[str]


def _applying(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    lyt_process: LytProcess,
    *,
    background: bool = False,
) -> _Applying:
    """A plan saved and its ``lyt apply`` started (``background``: as a background job, Ctrl-C
    ignored), slowed until some creates are in flight."""
    plan = tmp_path / "plan.json"
    log = tmp_path / "plan.json.log.jsonl"
    names, rewards = _save(client, plan)
    fresh.set_faults(delay_seconds=SLOW)
    first = lyt_process(fresh, tmp_path, "apply", str(plan), background=background)
    _wait_for(lambda: log.exists() and _creates_in_flight(log), first)
    return _Applying(plan, log, names, rewards, first)


def _finished_by_the_next_run(
    fresh: Sandbox,
    client: LoyaltyClient,
    lyt_to: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
    applying: _Applying,
    *again: str,
) -> None:
    """The same command run again applies the rest, each write sent once. Run in this
    process (``main``, from the test's folder: ``lyt_to`` is ``configure_lyt``): what it
    resumes from is the log and lock file on disk, the stopped process gone; a warning it
    gave would be on its stderr."""
    lyt_to(fresh)
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("default")
        code = main(["apply", str(applying.plan), *again])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == "" and "Applied: " in out
    assert [str(w.message) for w in warned] == []
    assert Counter(names_on_server(client, "Killed ")) == Counter(applying.names)  # each once
    assert {client.rewards.get(r).status for r in applying.rewards} == {"DRAFT"}
    assert _sent_twice(applying.log) == []


@pytest.mark.parametrize("again", [[], ["--refresh"]], ids=["resumed", "refreshed"])
def test_an_apply_killed_mid_writes_is_finished_by_the_next_run_sending_nothing_twice(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    again: list[str],
    lyt_process: LytProcess,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    applying = _applying(fresh, client, tmp_path, lyt_process)
    log, rewards, first = applying.log, applying.rewards, applying.first
    first.send_signal(signal.SIGKILL)
    first.communicate()  # waits, and closes its pipes
    assert first.returncode == -signal.SIGKILL
    time.sleep(2 * SLOW)  # the writes in flight reach the service, or not
    fresh.clear_faults()
    assert _creates_in_flight(log)  # the log ends with creates sent and unanswered
    assert {client.rewards.get(r).status for r in rewards} == {"ACTIVE"}  # none sent yet
    assert not (tmp_path / "plan.json.applied").exists()

    _finished_by_the_next_run(fresh, client, configure_lyt, capsys, applying, *again)
    assert len((tmp_path / "plan.json.applied").read_text().splitlines()) == 1


@pytest.mark.parametrize(
    ("stop", "code"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
    ids=["ctrl-c", "sigterm-in-the-background"],
)
def test_ctrl_c_stops_an_apply_in_one_line_and_the_next_run_finishes_it_sending_nothing_twice(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    lyt_process: LytProcess,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
    stop: signal.Signals,
    code: int,
) -> None:
    """SIGTERM, what stops a background job (Ctrl-C ignored), stops it as a Ctrl-C does:
    exit 128 + the signal."""
    applying = _applying(fresh, client, tmp_path, lyt_process, background=stop == signal.SIGTERM)
    log, rewards, first = applying.log, applying.rewards, applying.first
    first.send_signal(stop)
    _, err = first.communicate(timeout=60)
    fresh.clear_faults()
    assert first.returncode == code
    assert (
        err == f"lyt apply: interrupted; run the same command again to resume from its log {log}\n"
    )
    assert {client.rewards.get(r).status for r in rewards} == {"ACTIVE"}  # stopped mid-way
    assert not (tmp_path / "plan.json.applied").exists()

    _finished_by_the_next_run(fresh, client, configure_lyt, capsys, applying)


def test_ctrl_c_while_an_apply_s_writes_wait_out_a_429_stops_at_once_sending_nothing_more(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    lyt_process: LytProcess,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = tmp_path / "plan.json"
    log = tmp_path / "plan.json.log.jsonl"
    names, rewards = _save(client, plan)
    # Creates past the first CONCURRENCY are held until every writer's is; then the service
    # refuses every write, asking to wait 25 s: the writes sent wait to be sent again, the
    # others for the window's reset.
    with held(fresh, after=CONCURRENCY, holds=_creates) as gate:
        first = lyt_process(fresh, tmp_path, "apply", str(plan))
        _, err, sent = ctrl_c_while_refused(fresh, first, 25, lambda: _writers_under_way(log), gate)
    applying = _Applying(plan, log, names, rewards, first)
    assert first.returncode == 130
    assert (
        err == f"lyt apply: interrupted; run the same command again to resume from its log {log}\n"
    )
    assert sent == 0  # nothing sent after the Ctrl-C

    _finished_by_the_next_run(fresh, client, configure_lyt, capsys, applying)


def test_a_second_sigterm_ends_an_apply_waiting_for_its_writes_in_flight(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, lyt_process: LytProcess
) -> None:
    """The first SIGTERM starts the clean-up of a Ctrl-C, which waits for the writes in
    flight (held in the sandbox, never answered here); a second ends the process at once."""
    plan = tmp_path / "plan.json"
    log = tmp_path / "plan.json.log.jsonl"
    _save(client, plan)
    with held(fresh, after=CONCURRENCY, holds=_creates) as gate:
        first = lyt_process(fresh, tmp_path, "apply", str(plan), background=True)
        gate.until_held(lambda: _writers_under_way(log), first)
        assert catches(first, signal.SIGTERM)  # taken as a Ctrl-C, not the default's end
        first.send_signal(signal.SIGTERM)
        until(
            lambda: not catches(first, signal.SIGTERM) or first.poll() is not None,
            "the SIGTERM handled",
        )
        assert first.poll() is None, first.communicate()  # cleaning up: the writes held
        first.send_signal(signal.SIGTERM)
        first.communicate()
        assert first.returncode == -signal.SIGTERM
        assert gate.held >= _writers_under_way(log)  # their answers never came


def test_two_applies_of_one_plan_at_once_make_one_writer(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, lyt_process: LytProcess
) -> None:
    """Both started together: one takes the plan's lock and applies it, the other is refused
    at once naming the holder. The holder is paused until the other has ended: one slower
    to start than the other's whole apply (a loaded machine) found the plan applied."""
    plan = tmp_path / "plan.json"
    log = tmp_path / "plan.json.log.jsonl"
    names, rewards = _save(client, plan)
    fresh.set_faults(delay_seconds=SLOW)  # the holder is seen holding before it ends
    runs = [lyt_process(fresh, tmp_path, "apply", str(plan)) for _ in range(2)]
    writer = holder(lock_path(plan), runs)
    [other] = [proc for proc in runs if proc is not writer]
    writer.send_signal(signal.SIGSTOP)
    try:
        _, refused = other.communicate(timeout=120)
    finally:
        writer.send_signal(signal.SIGCONT)
    fresh.clear_faults()
    out, err = writer.communicate(timeout=120)

    assert (writer.returncode, other.returncode) == (0, 1), (out, err, refused)
    assert "Applied: 24 succeeded" in out
    [line] = refused.splitlines()
    assert line.startswith(f"lyt apply: {plan} is being applied by another process"), line
    assert f"pid {writer.pid}" in line and "started " in line
    assert Counter(names_on_server(client, "Killed ")) == Counter(names)
    assert {client.rewards.get(r).status for r in rewards} == {"DRAFT"}
    assert _sent_twice(log) == []
    assert len((tmp_path / "plan.json.applied").read_text().splitlines()) == 1


def test_the_refusals_of_lyt_apply_name_its_options(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Under the command line a refusal names the option to pass, never a Python keyword;
    each option it names is one ``lyt apply`` takes. (Run in this process, ``main``: the
    messages are the point, not the process.)"""
    plan = tmp_path / "plan.json"
    _, rewards = _save(client, plan, refusable=True)
    configure_lyt(fresh)
    steps = [
        ([], "--allow-destroy"),
        (["--allow-destroy"], "--ignore-unsupported"),
        (["--allow-destroy", "--ignore-unsupported"], "--refresh"),
    ]
    for options, named in steps:
        if named == "--refresh":
            client.rewards.draft(rewards[0])  # the plan is stale now
        code = main(["apply", str(plan), *options])
        err = capsys.readouterr().err
        assert code == 1 and named in err, err
        assert "=True" not in err and err.count("lyt apply:") == 1
        # one line, but a stale refusal's: it names each object on a line of its own
        assert len(err.splitlines()) == 1 or named == "--refresh", err
        for secret in SECRETS:
            assert secret not in err
    code = main(["apply", str(plan), "--allow-destroy", "--ignore-unsupported", "--refresh"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Applied: " in out


def test_a_lock_file_that_cannot_be_made_is_one_line_and_nothing_is_sent(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Run in this process (``main``: an exception escaping it would fail the test): the
    refusal is the point, not the process."""
    plan = tmp_path / "plan.json"
    _save(client, plan)
    (tmp_path / "plan.json.lock").mkdir()  # a folder where the lock file goes
    used = fresh.plan()["used"]
    configure_lyt(fresh)
    code = main(["apply", str(plan)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert len(err.splitlines()) == 1 and "cannot be locked for one writer" in err, err
    assert "plan.json.lock" in err and "Traceback" not in err
    assert fresh.plan()["used"] - used <= 2  # the token and the budget check, no write
    assert not client.benefits.frame()["name"].str.startswith("Killed").any()
