"""A paced pull run again in its window keeps to the share its first run took there, over real
HTTP: the calls its earlier runs sent in the window count against that share, instead of each
run taking a new share of what the last one left (at 0.5: 50 %, then 75 %, 87.5 % ... of the
window). A run's token request, the one call that tells it the window, counts against that
share too, before it goes: the record says when the window ends on this machine's clock, and a
run again before then whose share is spent sends nothing. A run in a later window takes that
window's whole share.

A generated program of 150 members needs about 190 calls; under a 120-call hourly plan the
default share is 60. The sandbox's clock is fixed, so a window never ends unless the test
moves the clock, and a paced pull whose share is spent waits until it is stopped. Fixed months
from this machine's time, the service's clock does not agree with this machine's, and the
record says no end here: a run again sends its one call to learn the window. The tests of
the end here fix it at this machine's time (``clock_agreeing_here``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fixture_types import LytProcess, StartSandbox
from interrupting import (
    clock_agreeing_here,
    ctrl_c_once_quiet,
    held,
    stderr_until,
    until_quiet,
    window_used,
)

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.fill.answers import JOURNAL
from lyt_toolkit.fill.checkpoint import MANIFEST
from lyt_toolkit.fill.pull import SPENT_AHEAD
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .helpers import NOW, pull

pytestmark = pytest.mark.waits  # mostly waits on the clock: `make test-waiting`

PROGRAM = generate_program(
    members=150, rewards=20, benefits=5, card_definitions=2, tier_structures=1, seed=4
)
PLAN = "120/hour"
"""Not 100/hour: that names the free plan, whose 500-call billing cycle refuses a paced pull."""
SHARE = 60
"""The default share, 0.5, of the window's 120 calls."""
ANSWERED = 20
"""Calls a pull killed mid-way has answered: its token request, lists and first reads."""
CONCURRENCY = 8
"""The calls a pull has under way at once (its default ``concurrency``)."""
QUIET = 1.5
"""Seconds a pull sends nothing more before it is taken to wait for the reset (it would send
a new share's 30 calls to the local sandbox in far less)."""


@pytest.fixture(scope="module")
def program(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox(PROGRAM) as sb:
        yield sb


@pytest.fixture
def window(program: Sandbox) -> Iterator[Sandbox]:
    """The program at its fixed clock, a fresh 120-call window in force."""
    program.set_clock(NOW)
    program.set_plan(PLAN)
    yield program
    program.set_clock(NOW)
    program.set_plan("1000000/hour")


def _export_stopped_once_quiet(
    sb: Sandbox, lyt_process: LytProcess, cwd: Path, folder: Path, used: int
) -> int:
    """``lyt export --checkpoint folder`` run until it says it waits for the next window, the
    window counts ``used`` calls and it sends none for ``QUIET`` s, then stopped with Ctrl-C;
    what the window counts then."""
    export = lyt_process(
        sb, cwd, "export", "--out", "out", "--checkpoint", str(folder), progress="auto"
    )
    said = stderr_until(export, "waiting for the next window")  # its token, if any, counted
    counted, err = ctrl_c_once_quiet(sb, export, used, QUIET)
    assert export.returncode == 130, said + err
    return counted


def test_lyt_export_run_again_in_its_window_keeps_to_the_share_its_first_run_took(
    window: Sandbox, lyt_process: LytProcess, tmp_path: Path
) -> None:
    """The reported case: ``lyt export --checkpoint`` stopped with Ctrl-C and run again, three
    times, in one window. Each run after the first sends nothing, not even its token request:
    the share is spent, and the window its first run was in has not ended on this machine's
    clock; it waits. The sandbox's clock is fixed at this machine's time: the two agree, as a
    real service's and an NTP'd machine's do, so the record says the window's end here."""
    clock_agreeing_here(window)  # a new window of 120 calls, at this machine's time
    folder = tmp_path / "checkpoint"
    counted = []
    for _ in range(3):
        counted.append(_export_stopped_once_quiet(window, lyt_process, tmp_path, folder, SHARE))
    # Before, each run again sent its token request beyond the share (60, 61, 62); before
    # that, each took half of what the last left: 60, 90, 105.
    assert counted == [SHARE, SHARE, SHARE]
    assert window_used(window) == SHARE
    manifest = json.loads((folder / MANIFEST).read_text())
    ends = pd.Timestamp(window.plan()["resets_at"]).timestamp()
    here = manifest["window"].pop("here")  # the fixed clock's hour, from the first run's time
    assert time.time() < here < time.time() + 3600
    assert manifest["window"] == {"ends": ends, "limit": 120, "held": 120, "sent": SHARE}


def test_lyt_export_killed_with_calls_in_flight_leaves_them_counted_by_the_next_run(
    window: Sandbox, lyt_process: LytProcess, tmp_path: Path
) -> None:
    """``kill -9`` while the pull's reads are in flight (held in the sandbox, counted there):
    each call was counted in the manifest before it went out (spent ahead, ``SPENT_AHEAD``
    calls at a time), so the run again counts every call the killed one sent in the window,
    a few more at most, and the two send no more than the share."""
    clock_agreeing_here(window)
    folder = tmp_path / "checkpoint"
    with held(window, after=ANSWERED) as gate:
        export = lyt_process(
            window, tmp_path, "export", "--out", "out", "--checkpoint", str(folder)
        )
        gate.until_held(lambda: CONCURRENCY, export)  # every call it has under way
        export.send_signal(signal.SIGKILL)
        export.communicate()
    assert export.returncode == -signal.SIGKILL
    killed = window_used(window)
    assert killed == ANSWERED + CONCURRENCY
    record = json.loads((folder / MANIFEST).read_text()).get("window")
    assert record is not None and killed <= record["sent"] <= killed + SPENT_AHEAD
    # The run again sends what the share leaves of the calls the record counts (as many as
    # the killed run sent, or up to SPENT_AHEAD more, as far ahead as its last write went).
    spent = killed + SHARE - record["sent"]
    counted = _export_stopped_once_quiet(window, lyt_process, tmp_path, folder, spent)
    # Before, the manifest said what the run had sent at its last write, once a second (none
    # yet here), and the journal held the 20 answers: the run again counted neither the
    # calls in flight nor the token request, and the window ended at 64 of a share of 60.
    assert counted == spent == window_used(window)
    assert SHARE - SPENT_AHEAD <= counted <= SHARE


def _settings(sb: Sandbox) -> dict[str, Any]:
    return {"base_url": sb.base_url, "env_file": None, **sb.credentials.as_client_kwargs()}


def _stopped_once_quiet(
    sb: Sandbox, used: int, work: Callable[[], Coroutine[Any, Any, ProgramSnapshot]]
) -> int:
    """``work()`` (a paced pull) run until the window counts ``used`` calls and it sends none
    for ``QUIET`` s, then cancelled (what Ctrl-C does to it); what the window counts then."""

    async def run() -> int:
        task = asyncio.ensure_future(work())
        try:
            return await asyncio.to_thread(until_quiet, sb, used, lambda: not task.done(), QUIET)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return asyncio.run(run())


def _paced(sb: Sandbox, folder: Path) -> Callable[[], Coroutine[Any, Any, ProgramSnapshot]]:
    return lambda: ProgramSnapshot.apull(_settings(sb), progress=False, checkpoint=folder)


def test_a_run_in_a_later_window_takes_that_window_s_whole_share(
    window: Sandbox, tmp_path: Path
) -> None:
    folder = tmp_path / "checkpoint"
    assert _stopped_once_quiet(window, SHARE, _paced(window, folder)) == SHARE
    window.advance_clock(3600)  # the next window: nothing of it spent
    assert _stopped_once_quiet(window, SHARE, _paced(window, folder)) == SHARE


def test_on_a_fixed_clock_far_from_now_a_run_again_sends_its_one_call_to_learn_the_window(
    window: Sandbox, tmp_path: Path
) -> None:
    """The sandbox's fixed clock (``NOW``, months from this machine's) does not agree with
    this machine's: the record says no end here (``here``), so a run again does not wait
    blind for an end this machine cannot reckon (the clock may be moved meanwhile); it sends
    its token request, the one call that learns the window, and then waits."""
    folder = tmp_path / "checkpoint"
    assert _stopped_once_quiet(window, SHARE, _paced(window, folder)) == SHARE
    assert "here" not in json.loads((folder / MANIFEST).read_text())["window"]
    assert _stopped_once_quiet(window, SHARE + 1, _paced(window, folder)) == SHARE + 1


def _as_older_toolkit_left_it(folder: Path) -> None:
    """``folder`` as an older toolkit wrote it: no answer names its window, no window record."""
    journal = folder / JOURNAL
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert lines and all(isinstance(line.pop("window"), float) for line in lines)
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _without_window_record(folder)


def _without_window_record(folder: Path) -> None:
    """``folder`` as a run killed before it wrote its window record leaves it."""
    manifest = json.loads((folder / MANIFEST).read_text())
    del manifest["window"]
    (folder / MANIFEST).write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    "left", [_as_older_toolkit_left_it, _without_window_record], ids=["older-toolkit", "killed"]
)
def test_without_the_window_record_the_answers_stored_count_as_sent_in_the_window(
    window: Sandbox, tmp_path: Path, left: Callable[[Path], None]
) -> None:
    """The answers the first run stored (all its calls but its token) count against the
    share: the answers naming the window, else those of the hour before its end."""
    folder = tmp_path / "checkpoint"
    assert _stopped_once_quiet(window, SHARE, _paced(window, folder)) == SHARE
    left(folder)
    assert _stopped_once_quiet(window, SHARE + 1, _paced(window, folder)) == SHARE + 1


def test_a_refresh_run_again_in_its_window_keeps_to_the_same_share(
    window: Sandbox, tmp_path: Path
) -> None:
    """The second run sends nothing, not even its token request (the clock agreeing here)."""
    clock_agreeing_here(window)
    window.set_plan("unlimited")
    old = pull(window, kinds=["programs", "members", "cards", "pending_buckets"])
    window.set_plan(PLAN)
    folder = tmp_path / "checkpoint"

    def refresh() -> Coroutine[Any, Any, ProgramSnapshot]:
        return old.arefresh(_settings(window), members="all", progress=False, checkpoint=folder)

    assert _stopped_once_quiet(window, SHARE, refresh) == SHARE
    assert _stopped_once_quiet(window, SHARE, refresh) == SHARE  # not even its token
