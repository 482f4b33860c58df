"""A ``--db`` sandbox keeps its call budget across restarts: the plan in force, the hour's
count and the billing cycle's, within ``SAVE_EVERY - 1`` calls after a kill -9; and the
clock that places them."""

from __future__ import annotations

import json
import signal
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.clock import parse_instant
from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS, DEMO_PROGRAM, SandboxCredentials
from lyt_toolkit.sandbox.quota_ledger import SAVE_EVERY, UnreadableBudget
from lyt_toolkit.sandbox.store import Store

from .serving import KEYS, serve_refused, served
from .test_quota import PROJECTS, management

NOW = "2026-01-15T12:00:00Z"


def _calls(sb: Sandbox, count: int) -> None:
    """``count`` counted calls, each let through."""
    with management(sb) as api:
        assert [api.get(PROJECTS).status_code for _ in range(count)] == [200] * count


def _window_and_cycle(plan: dict[str, Any]) -> tuple[str, int, int]:
    return plan["plan"], plan["used"], plan["cycle_used"]


def test_a_restart_takes_up_the_plan_set_and_both_counts(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, now=NOW, seed=7) as sb:
        sb.set_plan("free", cycle_used=400)
        _calls(sb, 30)
        before = sb.plan()
    assert _window_and_cycle(before) == ("free", 30, 430)
    with Sandbox.start(db=db, now=NOW, seed=7) as sb:
        assert sb.plan() == before
        with management(sb) as api:
            answer = api.get(PROJECTS)
        assert answer.headers["x-rate-limit-remaining"] == "69"
        assert sb.plan()["cycle_used"] == 431


def test_a_restart_in_a_later_hour_or_month_starts_that_one_fresh(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, now=NOW, seed=7) as sb:
        sb.set_plan("startup", cycle_used=9_000)
        _calls(sb, 12)
    with Sandbox.start(db=db, now="2026-01-31T23:59:00Z", seed=7) as sb:
        assert _window_and_cycle(sb.plan()) == ("startup", 0, 9_012)
        _calls(sb, 3)
    with Sandbox.start(db=db, now="2026-02-01T00:00:00Z", seed=7) as sb:
        shown = sb.plan()
    assert _window_and_cycle(shown) == ("startup", 0, 0)
    assert shown["cycle_resets_at"] == "2026-03-01T00:00:00.000Z"


def test_a_restart_with_another_plan_puts_it_in_force_and_keeps_the_cycle(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, now=NOW, seed=7, plan="free") as sb:
        sb.set_plan("free", cycle_used=100)
        _calls(sb, 10)
    with Sandbox.start(db=db, now=NOW, seed=7, plan="startup") as sb:
        assert _window_and_cycle(sb.plan()) == ("startup", 0, 110)
        sb.set_plan("growth", cycle_used=50)
    with Sandbox.start(db=db, now=NOW, seed=7, plan="startup") as sb:
        assert _window_and_cycle(sb.plan()) == ("growth", 0, 50)
        sb.reset()
        assert _window_and_cycle(sb.plan()) == ("startup", 0, 0)
    with Sandbox.start(db=db, now=NOW, seed=7, plan="startup") as sb:
        assert _window_and_cycle(sb.plan()) == ("startup", 0, 0)


def _served_plan(base_url: str) -> dict[str, Any]:
    answer = httpx.get(f"{base_url}/_sandbox/plan", headers=KEYS, timeout=30, verify=TLS)
    assert answer.status_code == 200, answer.text
    plan: dict[str, Any] = answer.json()
    return plan


def _served_calls(base_url: str, count: int) -> None:
    _calls(Sandbox(base_url, SandboxCredentials(**DEFAULT_CREDENTIALS)), count)


def test_a_kill_loses_fewer_than_save_every_calls_and_a_stop_none(tmp_path: Path) -> None:
    """A plan set is saved at once; counted calls every ``SAVE_EVERY``, with any write of
    data, and when the server stops (SIGTERM)."""
    db = str(tmp_path / "sandbox.sqlite")
    args = ("--db", db, "--now", NOW, "--seed", "7", "--plan", "free")
    made = 2 * SAVE_EVERY + 7
    with served(*args) as (base_url, proc):
        put = httpx.put(
            f"{base_url}/_sandbox/plan",
            json={"plan": "growth", "cycle_used": 1000},
            headers=KEYS,
            timeout=30,
            verify=TLS,
        )
        assert put.status_code == 200, put.text
        _served_calls(base_url, made)
        proc.send_signal(signal.SIGKILL)
    with served(*args) as (base_url, proc):
        shown = _served_plan(base_url)
        assert shown["plan"] == "growth"
        assert made - SAVE_EVERY < shown["used"] <= made
        assert made - SAVE_EVERY < shown["cycle_used"] - 1000 <= made
        kept = shown["cycle_used"]
        _served_calls(base_url, 3)
        token = httpx.post(
            f"{base_url}/oauth/token",
            data={"grant_type": "client_credentials", "scope": "loyalties"},
            headers=KEYS,
            timeout=30,
            verify=TLS,
        )
        assert token.status_code == 200  # a write of data: it carries the count
        proc.send_signal(signal.SIGKILL)
    with served(*args) as (base_url, proc):
        assert _served_plan(base_url)["cycle_used"] == kept + 4
        _served_calls(base_url, 2)
        proc.terminate()  # a stop: the server commits the counts as it shuts down
        proc.wait(timeout=30)
    assert json.loads(_budget_row(db))["cycle_used"] == kept + 6


def _budget_row(db: str) -> str:
    with closing(sqlite3.connect(db)) as conn:
        row: str = conn.execute("SELECT value FROM meta WHERE key = 'budget'").fetchone()[0]
    return row


def _spoil(db: str, row: str) -> None:
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'budget'", (row,))


@pytest.mark.parametrize(
    ("row", "named"),
    [
        ("[]", "not a JSON object"),
        ('{"plan": "free"}', "started_with: missing"),
        (
            '{"plan": "gold", "started_with": "free", "window_start": 0, "window_used": 0,'
            ' "cycle_start": null, "cycle_used": 0}',
            "plan: 'gold' is not a plan",
        ),
        (
            '{"plan": "free", "started_with": "free", "window_start": 0, "window_used": 0,'
            ' "cycle_start": null, "cycle_used": -3}',
            "cycle_used: must not be negative",
        ),
    ],
)
def test_a_budget_row_that_is_not_one_is_refused_naming_the_field(
    tmp_path: Path, row: str, named: str
) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, now=NOW, seed=7) as sb:
        sb.set_plan("free")
    _spoil(db, row)
    with pytest.raises(UnreadableBudget, match=named) as refused, Sandbox.start(db=db, now=NOW):
        pass
    assert str(refused.value).startswith(f"--db {db}: its call budget (meta 'budget')")


def test_serve_refuses_an_unreadable_budget_row_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, now=NOW, seed=7) as sb:
        sb.set_plan("free")
    _spoil(db, "not json")
    assert serve_refused(monkeypatch, capsys, "--db", db) == (
        f"lyt sandbox serve: --db {db}: its call budget (meta 'budget') is unreadable:"
        " not JSON; delete that row, or the file, to start afresh\n"
    )


def test_the_budgets_quick_commit_leaves_the_data_commits_waiting_for_the_disk(
    tmp_path: Path,
) -> None:
    store = Store(str(tmp_path / "sandbox.sqlite"))
    synchronous = store.query("PRAGMA synchronous")[0][0]
    store.stage_meta("budget", "{}")
    store.save_staged(flush=False)
    assert store.get_meta("budget") == "{}"
    assert store.query("PRAGMA synchronous")[0][0] == synchronous == 2  # FULL
    store.close()


def _served_clock(base_url: str) -> dict[str, Any]:
    answer = httpx.get(f"{base_url}/_sandbox/clock", headers=KEYS, timeout=30, verify=TLS)
    assert answer.status_code == 200, answer.text
    clock: dict[str, Any] = answer.json()
    return clock


def _advance(base_url: str, seconds: float) -> None:
    answer = httpx.post(
        f"{base_url}/_sandbox/clock/advance",
        json={"seconds": seconds},
        headers=KEYS,
        timeout=30,
        verify=TLS,
    )
    assert answer.status_code == 200, answer.text


def test_a_restart_without_now_takes_up_the_clock_and_its_windows_count(
    tmp_path: Path,
) -> None:
    """Served on its ``--db`` again, with the program's ``now`` (12:00) and no ``--now``,
    the sandbox's clock is where it was (not back at 12:00, the window's calls given back);
    another program file on the file does not move it either."""
    db = str(tmp_path / "sandbox.sqlite")
    args = ("--db", db, "--plan", "professional")
    with served(*args) as (base_url, _):
        _served_calls(base_url, 4)
        _advance(base_url, 3600 + 1800)  # 13:30, a window of its own
        _served_calls(base_url, 3)
        assert _served_plan(base_url)["remaining"] == 4997
    with served(*args) as (base_url, _):
        assert _served_clock(base_url) == {"now": "2026-01-15T13:30:00.000Z", "fixed": True}
        assert _window_and_cycle(_served_plan(base_url)) == ("professional", 3, 7)
        _advance(base_url, 600)
    later = tmp_path / "later.json"
    later.write_text(
        json.dumps({**json.loads(DEMO_PROGRAM.read_text()), "now": "2026-03-01T00:00Z"})
    )
    with served(*args, "--data", str(later)) as (base_url, _):
        assert _served_clock(base_url)["now"] == "2026-01-15T13:40:00.000Z"
        assert _served_plan(base_url)["remaining"] == 4997


def test_a_running_clock_keeps_its_offset_across_a_restart(tmp_path: Path) -> None:
    """A program without ``now``: the clock runs, two days ahead after the advance, and is
    still ahead after a restart (not back at wall time)."""
    db = str(tmp_path / "sandbox.sqlite")
    program = {k: v for k, v in json.loads(DEMO_PROGRAM.read_text()).items() if k != "now"}
    with Sandbox.start(data=program, db=db, seed=7) as sb:
        sb.advance_clock(2 * 86400)
    ahead = datetime.now(UTC) + timedelta(days=2, seconds=-1)  # the offset to the millisecond
    with Sandbox.start(data=program, db=db, seed=7) as sb:
        assert _served_clock(sb.base_url)["fixed"] is False
        assert parse_instant(sb.now()) >= ahead


def test_a_fixed_clock_comes_back_to_the_millisecond(tmp_path: Path) -> None:
    """Far on, epoch seconds as a float lose the last millisecond; the instant does not."""
    db = str(tmp_path / "sandbox.sqlite")
    far = "8999-12-31T23:59:59.999Z"
    with Sandbox.start(db=db, seed=7) as sb:
        sb.set_clock(far)
    with Sandbox.start(db=db, seed=7) as sb:
        assert sb.now() == far
