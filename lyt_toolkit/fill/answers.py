"""A checkpoint's answers on disk: a journal of the latest, and Parquet parts of the rest.

Every answer a checkpointed pull receives is appended to ``journal.jsonl`` as it arrives
(one JSON line: the request's key, the body, the service's time of the answer, the run
that read it and the budget window the service counted it in, named by its end) and
flushed to the operating system at once, so a process killed at any point (``kill -9``
included) loses at most the answers still in flight. The journal is
synced to the disk once a second (``SYNC_EVERY``), against a power cut or a reboot. Once
it holds ``PART_SIZE`` answers it is written out as ``parts/part-NNNNN.parquet`` (under a
temporary name, then renamed) and a new journal begins. Reading back takes the parts and
the journal whatever state a crash left them in: a journal whose part was already written
repeats answers (the same key, the same body), and a line cut off halfway is ignored.

Only an index (key -> where) is held in memory; bodies are read from the parts on demand,
the last ``CACHED_PARTS`` parts kept. Lines and parts written before answers named their
window (by an older toolkit) are read as naming none.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._json_file import first_line, open_regular
from ..errors import LytError

__all__ = ["Answer", "AnswerStore", "CheckpointError", "Stored", "held_answers", "stored_time"]

PART_SIZE = 5000
"""Answers per Parquet part."""
SYNC_EVERY = 1.0
"""Seconds between syncs of the journal to the disk."""
CACHED_PARTS = 2
"""Parts whose bodies are held in memory at once."""

JOURNAL = "journal.jsonl"
PARTS = "parts"
MAX_LINE = 256 * 2**20
"""The longest journal line read (an answer: a page of 100 items is a few hundred kB)."""
_TIMES = (-62135596800.0, 253402300799.0)
"""The Unix seconds of the years 1 to 9999: the times an answer's may be."""
_REMOVE = "remove it to read its answers again"


class CheckpointError(LytError, ValueError):
    """A checkpoint folder that cannot serve this pull (another pull's, or unreadable)."""


@dataclass(frozen=True)
class Answer:
    """One stored answer: its body (JSON bytes), the service's time of it (Unix seconds,
    None when unknown), the run that read it and the end of the budget window the service
    counted it in (``X-Rate-Limit-Retry``, Unix seconds; None when it named none)."""

    body: bytes
    at: float | None
    run: int
    window: float | None = None


@dataclass(frozen=True)
class Stored:
    """What the index holds of one stored answer (``Answer`` without its body)."""

    key: str
    at: float | None
    run: int
    window: float | None


class AnswerStore:
    """The answers under ``folder``, read back on opening and appended to as they arrive."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.parts_dir = folder / PARTS
        self._lock = threading.Lock()
        self._journal_index: dict[str, Answer] = {}
        """Answers in the current journal (bodies held until the journal becomes a part)."""
        self._part_index: dict[str, tuple[int, int]] = {}
        """Key -> (part number, row) of every answer in a part."""
        self._meta: dict[str, tuple[float | None, int, float | None]] = {}
        """Key -> (time, run, window) of every answer, wherever it is."""
        self._cache: OrderedDict[int, list[bytes]] = OrderedDict()
        self._parts = 0
        self._read_back()
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        self._journal = open(folder / JOURNAL, "ab")  # noqa: SIM115 (held open while pulling)
        self._synced = time.monotonic()

    # -- reading ---------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._meta)

    def get(self, key: str) -> Answer | None:
        """The answer stored under ``key``, if any."""
        with self._lock:
            held = self._journal_index.get(key)
            if held is not None:
                return held
            where = self._part_index.get(key)
            if where is None:
                return None
            part, row = where
            at, run, window = self._meta[key]
            return Answer(self._bodies(part)[row], at, run, window)

    def items(self) -> Iterator[Stored]:
        """Every stored answer's key, time, run and window (no body read)."""
        with self._lock:
            meta = list(self._meta.items())
        for key, (at, run, window) in meta:
            yield Stored(key, at, run, window)

    def _bodies(self, part: int) -> list[bytes]:
        bodies = self._cache.get(part)
        if bodies is None:
            table = self._read_part(part, ["body"])
            bodies = [b if isinstance(b, bytes) else bytes(b) for b in table["body"].to_pylist()]
            self._cache[part] = bodies
            while len(self._cache) > CACHED_PARTS:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(part)
        return bodies

    def _part_path(self, part: int) -> Path:
        return self.parts_dir / f"part-{part:05d}.parquet"

    def _read_part(self, part: int, columns: list[str], optional: str | None = None) -> Any:
        """The ``columns`` of part ``part``, as this store writes them, and the ``optional``
        one when the part has it (an older toolkit's has no ``window``); a part that is no
        such file (unreadable, another file in its place) is a ``CheckpointError`` naming it."""
        import pyarrow as pa  # a checkpoint without parts never loads pyarrow
        import pyarrow.parquet as pq

        path = self._part_path(part)
        try:
            with open_regular(path, what="checkpoint part", error=_failure) as file:
                parquet = pq.ParquetFile(file)
                if optional is not None and optional in parquet.schema_arrow.names:
                    columns = [*columns, optional]
                table = parquet.read(columns=columns)
            found = {name: table.schema.field(name).type for name in columns}
        except CheckpointError:
            raise
        except (OSError, ValueError, KeyError, pa.ArrowException) as exc:
            reason = first_line(exc)
            raise _failure(f"{path}: not a part this toolkit wrote ({reason}); {_REMOVE}") from None
        expected = {
            "key": pa.string(),
            "at": pa.float64(),
            "run": pa.int32(),
            "window": pa.float64(),
            "body": pa.binary(),
        }
        if wrong := [name for name in columns if found[name] != expected[name]]:
            raise _failure(f"{path}: column {wrong[0]} is not {expected[wrong[0]]}; {_REMOVE}")
        return table

    def _read_back(self) -> None:
        """The index of what earlier runs stored: every part, then the journal."""
        if os.path.lexists(self.parts_dir) and not self.parts_dir.is_dir():
            raise _failure(f"{self.parts_dir}: is not a folder, as a checkpoint's parts are")
        for part in _part_numbers(self.parts_dir):
            columns = self._read_part(part, ["key", "at", "run"], optional="window").to_pydict()
            windows = columns.get("window") or [None] * len(columns["key"])
            for row, (key, at, run, window) in enumerate(
                zip(columns["key"], columns["at"], columns["run"], windows, strict=True)
            ):
                self._part_index[key] = (part, row)
                self._meta[key] = (at, run, window)
            self._parts = part
        journal = self.folder / JOURNAL
        try:
            lines = open_regular(journal, what="checkpoint journal", error=_failure)
        except FileNotFoundError:
            return
        with lines:
            for number, line in enumerate(iter(lambda: lines.readline(MAX_LINE + 1), b""), 1):
                if len(line) > MAX_LINE:
                    raise _failure(
                        f"{journal}: line {number} is over {MAX_LINE // 2**20} MiB: no answer"
                        f" this toolkit stored; remove the file to read its answers again"
                    )
                entry = _entry(line)
                if entry is None:
                    continue  # cut off by a crash as it was written
                key, answer = entry
                self._meta[key] = (answer.at, answer.run, answer.window)
                if key not in self._part_index:
                    self._journal_index[key] = answer

    # -- writing ---------------------------------------------------------------

    def put(self, key: str, answer: Answer) -> None:
        """Store ``answer`` under ``key``: in the journal now, in a part once it is full."""
        line = json.dumps(
            {
                "key": key,
                "at": answer.at,
                "run": answer.run,
                "window": answer.window,
                "body": answer.body.decode(),
            },
            separators=(",", ":"),
        )
        with self._lock:
            self._journal.write(line.encode() + b"\n")
            self._journal.flush()
            self._meta[key] = (answer.at, answer.run, answer.window)
            self._journal_index[key] = answer
            now = time.monotonic()
            if now - self._synced >= SYNC_EVERY:
                os.fsync(self._journal.fileno())
                self._synced = now
            if len(self._journal_index) >= PART_SIZE:
                self._write_part()

    def _write_part(self) -> None:
        """The journal's answers as the next part; then a new, empty journal."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        held = self._journal_index
        keys = list(held)
        table = pa.table(
            {
                "key": pa.array(keys, pa.string()),
                "at": pa.array([held[k].at for k in keys], pa.float64()),
                "run": pa.array([held[k].run for k in keys], pa.int32()),
                "window": pa.array([held[k].window for k in keys], pa.float64()),
                "body": pa.array([held[k].body for k in keys], pa.binary()),
            }
        )
        part = self._parts + 1
        final = self._part_path(part)
        temporary = final.with_name(f".{final.name}.tmp")
        pq.write_table(table, temporary, compression="zstd")
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, final)
        self._parts = part
        for row, key in enumerate(keys):
            self._part_index[key] = (part, row)
        self._journal_index = {}
        self._journal.close()
        self._journal = open(self.folder / JOURNAL, "wb")  # noqa: SIM115
        os.fsync(self._journal.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        """Sync the journal to the disk and close it."""
        with self._lock:
            if self._journal.closed:
                return
            self._journal.flush()
            os.fsync(self._journal.fileno())
            self._journal.close()


def _entry(line: bytes) -> tuple[str, Answer] | None:
    """A journal line's key and answer; None for a line cut off or not one of ours (its
    answer is read again)."""
    try:
        data: Any = json.loads(line)
        key, body, at, run = data["key"], data["body"], data["at"], data["run"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    if not isinstance(key, str) or not isinstance(body, str) or not isinstance(run, int):
        return None
    window = data.get("window")  # none in an older toolkit's line
    if not (stored_time(at) and stored_time(window)):
        return None  # not a time of an answer (NaN, an infinity, beyond the years)
    return key, Answer(
        body.encode(),
        None if at is None else float(at),
        run,
        None if window is None else float(window),
    )


def stored_time(value: Any) -> bool:
    """Whether ``value`` may be a stored time (an answer's, its window's end): None, or Unix
    seconds within the years 1 to 9999 (not NaN, an infinity, a bool)."""
    if value is None:
        return True
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and _TIMES[0] <= value <= _TIMES[1]


def held_answers(folder: Path) -> bool:
    """Whether ``folder`` holds answers stored by a checkpointed pull (a journal or a part)."""
    journal = folder / JOURNAL
    return (os.path.lexists(journal) and _size(journal) > 0) or any(
        True for _ in _part_numbers(folder / PARTS)
    )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 1  # there, but not to be read as empty


def _part_numbers(parts: Path) -> list[int]:
    """The numbers of the parts in the folder ``parts``, in order (none when no folder)."""
    if not parts.is_dir():
        return []
    return sorted(
        int(p.stem.removeprefix("part-"))
        for p in parts.glob("part-*.parquet")
        if p.stem.removeprefix("part-").isdigit()
    )


def _failure(message: str) -> CheckpointError:
    return CheckpointError(f"checkpoint: {message}")
