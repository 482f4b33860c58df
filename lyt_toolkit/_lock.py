"""One writer at a time: an exclusive lock on a plan file, an action log or a pull checkpoint.

``held(path)`` takes ``<path>.lock`` (beside the file a symbolic link names: every link to
one file takes the same lock) with an operating-system file lock (``flock``; on
Windows ``msvcrt.locking``) and writes the holder in it: process ID, host and start (UTC),
no secret. Another process taking the same lock is refused at once with ``LockHeldError``
naming the holder, as Terraform refuses a second writer of one state; it does not wait.

A lock held by a process that ended, however it ended (``SIGKILL`` included), never
blocks: the system releases it with the process, so there is no stale lock to clear by
hand. The lock file is removed on release; one a killed process left behind holds only its
last holder's record and is taken over by the next writer. Within one process the thread
holding a lock may take it again (nested work: a caller holding a log while the batches it
runs take it); another thread of that process is refused like another process.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path

from .errors import LytError

__all__ = ["LockFileError", "LockHeldError", "beside", "held", "lock_path"]


class LockHeldError(LytError, RuntimeError):
    """Another writer holds the lock; ``holder`` is its record (``pid``, ``host``,
    ``started``), empty when it could not be read."""

    def __init__(self, message: str, holder: dict[str, object]) -> None:
        super().__init__(message)
        self.holder = holder


class LockFileError(LytError, OSError):
    """The lock file cannot be made or opened (a read-only folder, a folder in its place)."""


RECORD_WAIT = 1.0
"""Seconds a refusal waits for the holder's record: a holder writes it just after taking
the lock, so a writer refused in between still names it."""

_HELD: dict[Path, tuple[int, int]] = {}
"""Lock file -> (the thread holding it in this process, how many times it took it)."""
_HELD_LOCK = threading.Lock()


def beside(path: str | os.PathLike[str], suffix: str) -> Path:
    """``<path><suffix>`` beside the file ``path`` names: a symbolic link is followed (every
    link to one file shares it); any other path is kept as given, as a message shows it."""
    target = Path(path)
    real = target.resolve() if target.is_symlink() else target
    return real.with_name(real.name + suffix)


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file of ``path``: ``<path>.lock`` beside it, beside the file a symbolic link
    names (two links to one file take one lock)."""
    return beside(path, ".lock")


@contextmanager
def held(path: str | os.PathLike[str], what: str) -> Iterator[None]:
    """Hold the exclusive lock of ``path`` inside the block; ``LockHeldError`` names the
    holder when another writer has it (``what``: the refused work, e.g. "is being applied")."""
    lock = lock_path(path).absolute()
    me = threading.get_ident()
    with _HELD_LOCK:
        thread, depth = _HELD.get(lock, (me, 0))
        if thread == me and depth:
            _HELD[lock] = (me, depth + 1)
    if thread != me:  # another thread of this process
        raise _refusal(Path(path), what, lock)
    if depth:
        try:
            yield
        finally:
            with _HELD_LOCK:
                _HELD[lock] = (me, _HELD[lock][1] - 1)
        return
    fd = _take(lock, Path(path), what)
    with _HELD_LOCK:
        _HELD[lock] = (me, 1)
    try:
        yield
    finally:
        with _HELD_LOCK:
            del _HELD[lock]
        with suppress(OSError):  # removed while still held: no writer has it open, locked
            lock.unlink()
        os.close(fd)


def _take(lock: Path, path: Path, what: str) -> int:
    """The open, locked lock file holding this process's record (its folder made if need be,
    as the log's own is)."""
    while True:
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise LockFileError(
                f"{path} cannot be locked for one writer: {lock}: {error.strerror or error}"
                " (the lock file needs a folder this process may write in)"
            ) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a pipe or a device put in its place
            os.close(fd)
            raise LockFileError(
                f"{path} cannot be locked for one writer: {lock} is not a regular file"
                " (remove it: the lock file is made anew)"
            )
        if not _try_lock(fd):
            os.close(fd)
            raise _refusal(path, what, lock)
        try:
            same = os.fstat(fd).st_ino == os.stat(lock).st_ino
        except FileNotFoundError:
            same = False
        if same:  # not a file its last holder removed as this one opened it
            break
        os.close(fd)
    record = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    }
    os.ftruncate(fd, 0)
    os.write(fd, (json.dumps(record) + "\n").encode())
    return fd


def _record(lock: Path) -> dict[str, object]:
    """The holder's record in ``lock``; empty while not yet written (up to ``RECORD_WAIT``
    seconds, then given up) or when it cannot be read."""
    deadline = time.monotonic() + RECORD_WAIT
    while True:
        try:
            text = lock.read_text(encoding="utf-8")
        except OSError:
            return {}
        if text.endswith("\n") or time.monotonic() >= deadline:
            break
        time.sleep(0.01)
    try:
        holder = json.loads(text)
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}


def _refusal(path: Path, what: str, lock: Path) -> LockHeldError:
    """The error naming the lock's holder, as far as its record tells."""
    holder = _record(lock)
    who = (
        f"pid {holder.get('pid')} on {holder.get('host')}, started {holder.get('started')}"
        if holder
        else "its holder not recorded yet"
    )
    return LockHeldError(
        f"{path} {what} by another process ({who}); one writer at a time: let it finish, then"
        f" run again (the lock, {lock}, is released when that process ends, however it ends)",
        holder,
    )


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
