"""The append-only action log: what a batch did, one JSON line per step.

Each item writes an ``attempted`` line before its request is sent and a line
with its outcome after the answer arrives, each flushed and fsynced. A re-run
with the same log skips targets that ``succeeded`` or were ``already_done``; a target
whose last line is ``attempted`` was interrupted in flight ("in doubt"), and
the action checks the service before concluding it failed. A line cut short by
a crash is ignored, never fatal.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["ATTEMPTED", "ActionLog", "LogSource", "LogState", "log_state", "opened_log"]

ATTEMPTED = "attempted"
"""Outcome written before a request is sent; never a final outcome."""

DONE = ("succeeded", "already_done")
"""Final outcomes after which the target is in its target state: a re-run skips it."""

_FIELDS = (
    "time",
    "action",
    "target",
    "outcome",
    "status",
    "error_key",
    "message",
    "request_id",
    "resource_id",
)


@dataclass
class LogState:
    """What the log knows about one action: the last line per target."""

    last: dict[str, dict[str, Any]] = field(default_factory=dict)
    succeeded: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Target -> the line that saw it done (``succeeded`` or ``already_done``)."""

    def in_doubt(self, target: str) -> bool:
        """True when a request for ``target`` may have reached the service unanswered:
        the run died after sending it, or it failed without an answer (timeout,
        broken connection), so the service may still have done the work."""
        entry = self.last.get(target)
        if entry is None:
            return False
        outcome = entry.get("outcome")
        return outcome == ATTEMPTED or (outcome == "failed" and entry.get("status") is None)


class ActionLog:
    """An append-only JSON-lines file shared by every run of a batch.

    Safe to use from the worker threads of one batch. Lines carry no request
    bodies and no credentials: only the target key, outcome and service IDs.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._fd: int | None = None

    def __repr__(self) -> str:
        return f"ActionLog({str(self.path)!r})"

    # -- writing -----------------------------------------------------------------

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            # A crash may have left a half-written last line; start on a fresh one.
            if _ends_without_newline(self.path):
                os.write(fd, b"\n")
            self._fd = fd
        return self._fd

    def record(
        self,
        action: str,
        target: str,
        outcome: str,
        *,
        status: int | None = None,
        error_key: str | None = None,
        message: str | None = None,
        request_id: str | None = None,
        resource_id: str | None = None,
    ) -> None:
        """Append one line and make it durable before returning."""
        entry = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "action": action,
            "target": target,
            "outcome": outcome,
            "status": status,
            "error_key": error_key,
            "message": message,
            "request_id": request_id,
            "resource_id": resource_id,
        }
        data = (json.dumps(entry, ensure_ascii=False) + "\n").encode()
        with self._lock:
            fd = self._open()
            os.write(fd, data)  # one O_APPEND write per line: lines never interleave
        os.fsync(fd)

    def close(self) -> None:
        """Release the file handle; safe to call twice.

        Every line is already fsynced by :meth:`record`, so closing loses
        nothing, and a later ``record`` simply reopens the file.
        """
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> ActionLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- reading -----------------------------------------------------------------

    def entries(self) -> list[dict[str, Any]]:
        """Every complete line, oldest first; unreadable (truncated) lines are skipped."""
        if not self.path.exists():
            return []
        found = []
        with self.path.open("rb") as handle:
            for raw in handle:
                try:
                    entry = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(entry, dict) and "target" in entry and "outcome" in entry:
                    found.append(entry)
        return found

    def state(self, action: str) -> LogState:
        """The last line and the line that saw it done (if any) of each target of ``action``."""
        state = LogState()
        for entry in self.entries():
            if entry.get("action") != action:
                continue
            target = str(entry["target"])
            state.last[target] = entry
            if entry["outcome"] in DONE:
                state.succeeded[target] = entry
        return state

    def frame(self) -> pd.DataFrame:
        """The log as a DataFrame (one row per line), e.g. to show what a run did."""
        rows = self.entries()
        frame = pd.DataFrame(rows, columns=list(_FIELDS))
        frame["status"] = frame["status"].astype("Int64")
        frame["time"] = pd.to_datetime(frame["time"], utc=True)
        return frame


def _ends_without_newline(path: Path) -> bool:
    size = path.stat().st_size
    if size == 0:
        return False
    with path.open("rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) != b"\n"


LogSource = ActionLog | str | os.PathLike[str]
"""An ``ActionLog``, or the path of one."""


def log_state(log: LogSource | None, action: str) -> LogState:
    """What ``log`` knows about ``action`` (nothing without a log)."""
    if log is None:
        return LogState()
    return (log if isinstance(log, ActionLog) else ActionLog(log)).state(action)


@contextmanager
def opened_log(log: LogSource | None) -> Iterator[ActionLog | None]:
    """The log to write to, or ``None``; one opened here from a path is closed afterwards."""
    if log is None or isinstance(log, ActionLog):
        yield log
        return
    action_log = ActionLog(log)
    try:
        yield action_log
    finally:
        action_log.close()
