"""The action log: durable JSON lines, tolerant of a line cut short by a crash, with one
writer at a time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lyt_toolkit import _lock, actions
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.actions.lock import LockHeldError, held, lock_path
from lyt_toolkit.actions.log import ATTEMPTED, LogFileError, LogOwner
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client.allowance import WindowCalls


def test_lines_are_appended_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with ActionLog(path) as log:
        log.record("create_benefit", "A", ATTEMPTED)
        log.record("create_benefit", "A", "succeeded", resource_id="lben_1")
        log.record("create_benefit", "B", ATTEMPTED)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["outcome"] for line in lines] == [ATTEMPTED, "succeeded", ATTEMPTED]
    assert set(lines[0]) >= {"time", "action", "target", "outcome", "status", "request_id"}
    state = ActionLog(path).state("create_benefit")
    assert set(state.succeeded) == {"A"}
    assert state.in_doubt("B") and not state.in_doubt("A")
    assert ActionLog(path).state("delete_webhook").last == {}


def test_a_failure_without_an_answer_stays_in_doubt(tmp_path: Path) -> None:
    log = ActionLog(tmp_path / "run.jsonl")
    log.record("a", "timeout", "failed", error_key="api_timeout_error")
    log.record("a", "refused", "failed", status=409, error_key="duplicate_found")
    state = log.state("a")
    assert state.in_doubt("timeout") and not state.in_doubt("refused")


def test_truncated_last_line_is_ignored_and_not_glued_to_the_next(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with ActionLog(path) as log:
        log.record("a", "one", "succeeded")
    with path.open("a") as handle:
        handle.write('{"time": "2026-01-15T12:00:00Z", "action": "a", "tar')  # crash mid-write
    log = ActionLog(path)
    assert [e["target"] for e in log.entries()] == ["one"]
    log.record("a", "two", "succeeded")
    log.close()
    assert [e["target"] for e in ActionLog(path).entries()] == ["one", "two"]
    assert len(ActionLog(path).frame()) == 2


def test_a_log_is_never_appended_to_through_a_symbolic_link(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    """A link at the log's path could name any file (a user's notes, a dotfile): the batch is
    refused naming the path before anything is sent, the file it names untouched, and a
    dangling link makes no file."""
    notes = tmp_path / "notes.txt"
    notes.write_text("someone's notes\n", encoding="utf-8")
    log, dangling = tmp_path / "run.jsonl", tmp_path / "other.jsonl"
    log.symlink_to(notes)
    dangling.symlink_to(tmp_path / "made.txt")
    refusal = "is a symbolic link; a JSON-lines action log is appended to only in place, never"
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001"])
    with pytest.raises(LogFileError) as refused:
        plan.execute(client, log=log, progress=False)
    assert str(refused.value).startswith(f"{log}: {refusal}")
    assert client.rewards.get("lrew_c0ffee0001").status == "ACTIVE"  # nothing sent
    with pytest.raises(LogFileError, match=refusal):
        ActionLog(dangling).record("a", "one", ATTEMPTED)
    assert notes.read_text(encoding="utf-8") == "someone's notes\n"
    assert not (tmp_path / "made.txt").exists()


def test_a_log_is_never_appended_to_through_a_hard_link(tmp_path: Path) -> None:
    """A hard link at the log's path is one file of two names (``ln notes.txt run.jsonl``):
    ``O_NOFOLLOW`` stops symbolic links only, and the log's lines were appended to the notes.
    It is refused naming the path, the file untouched."""
    notes = tmp_path / "notes.txt"
    notes.write_text("someone's notes\n", encoding="utf-8")
    log = tmp_path / "run.jsonl"
    os.link(notes, log)
    with pytest.raises(LogFileError) as refused:
        ActionLog(log).record("a", "one", ATTEMPTED)
    assert str(refused.value).startswith(f"{log}: is a hard link (one of 2 names of one file);")
    assert notes.read_text(encoding="utf-8") == "someone's notes\n"


def test_a_pipe_for_a_log_is_refused_neither_written_nor_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a reader: a write would not wait
    try:
        with pytest.raises(LogFileError) as refused:
            ActionLog(path).record("a", "one", ATTEMPTED)
        assert str(refused.value) == f"{path}: is a pipe or a device, not a JSON-lines action log"
        with pytest.raises(LogFileError, match="is a pipe or a device"):
            ActionLog(path).entries()
    finally:
        os.close(reader)


def test_a_log_has_one_writer_and_a_killed_writer_never_blocks_it(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    """Another process holding the log's lock refuses the batch before anything is sent,
    naming it; once that process is killed (SIGKILL: no chance to clean up), the lock it
    left is taken over and the batch runs (issue 33, item 4)."""
    log = tmp_path / "run.jsonl"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from lyt_toolkit.actions.lock import held\n"
            f"with held({str(log)!r}, 'is being written'):\n"
            "    print('held', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    plan = actions.move_rewards_to_draft(["lrew_c0ffee0001"])
    with pytest.raises(LockHeldError) as refused:
        plan.execute(client, log=log, progress=False)
    message = str(refused.value)
    assert message.startswith(f"{log} is being written by another process (pid {holder.pid} on ")
    assert refused.value.holder["pid"] == holder.pid
    assert client.rewards.get("lrew_c0ffee0001").status == "ACTIVE"  # nothing sent

    holder.kill()
    holder.communicate()  # waits, and closes its pipes
    assert lock_path(log).exists()  # left behind by the killed holder
    assert list(plan.execute(client, log=log, progress=False)["outcome"]) == ["succeeded"]
    assert not lock_path(log).exists()


def test_a_writer_refused_before_the_holder_wrote_its_record_still_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A holder writes its record just after taking the lock: a writer refused in between
    waits for the record and names the holder (CI: "its holder not recorded yet", where the
    test of two applies at once expected the pid)."""
    monkeypatch.setattr(_lock, "RECORD_WAIT", 30.0, raising=False)  # its pause, many times
    log = tmp_path / "run.jsonl"
    record = {"pid": 4242, "host": "elsewhere", "started": "2026-12-06T00:00:00Z"}
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(lock_path(log))!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('locked', flush=True); time.sleep(0.3)\n"
            f"os.write(fd, {json.dumps(record) + chr(10)!r}.encode()); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        with pytest.raises(LockHeldError) as refused, held(log, "is being written"):
            pass
    finally:
        holder.communicate("")
    assert "(pid 4242 on elsewhere, started 2026-12-06T00:00:00Z)" in str(refused.value)
    assert refused.value.holder == record


def test_the_thread_holding_a_lock_may_take_it_again_another_thread_may_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "plan.json"
    refused: list[BaseException] = []

    def other() -> None:
        try:
            with held(path, "is being applied"):
                pass
        except LockHeldError as exc:
            refused.append(exc)

    with held(path, "is being applied"), held(path, "is being applied"):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert len(refused) == 1 and f"pid {os.getpid()}" in str(refused[0])
    assert not lock_path(path).exists()
    with held(path, "is being applied"):  # released: free again
        pass


def test_a_log_of_the_same_service_spelled_another_way_is_its_own(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    """A log claimed by a client of ``127.0.0.1`` is the log of a client of ``localhost`` at
    the same port and project (one service); another port or project is refused."""
    owner = LogOwner.of(client)
    assert owner.service.startswith("http://127.0.0.1:")
    spelled = LogOwner(owner.service.replace("127.0.0.1", "localhost"), owner.project)
    with ActionLog(tmp_path / "log.jsonl") as log:
        log.claim(owner)
        assert log.check(spelled) == owner
        port = owner.service.rsplit(":", 1)[1]
        for other in (
            LogOwner(owner.service.replace(port, "9"), owner.project),
            LogOwner(spelled.service, "another-project"),
        ):
            with pytest.raises(actions.ForeignLogError, match="belongs to"):
                log.check(other)


def test_a_window_said_over_counts_the_writes_after_it_in_the_next_window(
    tmp_path: Path,
) -> None:
    """A paced run that left a window for one no answer named yet writes a line saying the
    last one is over: the writes attempted before it count in that window, those after it in
    the next (a run resumed there takes them as sent in it), not both in the first."""
    log = ActionLog(tmp_path / "paced.jsonl")
    now = WindowCalls(ends=1_000.0, limit=20, sent=4, held=19)
    told: list[WindowCalls | None] = [now]
    with log.noting(lambda: told[-1]) as note:
        note()
        log.record("create_benefit", "a", ATTEMPTED)  # the 5th call of the first window
        told.append(None)  # the window reset; no answer of the next yet
        log.record("create_benefit", "b", ATTEMPTED)
        log.record("create_benefit", "c", ATTEMPTED)
    assert log.earlier(1_000.0, 20).sent == 5
    assert log.earlier(1_060.0, 20).sent == 2
    assert log.earlier(1_000.0, 20).held == 19
    told.append(WindowCalls(ends=1_060.0, limit=20, sent=3, held=None))  # then named
    with log.noting(lambda: told[-1]):
        log.record("create_benefit", "d", ATTEMPTED)
    assert log.earlier(1_060.0, 20).sent == 4  # its line (3), then d
    assert [e["target"] for e in log.entries()] == ["a", "b", "c", "d"]  # items only
