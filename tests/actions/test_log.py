"""The action log: durable JSON lines, tolerant of a line cut short by a crash."""

from __future__ import annotations

import json
from pathlib import Path

from lyt_toolkit.actions import ActionLog
from lyt_toolkit.actions.log import ATTEMPTED


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
