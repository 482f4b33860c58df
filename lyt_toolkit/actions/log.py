"""The append-only action log: what a batch did, one JSON line per step.

Each item writes an ``attempted`` line before its request is sent and a line
with its outcome after the answer arrives, each flushed and fsynced. A re-run
with the same log skips targets that ``succeeded`` or were ``already_done``; a target
whose last line is ``attempted`` was interrupted in flight ("in doubt"), and
the action reads the service before sending it again. A line cut short by
a crash is ignored, never fatal.

A run marks the ``failed`` line of a write the service refused for good (``final``: a
refusal the spec ties to the state of what the write addresses, which sending it again does
not change: ``_runner.REFUSED_FOR_GOOD``); a re-run with the log does not send it again, its
result still the refusal (``LogState.refused``). A saved plan's refusal is its plan file's
(the plan lines below): a new plan file sends it again. An unsaved plan has no file: its
refusal's line holds the key of the write refused (``write``: a sha256 of the action, the
target and the values sent, ``_write_key``), and it is not sent again by a run of any
unsaved plan whose item for that target is the same write (the same plan resumed, or
another holding it; each write refused there counts, not only the last), while an item
writing other values there is another write and is sent (``LogState.refusing``). Nothing in
the items tells a resume from the same plan made again after what refused it was put right:
the same write then goes out only once the log says so.
A line saying the plan is made again from the live state (``RECONSIDERED``:
``apply(refresh=True)``, or ``reconsider()`` called on the log) ends that: the refusals
before it are sent again, once. A run with a log read as reconsidered
(``as_reconsidered``; a refresh's) writes that line just before its first write's
``attempted`` line, so a run that ends before sending any write (refused, cancelled, its log
held by another writer, failed) leaves the refusals standing, not reconsidered for the next.
A saved plan never takes an unsaved run's refusal for its own, nor an unsaved plan a saved
plan's (each sends it again).

A log belongs to one service and project: the first ``execute`` with it writes an
owner line (the service's public URL and the application ID, no secret), and a
client of another service or project is refused it (``ForeignLogError``) before
anything is read from it or sent, since what the log shows done there is not done here.
A sandbox's log names the instance of its state too (``_services.held_instance``: a
sandbox always has the same application ID, and one started again on the same port with
the same program and seed holds none of the writes of the first, unless it is served from
the same database file): a sandbox holding another instance is refused the log, after one
token request when the client has heard nothing from it yet (its answer names the state).
A log that names no state (written before logs did, or on the service itself) is taken
as before; the run that takes it on a sandbox names the sandbox's state from then on.

A log has one writer at a time: ``execute`` holds its lock (``lock.held``, the file
``<log>.lock``) while it runs, and another process writing it meanwhile is refused with
``LockHeldError`` naming the holder; a killed writer's lock is released with its process.

A log is appended to in place only: a symbolic link at its path is refused, not followed (it
could name any file), as are a hard link (a file of more than one name: its other names would
change too), a folder, a pipe or a device (``LogFileError`` naming it); a pipe or a device is
not read either.

A saved plan's apply binds the log to its plan file: before its first line it writes a plan
line (``PLAN``, the file's sha256) and reads, of the item lines, only those after a plan line
of its own file (and those before any plan line: an older toolkit's, or another batch's), so
a new plan saved at the same path (whose default log, ``PLAN.log.jsonl``, is the old one's)
is neither skipped as done nor spared its re-read by what another plan's run did there, while
each plan's own lines still resume it (``ActionLog(path, plan=SHA256)``). A run of an
unsaved plan (``ChangePlan.apply``, ``ActionPlan.execute``) into a log a saved plan wrote to
writes a plan line of its own (``plan`` null) first: its lines are no saved plan's, so a saved
plan resumed there is not skipped past what the unsaved run did.

A paced run (``execute(paced=True)``) also writes window lines: what the plan's runs spent of
the budget window the last one was in (``fill.window_ledger``, as a paced pull's manifest holds
it), so a run resumed in that window, or the next part of a change plan, keeps to the share
taken there instead of taking a new one of what is left. Each ``attempted`` line after the last
window line counts as one call sent in its window, so a window line is written once a window (or
a change of what it holds), and again only when the lines would count fewer calls than were sent
there (``_told``: a call no item line stands for), not once a call; a run killed (``kill -9``)
leaves none of its writes uncounted. An item's every request (a read back, the write, a retry)
has an ``attempted`` line, written once its call is counted and before it goes out, and a window
line's count is read under the lock item lines are written under, so no call is left out (one
counted in both errs towards the share). A token request an item's call waits for (the token
renewed mid-run) is the client's, not the item's: it has a token line instead (``TOKEN_SENT``,
no target), counted in the window as an ``attempted`` line is, so the item is attempted once
for its one write, and not in doubt should the run stop before that write goes out. The first
``attempted`` (or token) line of a new window has a window line of it written before it, or,
while no answer has named that window yet, a line saying the last one's window is over
(``WINDOW_OVER``): the lines after it count in the next window, not that one. A call no item
line stands for (a saved plan's re-read) has a window line written before it goes out
(``actions.paced``). Item readers skip window and token lines.

An apply reads its log many times (each owner check, each part's state and window); it reads it
whole once (``reading_once``, and while ``opened_log`` holds its lock), then only the lines
appended since, so a long-lived log costs it one read however many parts it has. The lines
read so far are kept as what they say (the owner, the last plan line, each action's
``LogState``, the window lines), not the lines themselves. A file replaced or cut since is read
whole again, as is a log whose last line a crash cut short yet reads as an object (until the
next line appended ends it).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from .._json_file import open_append, open_regular
from .._services import held_instance, local_holds, same_address
from .._url import public_url
from ..client.allowance import WindowCalls
from ..errors import LytError
from ..fill.window_ledger import (
    earlier_calls,
    entry_of,
    entry_problem,
    later,
    recorded_window,
)
from ._write_key import write_key
from .items import PlanItem
from .lock import held

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = [
    "ATTEMPTED",
    "ActionLog",
    "ForeignLogError",
    "LogFileError",
    "LogOwner",
    "LogSource",
    "LogState",
    "log_state",
    "opened_log",
    "reading_once",
    "refuse_foreign",
]

ATTEMPTED = "attempted"
"""Outcome written before a request is sent; never a final outcome."""

DONE = ("succeeded", "already_done")
"""Final outcomes after which the target is in its target state: a re-run skips it."""

OWNER = "lyt-action-log/1"
"""The ``log`` key of the owner line: the service and project a log belongs to."""
PLAN = "lyt-action-plan/1"
"""The ``log`` key of a plan line: the item lines after it are of the run of the plan file
whose bytes hash to its ``plan`` (null: of an unsaved plan's run, no plan file's)."""
_NONE = object()
"""The plan of the lines before any plan line: every run's."""
WINDOW = "lyt-action-window/1"
"""The ``log`` key of a window line: what a paced plan's runs spent of a budget window."""
TOKEN_SENT = "lyt-action-token/1"
"""The ``log`` key of a line written before a token request an item's call waited for goes
out: the client's request, not the item's (it is not ``attempted``, nor left in doubt by
it), yet a call of the window, counted there as an ``attempted`` line is."""
WINDOW_OVER = "lyt-action-window-over/1"
"""The ``log`` key of a line saying the window the last window line is of is over: the
``attempted`` lines after it are of the next, no answer of which has named it yet."""
WRITE = "write"
"""The key of an unsaved plan's refusal for good: the sha256 of the write refused
(``_write_key.write_key``)."""
RECONSIDERED = "lyt-action-reconsidered/1"
"""The ``log`` key of a line saying the writes refused for good before it are to be sent
again (the plan was made again from the live state)."""
_RECONSIDERED_LINE = (json.dumps({"log": RECONSIDERED}) + "\n").encode()

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

_WHAT = "JSON-lines action log"
"""What a refusal says a log is."""


class ForeignLogError(LytError, ValueError):
    """An action log written against another service or project than the client's."""


class LogFileError(LytError, OSError):
    """An action log (or the re-read kept beside it, ``kept_reads``) that cannot be read or
    appended to: a pipe or a device in its place, a folder or a symbolic link (appending), or
    a file that cannot be opened."""


@dataclass(frozen=True)
class LogOwner:
    """The service (its public base URL) and project (application ID) a log belongs to, and
    for a sandbox the instance of its state (``_services.held_instance``; None unknown)."""

    service: str
    project: str | None = None
    instance: str | None = None

    @classmethod
    def of(cls, client: LoyaltyClient) -> LogOwner:
        """The service and project ``client`` talks to, and the instance of the state of a
        sandbox this process serves there or the client heard from (no call sent)."""
        holds = local_holds(str(client.base_url)) or client._service_holds
        instance = None if holds is None else held_instance(holds)
        return cls(public_url(client.base_url), client.config.app_id, instance)

    def __str__(self) -> str:
        return f"{self.service} (project {self.project or 'unknown'})"

    def same(self, other: LogOwner) -> bool:
        """Whether ``other`` is this owner: one project of one service, however a loopback
        host of its address is spelled (``localhost``, ``127.0.0.1``, ``[::1]``), and one
        state of a sandbox when both name theirs."""
        return self.same_service(other) and not self.other_state(other)

    def same_service(self, other: LogOwner) -> bool:
        """Whether ``other`` is this owner's project of its service, whatever its state."""
        return self.project == other.project and same_address(self.service, other.service)

    def other_state(self, other: LogOwner) -> bool:
        """Whether this owner and ``other`` name two states of a sandbox."""
        return None not in (self.instance, other.instance) and self.instance != other.instance


@dataclass
class LogState:
    """What the log knows about one action: the last line per target."""

    last: dict[str, dict[str, Any]] = field(default_factory=dict)
    succeeded: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Target -> the line that saw it done (``succeeded`` or ``already_done``)."""
    refused: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Target -> its last line when that is a refusal for good (``final``): not sent again
    (of a log read for a saved plan, only its own; for an unsaved one, see ``refusing``)."""
    refused_writes: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Target -> the ``write`` key -> the line of every write an unsaved plan's run saw
    refused for good there since the last ``RECONSIDERED`` line, not only the last one
    (read for no plan file only)."""

    def refusing(self, action: str, items: Iterable[PlanItem[Any]]) -> LogState:
        """This state with, of its refusals for good, only those of an unsaved plan's run that
        refused the very write of one of ``items`` (``action``'s: its ``write`` key), however
        many other writes were refused there since: another write to that target, or a saved
        plan's refusal, is sent."""
        refused = {}
        for item in items:
            writes = self.refused_writes.get(item.target)
            line = None if writes is None or item.error else writes.get(write_key(action, item))
            if line is not None:
                refused[item.target] = line
        return LogState(self.last, self.succeeded, refused, self.refused_writes)

    def in_doubt(self, target: str) -> bool:
        """True when a request for ``target`` may have reached the service unanswered:
        the run died after sending it, or it failed without an answer (timeout,
        broken connection), so the service may still have done the work."""
        entry = self.last.get(target)
        if entry is None:
            return False
        outcome = entry.get("outcome")
        return outcome == ATTEMPTED or (outcome == "failed" and entry.get("status") is None)


class _Binding:
    """Which item lines a log of ``plan`` reads, line by line (see ``ActionLog.entries``)."""

    def __init__(self, plan: str | None) -> None:
        self.plan = plan
        self.of: object = _NONE
        """The plan of the last plan line read (_NONE: none read; None: an unsaved plan's)."""

    def counts(self, line: dict[str, Any]) -> bool:
        """Whether ``line`` is an item line the log reads (a plan line is noted, not one)."""
        if line.get("log") == PLAN:
            self.of = line.get("plan")
            return False
        return "target" in line and "outcome" in line and self.reading

    @property
    def reading(self) -> bool:
        """Whether the lines here (after the last plan line) are the log's to read."""
        return self.plan is None or self.of in (_NONE, self.plan)


class _Index:
    """What the lines of a log read so far say, line by line: its owner line, its last plan
    line, each action's ``LogState``, its window lines (``ActionLog._window_lines``); and
    where its read stopped (``end``, after the last complete line; ``file``, the file read)."""

    def __init__(self, plan: str | None) -> None:
        self.binding = _Binding(plan)
        self.owner: dict[str, Any] | None = None
        self.states: dict[str, LogState] = {}
        self.window: tuple[dict[str, Any] | None, int, int | None] = (None, 0, None)
        self.end = 0
        self.file: tuple[int, int] | None = None

    def add(self, line: dict[str, Any]) -> None:
        """Take ``line``, the next line of the log, into account."""
        if line.get("log") == OWNER:
            self.owner = line
        action = line.get("action")
        if self.binding.counts(line) and isinstance(action, str):
            state = self.states.setdefault(action, LogState())
            target = str(line["target"])
            state.last[target] = line
            if line["outcome"] in DONE:
                state.succeeded[target] = line
            final = line["outcome"] == "failed" and line.get("final") is True
            if final and self.binding.plan is None and WRITE in line:
                state.refused_writes.setdefault(target, {})[str(line[WRITE])] = line
            if final and (self.binding.plan is None or WRITE not in line):
                state.refused[target] = line  # read for a saved plan: never an unsaved run's
            else:
                state.refused.pop(target, None)
        elif line.get("log") == RECONSIDERED and self.binding.reading:
            for state in self.states.values():
                state.refused.clear()
                state.refused_writes.clear()
        entry, after, over = self.window
        if line.get("log") == WINDOW and entry_problem(line) is None:
            entry, after, over = line, 0, None
        elif line.get("log") == WINDOW_OVER and entry is not None and over is None:
            over = 0
        elif _a_call(line):
            after += 1
            over = None if over is None else over + 1
        self.window = (entry, after, over)

    def state(self, action: str) -> LogState:
        """``action``'s state as read so far: a copy, the index reading on."""
        state = self.states.get(action, LogState())
        writes = {target: dict(keys) for target, keys in state.refused_writes.items()}
        return LogState(dict(state.last), dict(state.succeeded), dict(state.refused), writes)


def _now() -> str:
    """This machine's UTC time as a line holds it (``2026-01-15T12:00:00.123Z``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _a_call(line: dict[str, Any]) -> bool:
    """Whether ``line`` stands for a call sent: an item's ``attempted`` line, a token line."""
    return (line.get("outcome") == ATTEMPTED and "target" in line) or line.get("log") == TOKEN_SENT


class _Ended(NamedTuple):
    """Where a read of a log ended: after its last complete line (``end``), the object a last
    line not ended yet reads as (``cut``: None when there is none or it reads as none), and
    the file read (device, inode; None: no file)."""

    end: int
    cut: dict[str, Any] | None
    file: tuple[int, int] | None


class ActionLog:
    """An append-only JSON-lines file shared by every run of a batch.

    Safe to use from the worker threads of one batch. Lines carry no request
    bodies and no credentials: only the target key, outcome and service IDs.
    """

    def __init__(self, path: str | os.PathLike[str], *, plan: str | None = None) -> None:
        self.path = Path(path)
        self.plan = plan
        """The sha256 of the plan file whose lines this log reads (None: every line)."""
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._last_window: dict[str, Any] | None = None
        self._window: Callable[[], WindowCalls | None] | None = None  # a paced run's (noting)
        self._over = False  # whether the window of the last window line is said to be over
        self._reading = threading.Lock()  # held while the log is read (``_indexed``)
        self._index: _Index | None = None  # kept in step while read once (``reading_once``)
        self._once = 0  # how many ``reading_once`` blocks are open
        self._reconsidering = False  # read as reconsidered, its line written with a write

    def __repr__(self) -> str:
        plan = "" if self.plan is None else f", plan={self.plan!r}"
        return f"ActionLog({str(self.path)!r}{plan})"

    @property
    def reconsidered(self) -> bool:
        """Whether the log is read as if a ``RECONSIDERED`` line ended it, that line not
        written yet (``as_reconsidered``): a rehearsal's copy of it ends with one, and a run
        with it writes it before its first write."""
        return self._reconsidering

    # -- writing -----------------------------------------------------------------

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = open_append(self.path, what=_WHAT, error=LogFileError)
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
        final: bool = False,
        write: str | None = None,
    ) -> None:
        """Append one line and make it durable before returning; ``final``: a ``failed``
        line of a refusal for good, ``write`` the key of the write refused when it is an
        unsaved plan's (see the module)."""
        entry = {
            "time": _now(),
            "action": action,
            "target": target,
            "outcome": outcome,
            "status": status,
            "error_key": error_key,
            "message": message,
            "request_id": request_id,
            "resource_id": resource_id,
        }
        if final:
            entry["final"] = True
            if write is not None:
                entry[WRITE] = write
        self._append(entry, a_call=outcome == ATTEMPTED)

    def _record_token(self) -> None:
        """Append a line saying a token request goes out (``TOKEN_SENT``: a call of the
        window, no item's attempt) and make it durable before returning."""
        self._append({"log": TOKEN_SENT, "time": _now()}, a_call=True)

    def _append(self, entry: dict[str, Any], *, a_call: bool) -> None:
        """Append ``entry`` as one line, durable before returning; ``a_call``: a line standing
        for a call (an ``attempted`` line, a token line), after the window line it needs."""
        data = (json.dumps(entry, ensure_ascii=False) + "\n").encode()
        with self._lock:
            fd = self._open()
            if entry.get("outcome") == ATTEMPTED and self._reconsidering:
                os.write(fd, _RECONSIDERED_LINE)  # before the run's first write
                self._reconsidering = False  # read from here as the lines say
            if a_call and self._window is not None:
                self._follow_window(fd, self._window())
            os.write(fd, data)  # one O_APPEND write per line: lines never interleave
        os.fsync(fd)

    def claim(self, owner: LogOwner) -> None:
        """Mark the log as ``owner``'s (an owner line, once, and again when it names the
        state of ``owner``'s sandbox the first time); ``ForeignLogError`` when it is
        another's."""
        with self._lock:
            written = self.check(owner)
            if written is None or (written.instance is None and owner.instance is not None):
                line = {"log": OWNER, "service": owner.service, "project": owner.project}
                if owner.instance is not None:  # the service itself names none
                    line["instance"] = owner.instance
                fd = self._open()
                os.write(fd, (json.dumps(line) + "\n").encode())
                os.fsync(fd)

    def begin_plan(self) -> None:
        """Before the lines of a run: a plan line naming its plan file (``plan``; null for an
        unsaved plan's run), unless the last plan line already does (the lines after it are
        its own). An unsaved run writes one only after a saved plan's: its lines are then no
        saved plan's, and a log without plan lines stays as an older toolkit wrote it."""
        with self._lock:
            last = self._indexed().binding.of
            if last == self.plan or (self.plan is None and last is _NONE):
                return
            fd = self._open()
            os.write(fd, (json.dumps({"log": PLAN, "plan": self.plan}) + "\n").encode())
        os.fsync(fd)

    def reconsider(self) -> None:
        """A line after which the writes refused for good before it are sent again
        (``RECONSIDERED``: the plan was made again from the live state, or what refused
        them was put right)."""
        with self._lock:
            fd = self._open()
            os.write(fd, _RECONSIDERED_LINE)
            self._reconsidering = False
        os.fsync(fd)

    def as_reconsidered(self) -> ActionLog:
        """A new ``ActionLog`` of this file read as it will read once ``reconsider()`` is
        written on it: its refusals for good sent again, the rest as it is (for what a run
        after it costs: ``plan.cost(log=log.as_reconsidered())``). Nothing is written until a
        run with it sends a write: the ``reconsider()`` line goes just before that write's
        ``attempted`` line, so a run refused or stopped before it sends anything leaves the
        refusals standing (``plan.apply(client, log=log.as_reconsidered())``)."""
        view = ActionLog(self.path, plan=self.plan)
        view._reconsidering = True
        return view

    @contextmanager
    def _reconsidered_in(self) -> Iterator[ActionLog]:
        """In the block this log reads as reconsidered, its line written with the block's
        first write (``as_reconsidered``, for a run handed this very log: a refresh's); a
        block that sends no write leaves it as it was."""
        self._reconsidering = True
        try:
            yield self
        finally:
            self._reconsidering = False

    @contextmanager
    def noting(self, use: Callable[[], WindowCalls | None]) -> Iterator[Callable[[], None]]:
        """While in the block, what a paced run spent of the window its calls are in is
        ``use()``: the block gets a function appending a window line saying it (``note``),
        and an ``attempted`` line in a window the last window line is not of has one written
        before it, so the calls of a new window are counted in it from its first."""
        self._window = use
        try:
            yield lambda: self.note_window(use)
        finally:
            self._window = None

    def note_window(self, use: Callable[[], WindowCalls | None]) -> None:
        """Append a window line saying what ``use()`` tells (what the plan's paced runs spent
        of the window the last one is in), unless it is unknown or the log says it already
        (``_told``: its last window line and the ``attempted`` lines after it). ``use`` is
        read under the lock item lines are written under: a call counted after it is read has
        its ``attempted`` line after the window line."""
        with self._lock:
            fd = self._open()
            if not self._note(fd, use()):
                return
        os.fsync(fd)

    def _follow_window(self, fd: int, now: WindowCalls | None) -> None:
        """Under the lock, before an ``attempted`` line: a window line saying ``now`` when the
        last one is of another window (or none is written); a line saying that one is over
        when the run has left it for a window no answer has named yet (``now`` unknown)."""
        last = self._last_window
        if now is not None:
            if last is None or (last["ends"], last["limit"]) != (now.ends, now.limit):
                self._note(fd, now)
        elif last is not None and not self._over:
            os.write(fd, (json.dumps({"log": WINDOW_OVER, "ends": last["ends"]}) + "\n").encode())
            self._over = True

    def _note(self, fd: int, now: WindowCalls | None) -> bool:
        """Under the lock: a window line saying ``now`` unless it is unknown or the log says
        it already (``_told``); whether one was written."""
        if now is None:
            return False
        line = {"log": WINDOW, **entry_of(now)}
        if self._told(line):
            # the log's last window line (another writer's too: a check before the run) is
            # of this window: the run's ``attempted`` lines need no line of it before them
            self._last_window, self._over = line, False
            return False
        os.write(fd, (json.dumps(line) + "\n").encode())
        self._last_window, self._over = line, False
        return True

    def _told(self, line: dict[str, Any]) -> bool:
        """Whether the log already says what the window ``line`` says, as its readers read
        it: its last window line is of that window (none says it is over) and holds what it
        holds, and with the ``attempted`` and token lines after it (each one call:
        ``earlier``) counts at least its calls. An item's calls then need no window line; a
        call no item line stands for (a re-read's) does."""
        last, after, over = self._window_lines()
        return (
            last is not None
            and over is None
            and all(last.get(key) == line.get(key) for key in ("ends", "limit", "held"))
            and ("here" in last) == ("here" in line)
            and last["sent"] + after >= line["sent"]
        )

    def earlier(self, ends: float, limit: int | None) -> WindowCalls:
        """What the plan's earlier paced runs spent of the window ending at ``ends`` under
        ``limit``: the last window line when it is of that window, and a call for each
        ``attempted`` or token line after it (a run killed between two window lines sent them
        there); when a line says that window is over and ``ends`` is of a later one, a call
        for each such line after that; else nothing."""
        entry, after, over = self._window_lines()
        if entry is None:
            return earlier_calls(None, (), 0, ends, limit)
        if over is not None and later(ends, entry["ends"]):
            return WindowCalls(ends, limit, over, None)  # sent in the window after entry's
        entry = {**entry, "sent": entry["sent"] + after - (over or 0)}
        return earlier_calls(entry, (), 0, ends, limit)

    def last_window(self) -> WindowCalls | None:
        """The window the last window line is of, with what the plan's paced runs spent
        there (as ``earlier`` counts it) and its end on this machine's clock; None without
        one, or once a line says it is over."""
        entry, after, over = self._window_lines()
        if entry is None or over is not None:
            return None
        sent = {**entry, "sent": entry["sent"] + after}
        return recorded_window(sent, (), 0)

    def _window_lines(self) -> tuple[dict[str, Any] | None, int, int | None]:
        """The last window line (None: none), the ``attempted`` and token lines after it, and
        those after a line saying its window ended (None: no such line)."""
        return self._indexed().window

    def check(self, owner: LogOwner) -> LogOwner | None:
        """The log's owner, ``None`` when none is written; ``ForeignLogError`` naming both
        when it is not ``owner``, or saying the sandbox holds other state than it did."""
        written = self.owner()
        if written is None:
            return None
        if not written.same_service(owner):
            raise ForeignLogError(
                f"{self.path}: this action log belongs to {written}, not to {owner};"
                " what it shows done was done there: use another log here"
            )
        if written.other_state(owner):
            raise ForeignLogError(
                f"{self.path}: this action log was written against the sandbox at {written},"
                " which was restarted since with other state (a fresh database: in memory,"
                " another --db file, or a reset) and holds none of what the log shows done;"
                " start a new log here (its state is kept only when the sandbox is served"
                " again from the same --db file)"
            )
        return written

    def owner(self) -> LogOwner | None:
        """The service and project the log belongs to, and the state of its sandbox (the
        last owner line: one naming the state may follow one that did not); ``None`` when
        not written yet."""
        line = self._indexed().owner
        if line is None:
            return None
        instance = line.get("instance")
        return LogOwner(
            str(line.get("service")),
            line.get("project"),
            instance if isinstance(instance, str) else None,
        )

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

    def _read(
        self, start: int, file: tuple[int, int] | None, add: Callable[[dict[str, Any]], None]
    ) -> _Ended | None:
        """``add`` each JSON object line ended after byte ``start`` (0: the whole log), oldest
        first, unreadable (truncated) lines skipped; where the read ended. None, nothing
        read, when the file is not ``file`` or its line ended at ``start`` is not there."""
        try:  # a pipe or a device in its place is refused, not waited on
            handle = open_regular(self.path, what=_WHAT, error=LogFileError)
        except FileNotFoundError:
            return None if start else _Ended(0, None, None)
        with handle:
            found = os.fstat(handle.fileno())
            read = (found.st_dev, found.st_ino)
            if start:
                if read != file or found.st_size < start:
                    return None
                handle.seek(start - 1)
                if handle.read(1) != b"\n":
                    return None
            end, cut = start, None
            for raw in handle:
                try:
                    line = json.loads(raw)
                except ValueError:
                    line = None
                if not raw.endswith(b"\n"):  # the last line, not ended yet
                    cut = line if isinstance(line, dict) else None
                    break
                end += len(raw)
                if isinstance(line, dict):
                    add(line)
        return _Ended(end, cut, read)

    def _indexed(self) -> _Index:
        """What the log's lines say now: read whole, or in a ``reading_once`` block read
        whole once and from then on only the lines appended since."""
        with self._reading:
            index = self._index or _Index(self.plan)
            ended = self._read(index.end, index.file, index.add) if index.end else None
            if ended is None:
                index = _Index(self.plan)
                ended = self._read(0, None, index.add)
                assert ended is not None  # a whole read always reads
            index.end, index.file = ended.end, ended.file
            if self._once:
                self._index = index
            if ended.cut is None:
                return index
            if index is not self._index:
                index.add(ended.cut)
                return index
        # A last line a crash cut short that reads as an object: read whole, not kept in step
        # (the next line appended ends it: open_append).
        whole = _Index(self.plan)
        ended = self._read(0, None, whole.add)
        if ended is not None and ended.cut is not None:
            whole.add(ended.cut)
        return whole

    @contextmanager
    def _read_once(self) -> Iterator[None]:
        """In the block the log is read whole once: later reads take only the lines appended
        since (see ``reading_once``)."""
        with self._reading:
            self._once += 1
        try:
            yield
        finally:
            with self._reading:
                self._once -= 1
                if not self._once:
                    self._index = None

    def entries(self) -> list[dict[str, Any]]:
        """Every complete item line, oldest first; unreadable (truncated) lines are skipped;
        for a log of a ``plan``, those after a plan line of another plan file (or of an
        unsaved plan's run) too."""
        binding, entries = _Binding(self.plan), []

        def add(line: dict[str, Any]) -> None:
            if binding.counts(line):
                entries.append(line)

        ended = self._read(0, None, add)
        if ended is not None and ended.cut is not None:
            add(ended.cut)
        return entries

    def state(self, action: str) -> LogState:
        """The last line and the line that saw it done (if any) of each target of ``action``
        (none refused for good while read as reconsidered, ``as_reconsidered``)."""
        state = self._indexed().state(action)
        return LogState(state.last, state.succeeded) if self._reconsidering else state

    def frame(self) -> pd.DataFrame:
        """The log as a DataFrame (one row per line), e.g. to show what a run did: the same
        columns and dtypes with no line."""
        rows = self.entries()
        frame = pd.DataFrame(rows, columns=list(_FIELDS))
        frame["time"] = pd.to_datetime(frame["time"], utc=True).dt.as_unit("us")
        dtypes = {field: "Int64" if field == "status" else "str" for field in _FIELDS[1:]}
        return frame.astype(dtypes)  # the same with no line


LogSource = ActionLog | str | os.PathLike[str]
"""An ``ActionLog``, or the path of one."""


def log_state(
    log: LogSource | None,
    action: str,
    client: LoyaltyClient | None = None,
    *,
    ask: bool = True,
    items: Iterable[PlanItem[Any]] | None = None,
) -> LogState:
    """What ``log`` knows about ``action`` (nothing without a log); with ``client``,
    ``ForeignLogError`` when the log belongs to another service or project, or to another
    state of its sandbox (``refuse_foreign``; ``ask``: as there). With the ``items`` of an
    unsaved plan (a log bound to no plan file), of its refusals for good only those of
    these very writes (``LogState.refusing``)."""
    if log is None:
        return LogState()
    action_log = log if isinstance(log, ActionLog) else ActionLog(log)
    if client is not None:
        refuse_foreign(action_log, client, ask=ask)
    state = action_log.state(action)
    if items is None or action_log.plan is not None or not (state.refused or state.refused_writes):
        return state
    return state.refusing(action, items)


def refuse_foreign(log: LogSource | None, client: LoyaltyClient, *, ask: bool = True) -> None:
    """``ForeignLogError`` when ``log`` belongs to another service or project than
    ``client``'s, or names another state of its sandbox (its owner line). Nothing is sent,
    unless the log names a sandbox's state, the client has heard nothing from the service
    yet, and ``ask``: then it fetches its token (the run needs it anyway), whose answer
    names the state the sandbox holds now."""
    if log is None:
        return
    action_log = log if isinstance(log, ActionLog) else ActionLog(log)
    owner = LogOwner.of(client)
    written = action_log.check(owner)
    unheard = owner.instance is None and client._service_holds is None and not client.holds_token
    if ask and written is not None and written.instance is not None and unheard:
        client.fetch_token()
        action_log.check(LogOwner.of(client))


@contextmanager
def reading_once(log: LogSource | None) -> Iterator[LogSource | None]:
    """``log`` as one ``ActionLog`` read whole once in the block (an apply's checks and runs
    read it many times): later reads take only the lines appended since, by this writer or,
    before its lock is taken, another. One made here from a path is closed afterwards."""
    if log is None:
        yield None
        return
    action_log = log if isinstance(log, ActionLog) else ActionLog(log)
    try:
        with action_log._read_once():
            yield action_log
    finally:
        if action_log is not log:
            action_log.close()


@contextmanager
def opened_log(log: LogSource | None) -> Iterator[ActionLog | None]:
    """The log to write to, or ``None``, held by this writer alone for the block
    (``lock.held``: ``LockHeldError`` names another writer); one opened here from a path is
    closed afterwards."""
    if log is None:
        yield None
        return
    action_log = log if isinstance(log, ActionLog) else ActionLog(log)
    with held(action_log.path, "is being written"), action_log._read_once():
        try:
            yield action_log
        finally:
            if action_log is not log:
                action_log.close()
