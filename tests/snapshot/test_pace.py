"""When a paced pull should end, as its bar says: the calls to do over the windows to come."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.fill.pace import PaceBar, expected_end
from lyt_toolkit.fill.pace_lines import EVERY, PaceLines
from lyt_toolkit.sandbox import Sandbox

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
EVERY_SECONDS = int(EVERY)


def test_calls_this_window_holds_end_now() -> None:
    assert expected_end(100, 150, 1500, 600, 3600, NOW) == NOW


def test_calls_beyond_this_window_end_in_the_window_that_holds_the_last() -> None:
    # 100 now, then 1,500 in each window: 3,000 more need two more windows, 3,001 three
    end = expected_end(3100, 100, 1500, 600, 3600, NOW)
    assert end == NOW + timedelta(seconds=600 + 3600)
    assert expected_end(3101, 100, 1500, 600, 3600, NOW) == NOW + timedelta(seconds=600 + 7200)


def test_a_window_that_allows_nothing_still_ends() -> None:
    assert expected_end(10, 0, 0, 30, 60, NOW) == NOW + timedelta(seconds=30 + 9 * 60)


def test_the_pace_bar_counts_the_time_to_the_next_window_on_the_services_clock(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    """A sandbox on a fixed clock (2026-01-15 12:00) announces its window's end at 13:00 on
    its own clock, an hour ahead whatever this machine's date: the bar says so, not 0 s. A
    resumed pull's bar says too what its earlier runs sent of the window's share."""
    notes: list[str] = []
    with start_sandbox() as sb:
        sb.set_plan("1000/hour")
        with make_client(sb) as client:
            client.rewards.list()
            allowance = SimpleNamespace(left=400, calls=500, carried=0)
            bar = PaceBar(False, client, cast(Any, allowance), lambda: None)
            bar.bar = cast(Any, SimpleNamespace(set=lambda done, total, note: notes.append(note)))
            bar.draw()
            allowance.carried, allowance.left = 100, 0
            bar.draw()
    assert "next window in 60 min" in notes[0], notes
    assert "earlier" not in notes[0]
    assert "100 sent earlier in this window, 0 left this window" in notes[1], notes


def test_pace_lines_say_each_change_once_and_a_refused_work_once_a_minute(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A paced work's lines (no terminal): none before it knows what it has to do, then one
    as it starts, waits for a window and goes on; while the service refuses it, one when it
    begins and one more a minute (``EVERY``) later, however often the bar redraws."""
    now = [0.0]
    lines = PaceLines("paced apply", clock=lambda: now[0])

    def see(figures: str, refusals: int = 0, *, waiting: bool = False) -> None:
        lines.see(figures, refusals=refusals, waiting=waiting, known=figures != "?")
        now[0] += 1

    for figures, refusals, waiting in [("?", 0, False), ("a", 0, False), ("b", 0, False)]:
        see(figures, refusals, waiting=waiting)
    see("c", waiting=True)
    see("d", waiting=True)
    see("e")
    for second in range(EVERY_SECONDS + 5):
        see(f"r{second}", 1 + second // 2)
    saying = [line.split(" UTC ", 1)[1] for line in capsys.readouterr().err.splitlines()]
    assert saying == [
        "paced apply: started: a",
        "paced apply: waiting for the next window: c",
        "paced apply: a new window began, going on: e",
        "paced apply: refused by the service (429 Too Many Requests), retrying: r0",
        f"paced apply: refused by the service (429 Too Many Requests), retrying: r{EVERY_SECONDS}",
    ]


def test_pace_lines_say_a_long_work_is_alive_once_a_minute(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A work that runs on, or walks its lists a minute without knowing what it has to do,
    says it is alive once a minute (``EVERY``): earlier it said nothing until it waited or
    was refused (a 100 s pull on an unlimited plan wrote nothing)."""
    now = [0.0]
    lines = PaceLines("paced pull", clock=lambda: now[0])
    for second in range(2 * EVERY_SECONDS + 5):
        known = second >= EVERY_SECONDS + 30
        lines.see(f"s{second}", refusals=0, waiting=False, known=known)
        now[0] += 1
    saying = [line.split(" UTC ", 1)[1] for line in capsys.readouterr().err.splitlines()]
    assert saying == [
        f"paced pull: started: s{EVERY_SECONDS}",
        f"paced pull: still running: s{2 * EVERY_SECONDS}",
    ]


def test_pace_lines_say_a_window_whose_share_went_by_between_two_redraws(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A window began and its share was let start between two redraws: both saw the work
    waiting, the second in a later window. Its lines say it went on, then waits again (a
    silent log looked as if the work still waited for the window it had used)."""
    lines = PaceLines("paced apply", clock=lambda: 0.0)
    lines.see("a", refusals=0, waiting=False, known=True)
    lines.see("b", refusals=0, waiting=True, known=True)
    lines.see("c", refusals=0, waiting=True, known=True)  # the same window
    lines.see("d", refusals=0, waiting=True, known=True, window=1)
    saying = [line.split(" UTC ", 1)[1] for line in capsys.readouterr().err.splitlines()]
    assert saying == [
        "paced apply: started: a",
        "paced apply: waiting for the next window: b",
        "paced apply: a new window began, going on: d",
        "paced apply: waiting for the next window: d",
    ]


def test_a_works_line_said_before_its_bar_first_redraws_comes_after_its_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A chunked apply's first chunk line can come before its bar's first redraw (a race the
    CI machine lost): the work says it started first, once, and the bar's redraw adds no
    second start."""
    lines = PaceLines("paced apply")
    lines.say("chunk 1 (create_benefit): re-reading 2 calls", "0")
    lines.see("0 of 18", refusals=0, waiting=False, known=True)
    lines.say("chunk 2 (create_benefit): re-reading 2 calls", "9")
    saying = [line.split(" UTC ", 1)[1] for line in capsys.readouterr().err.splitlines()]
    assert saying == [
        "paced apply: started: 0",
        "paced apply: chunk 1 (create_benefit): re-reading 2 calls: 0",
        "paced apply: chunk 2 (create_benefit): re-reading 2 calls: 9",
    ]


def test_each_pace_line_is_written_whole_in_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bar's redraw thread and the work both write lines to one pipe: a line written as
    its text and then its end of line (``print``) let another line in between them (CI saw
    "...end about 10:59 UTC10:59:18 UTC paced apply: chunk 2 ...", then an empty line)."""
    written: list[str] = []
    stream = SimpleNamespace(write=written.append, flush=lambda: None)
    monkeypatch.setattr("sys.stderr", stream)
    lines = PaceLines("paced apply", clock=lambda: 0.0)
    lines.see("0 of 18", refusals=0, waiting=False, known=True)
    lines.say("chunk 2 (create_benefit): re-reading 2 calls", "9")
    lines.see("9 of 18", refusals=0, waiting=True, known=True)
    assert len(written) == 3, written
    assert all(text.endswith("\n") and text.count("\n") == 1 for text in written), written
