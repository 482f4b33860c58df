"""A ``--db`` file's clock row (meta ``clock_seen``) edited by hand is refused at the start,
naming the file, the field and the way out (``--now``), in one line from ``lyt sandbox
serve`` (exit 2, no traceback); served with ``--now`` the row is written again."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from lyt_toolkit.cli import main
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.clock_seen import UnreadableClock

from .serving import serve_refused

NOW = "2026-01-15T12:00:00Z"
LATER = "2026-01-15T13:30:00.000Z"


@pytest.fixture(scope="module")
def served_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``--db`` file a sandbox served and stopped, its clock moved to ``LATER``."""
    db = tmp_path_factory.mktemp("served") / "sandbox.sqlite"
    with Sandbox.start(db=str(db), now=NOW, seed=7) as sb:
        sb.set_clock(LATER)
    return db


def _damaged(served_once: Path, tmp_path: Path, row: str) -> str:
    """A copy of ``served_once`` whose clock row is ``row``."""
    db = tmp_path / "sandbox.sqlite"
    shutil.copy(served_once, db)
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'clock_seen'", (row,))
    return str(db)


@pytest.mark.parametrize(
    ("row", "named"),
    [
        ("noon", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"at": null, "offset": null}', r"seen: missing \(epoch seconds\)"),
        ('{"seen": "soon", "offset": null}', "seen: 'soon' is not a number of seconds"),
        ('{"seen": true, "offset": null}', "seen: True is not a number of seconds"),
        ('{"seen": 1e300, "offset": null}', "seen: 1e\\+300 is not an instant"),
        ('{"seen": 0, "at": "noon", "offset": null}', "at: 'noon' is not an ISO 8601 instant"),
        ('{"seen": 0, "at": 5, "offset": null}', "at: 5 is not an ISO 8601 instant"),
        ('{"seen": 0, "offset": "x"}', "offset: 'x' is not a number of seconds"),
        ('{"seen": 0, "offset": 1e300}', r"offset: 1e\+300 seconds is out of range"),
    ],
)
def test_a_clock_row_that_is_not_one_is_refused_naming_the_field(
    served_once: Path, tmp_path: Path, row: str, named: str
) -> None:
    db = _damaged(served_once, tmp_path, row)
    with pytest.raises(UnreadableClock, match=named) as refused, Sandbox.start(db=db):
        pass
    assert str(refused.value).startswith(f"--db {db}: its clock (meta 'clock_seen') is unreadable")


def test_serve_refuses_a_damaged_clock_row_in_one_line_saying_to_start_with_now(
    served_once: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = _damaged(served_once, tmp_path, '{"seen": "soon", "at": null, "offset": null}')
    assert serve_refused(monkeypatch, capsys, "--db", db) == (
        f"lyt sandbox serve: --db {db}: its clock (meta 'clock_seen') is unreadable: seen:"
        " 'soon' is not a number of seconds; serve it with --now to set the clock afresh (the"
        " row is written again), or delete the file to start afresh\n"
    )


def test_served_with_now_a_damaged_clock_row_is_written_again(
    served_once: Path, tmp_path: Path
) -> None:
    db = _damaged(served_once, tmp_path, '{"seen": "soon", "at": null, "offset": null}')
    with Sandbox.start(db=db, now=NOW) as sb:
        assert sb.now() == "2026-01-15T12:00:00.000Z"
        sb.set_clock(LATER)
    with Sandbox.start(db=db) as sb:  # without --now: the clock where it was left
        assert sb.now() == LATER


def test_the_help_of_now_says_a_restart_keeps_the_clock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["sandbox", "serve", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "a restart on the same --db keeps the clock where it was" in said, said
