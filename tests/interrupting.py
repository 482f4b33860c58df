"""Ctrl-C pressed on a process of the toolkit's: while the sandbox answers every call 429
(what the process printed and the calls it sent after the Ctrl-C; its calls under way held
in the sandbox first, ``held``, so the 429s come however late the test sees them), or once
a paced command waits for its window's reset (what the window counted then), or once it
said something (``stderr_until``); what a sandbox's window counts (``window_used``) and the
calls its faults refused (``refused``), and once it counts a work's calls
(``until_counted``); a paced work's thread ended by closing its client once it waits for
the reset (``quiet_then_closed``); a progress callable keeping a paced work's lines
(``PacedLines``); the process of several that holds a one-writer lock (``holder``), to
pause while another is refused it; a sandbox's clock fixed at this machine's time
(``clock_agreeing_here``); a client's waits for a window taken at once, the sandbox's clock
moved on by them (``Waits``); and once something has happened (``until``, ``until_async``),
however slow a loaded machine makes it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.fault_middleware import FaultMiddleware
from lyt_toolkit.sandbox.faults import ADMIN_PREFIX

HANG = 60.0
"""Seconds a wait for something that happens takes at most: a deadline that only turns a
hang into a failure, never reached on a machine however loaded."""

NEAR_THE_HOUR = timedelta(minutes=3)
"""How near the hour's end ``clock_agreeing_here`` takes the next hour's start instead."""


class Gate:
    """The calls ``held`` holds in a sandbox of this process, until ``open()``."""

    def __init__(self, port: int, after: int, holds: Callable[[str, str], bool]) -> None:
        self._port, self._after, self._holds = port, after, holds
        self._lock = threading.Lock()
        self._opened = threading.Event()
        self._seen = 0
        self.held = 0
        """The calls held so far."""

    def open(self) -> None:
        """Let every call held go on, and those to come."""
        self._opened.set()

    async def wait(self, scope: dict[str, Any]) -> None:
        """Hold the call ``scope`` is of, when it is one to hold, until the gate opens."""
        if scope["type"] != "http" or scope["server"][1] != self._port:
            return
        path = scope["path"]
        if path.startswith(ADMIN_PREFIX) or not self._holds(scope["method"], path):
            return
        with self._lock:
            self._seen += 1
            if self._seen <= self._after or self._opened.is_set():
                return
            self.held += 1
        await until_async(self._opened.is_set, "the gate opened")

    def until_held(self, waiting: Callable[[], int], proc: subprocess.Popen[str]) -> None:
        """Once ``waiting()`` calls are held (every call ``proc`` has under way at once, so it
        sends nothing more, nor ends, before the gate opens); ``proc`` must run meanwhile."""
        until(
            lambda: self.held >= waiting() or proc.poll() is not None, "every call under way held"
        )
        assert proc.poll() is None, proc.communicate()


@contextlib.contextmanager
def held(
    sb: Sandbox, after: int, holds: Callable[[str, str], bool] = lambda method, path: True
) -> Iterator[Gate]:
    """In the block, the calls to ``sb`` that ``holds(method, path)`` (its admin calls never)
    past the first ``after`` wait in the sandbox, before its faults are drawn, until the
    gate opens (``Gate.open``; at the block's end at the latest): a work reaching them stops
    there, whenever the test gets to look."""
    gate = Gate(urlsplit(sb.base_url).port or 0, after, holds)
    original = FaultMiddleware.__call__

    async def gated(middleware: FaultMiddleware, scope: Any, receive: Any, send: Any) -> None:
        await gate.wait(scope)
        await original(middleware, scope, receive, send)

    setattr(FaultMiddleware, "__call__", gated)  # noqa: B010 (a method: assigned, mypy says no)
    try:
        yield gate
    finally:
        gate.open()
        setattr(FaultMiddleware, "__call__", original)  # noqa: B010


def ctrl_c_while_refused(
    sb: Sandbox,
    proc: subprocess.Popen[str],
    retry_after: int,
    waiting: Callable[[], int],
    gate: Gate,
) -> tuple[str, str, int]:
    """``proc``'s output once a Ctrl-C stopped it while its calls waited out a 429 asking
    ``retry_after`` seconds, and the calls it sent after the Ctrl-C; it is given until its
    waits could end (``retry_after`` s after the gate opened: no 429 came before), then
    killed (``subprocess.TimeoutExpired``). Once ``waiting()`` calls are held at
    ``gate`` (``held``: every call ``proc`` has under way at once), every call is answered
    429 and the gate opened; the Ctrl-C is sent once the sandbox has refused ``waiting()``
    calls (each then waits, so ``proc`` sends nothing more before the Ctrl-C). Held, the
    calls are surely still to come when the 429s are switched on, however late a loaded
    machine lets the test see that they are under way."""
    try:
        gate.until_held(waiting, proc)
        sb.set_faults(rate_limit=1.0, retry_after=retry_after)
        waits_end = time.monotonic() + retry_after  # the first 429's wait ends no sooner
        gate.open()
        until(
            lambda: refused(sb) >= waiting() or proc.poll() is not None,
            "every call under way refused",
        )
        assert proc.poll() is None, proc.communicate()
        used = window_used(sb)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=max(0.0, waits_end - time.monotonic()))
        time.sleep(0.5)
        return out, err, window_used(sb) - used
    finally:
        sb.clear_faults()
        gate.open()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def catches(proc: subprocess.Popen[str], sig: signal.Signals) -> bool:
    """Whether ``proc`` (Linux) has a handler of its own for ``sig`` now: ``SigCgt``, the
    mask of the signals a process catches, in ``/proc/PID/status``."""
    status = Path(f"/proc/{proc.pid}/status").read_text()
    [mask] = re.findall(r"^SigCgt:\s*([0-9a-f]+)$", status, re.MULTILINE)
    return bool(int(mask, 16) >> (sig - 1) & 1)


def until(condition: Callable[[], bool], what: str, within: float = HANG) -> None:
    """Once ``condition()`` holds (``within`` s at most: then it never happened, ``what``)."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.01)


async def until_async(condition: Callable[[], bool], what: str, within: float = HANG) -> None:
    """``until``, the event loop running meanwhile (the tasks ``condition`` waits on)."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"never {what}"
        await asyncio.sleep(0.01)


def refused(sb: Sandbox) -> int:
    """The requests ``sb``'s faults answered 429 since they were set."""
    answered: int = sb.faults()["answered"]["rate_limit"]
    return answered


def window_used(sb: Sandbox) -> int:
    """The calls ``sb``'s current window counts."""
    used: int = sb.plan()["used"]
    return used


def until_counted(sb: Sandbox, used: int, running: Callable[[], bool]) -> None:
    """Once ``sb``'s window counts ``used`` calls (a minute at most); ``running()`` must hold
    meanwhile (the work neither ended nor was refused)."""
    deadline = time.monotonic() + 60
    while window_used(sb) < used:
        assert running(), "the work ended"
        assert time.monotonic() < deadline, f"the window never counted {used} calls"
        time.sleep(0.05)


def until_quiet(sb: Sandbox, used: int, running: Callable[[], bool], quiet: float = 1.0) -> int:
    """Once ``sb``'s window counts ``used`` calls and nothing more comes for ``quiet`` s (a
    paced work waits for the reset), what the window counts; ``running()`` must hold
    throughout (the work neither ended nor was refused)."""
    until_counted(sb, used, running)
    time.sleep(quiet)
    assert running(), "the work ended instead of waiting"
    return window_used(sb)


def quiet_then_closed(
    sb: Sandbox, client: LoyaltyClient, paced: Callable[[], None], calls: int, *, quiet: float
) -> int:
    """``paced`` run in a thread until ``sb`` has counted ``calls`` and stays quiet, then the
    faults cleared and ``client`` closed (ending its wait) and the thread joined: the calls
    ``sb`` counted."""
    work = threading.Thread(target=paced)
    work.start()
    try:
        used = until_quiet(sb, calls, work.is_alive, quiet=quiet)
    finally:
        sb.clear_faults()
        client.close()
        work.join(10)
    assert not work.is_alive()
    return used


def ctrl_c_once_quiet(
    sb: Sandbox, proc: subprocess.Popen[str], used: int, quiet: float = 1.0
) -> tuple[int, str]:
    """``proc``, a paced command, stopped with a Ctrl-C once it waits for the reset
    (``until_quiet``): what the window counted then, and its stderr; it is given 20 s to
    end, then killed. The exit code is ``proc.returncode``."""
    try:
        counted = until_quiet(sb, used, lambda: proc.poll() is None, quiet)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        return counted, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def stderr_until(
    proc: subprocess.Popen[str], text: str, *, or_end: bool = False, within: float = 60
) -> str:
    """What ``proc`` wrote to stderr up to the end of the first line holding ``text`` (with
    ``or_end``, all it wrote if it ends first), read as it comes (``within`` s at most, while
    it runs)."""
    assert proc.stderr is not None
    said, deadline = "", time.monotonic() + within
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stderr, selectors.EVENT_READ)
        while not re.search(f"{re.escape(text)}.*\n", said):
            assert selector.select(max(0.0, deadline - time.monotonic())), said
            chunk = os.read(proc.stderr.fileno(), 4096).decode()
            if not chunk and or_end:
                return said
            assert chunk, f"ended ({proc.wait()}) before saying {text!r}: {said}"
            said += chunk
    return said


def holder(lock: Path, procs: Sequence[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    """The one of ``procs`` holding the one-writer lock file ``lock`` (its record names its
    pid), once one does: a minute at most, while one of them runs (another may have ended,
    refused the lock)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            pid = json.loads(lock.read_text()).get("pid")
        except (OSError, ValueError):
            pid = None
        for proc in procs:
            if proc.pid == pid and proc.poll() is None:
                return proc
        assert any(proc.poll() is None for proc in procs), [p.communicate() for p in procs]
        assert time.monotonic() < deadline, f"none of them took {lock}"
        time.sleep(0.01)


def clock_agreeing_here(sb: Sandbox) -> str:
    """``sb``'s clock fixed at this machine's time (UTC, to the second), what it says: the
    service's clock then agrees with this machine's (``quota.CLOCK_AGREES``) for a test's few
    seconds, so a paced work's record says its window's end here (``WindowCalls.here``), and
    no window rolls mid-test. Within ``NEAR_THE_HOUR`` of the hour's end, the next hour's
    start instead (still agreeing), so the end recorded does not pass here mid-test either.
    The test's fixture puts the clock back."""
    now = datetime.now(UTC).replace(microsecond=0)
    hour = now.replace(minute=0, second=0) + timedelta(hours=1)
    return sb.set_clock(f"{hour if hour - now < NEAR_THE_HOUR else now:%Y-%m-%dT%H:%M:%SZ}")


class PacedLines:
    """A progress callable that keeps a paced work's lines (``_progress.PacedProgress``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, done: int, total: int) -> None:
        pass

    def paced(self, line: str) -> None:
        self.lines.append(line)


class Waits:
    """Waits taken at once, not slept: the client's clock moves on by what it waited, and
    the sandbox's by as much before the client's next call reaches it. ``left`` is what the
    sandbox's window had left each time its clock was moved on. For a work sending one call
    at a time (``concurrency=1``): a call another thread sent before a wait may reach the
    sandbox after its clock was moved on by it (its token lapsed there, 401)."""

    def __init__(self, sb: Sandbox) -> None:
        self.sb = sb
        self.now = 1_000.0
        self.owed = 0.0
        self.left: list[int] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.owed += seconds

    def catch_up(self) -> None:
        """Before a call of the client: the sandbox's clock moved on by the waits since."""
        if self.owed:
            self.left.append(self.sb.plan()["remaining"])
            self.sb.advance_clock(self.owed)
            self.owed = 0.0
