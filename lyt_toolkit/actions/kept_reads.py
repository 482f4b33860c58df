"""What a paced re-read has read so far, kept beside its action log: a re-read stopped part
way (Ctrl-C, a kill) is taken up by the next run of the same plan where it stopped.

A paced apply's re-read may span windows: at 20,000 members a plan of 1,000 activations
re-reads 1,000 cards' bucket lists, most of a professional window's share. A paced apply of
a saved plan re-reads a chunk of its writes' objects at a time (``chunked``): its rows are
kept so until the chunk is found not stale (then removed, its writes sent) or re-planned by
a paced refresh (then its rows removed, ``drop``: those of the chunks after it, a refusal's,
kept for them) or stale (kept for the refresh, as below). Each read of one
object (a card's pending buckets, a tier structure, a card definition) is appended to
``LOG.reread.jsonl`` as the service sent it (``ApiModel.wire``), under the sha256 of the plan
file and the service, project and sandbox state it was read from (``log.LogOwner``); the next
run of that plan there rebuilds those rows from it instead of reading them again (the
listings of rewards and names, 99 and 10 a call, are read again). A re-read that ends
removes the file, but for one ending in a refusal (``refuse``: the plan stale, or a refresh's
plan holding unsupported changes): its rows are kept, marked so, for the ``refresh=True``
apply of that plan to re-plan from instead of reading them again (a resumed apply's refusal
had read 1,861 calls at 20,000 members, thrown away, then read again by ``--refresh``); any
other check reads afresh, as what the refusal named may be put right since. An unpaced
re-read (``as_read=False``: one window's burst) keeps its rows only so: held in memory and
written at its refusal, so one stopped part way leaves nothing and its next run reads all
again, and a run not refused writes nothing beside the log. A line of
another plan, of another service, project or sandbox state (one reset or restarted since:
the log is refused there, and a new log at the same path must not take up what the old one
kept), or one a kill cut short, is not read, and the next line is written on a line of its
own (``open_append``), not glued to it. The rows kept were read when they were: as a paced
re-read's first rows are when its last is read, windows later.

A kept read is taken up for ``KEPT_FOR`` after it was read (this machine's clock, as it is
taken up: a run going on windows reads it again once older), no longer:
the re-read is what tells the plan is not stale, and a row read days before (a run stopped,
then run again next week) says nothing of the edits made since; applied as if fresh, the
plan's writes would overwrite them unseen. An older line (or one without its time, an older
toolkit's) is read again.

The file is the log's kin and kept as the log is: a symbolic link at its path (it could name
any file), a hard link (its other names would change too), a folder, a pipe or a device is
refused (``LogFileError`` naming it) before the re-read sends a call, and one over
``KEPT_MOST`` bytes is refused unread.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from .._json_file import open_append, refuse_links, regular_bytes
from ..models.card_definitions import CardDefinition
from ..models.common import ApiModel
from ..models.programs import PendingBucket
from ..models.tier_structures import TierStructure
from .log import LogFileError

__all__ = ["KEPT", "KEPT_FOR", "KEPT_MOST", "KeptReads", "kept_path"]

KEPT = "lyt-reread/1"
"""The ``log`` of each line of a kept re-read."""

KEPT_FOR = 3600.0
"""Seconds a kept read is taken up for after it was read: an hour, the service's window (a
run stopped in its re-read and run again within it reads only the rest; later, all again)."""

KEPT_MOST = 256 * 2**20
"""The largest kept re-read read, in bytes: as large as the largest plan file
(``plan_reader.MAX_BYTES``), whose objects it reads (the model of each as the service sends
it: a plan touching that many objects could not be saved), so a file larger is not a kept
re-read and is not read whole into memory."""

_WHAT = "JSON-lines kept re-read"
"""What a refusal says the file is."""

_MODELS: dict[str, type[ApiModel]] = {
    "card": PendingBucket,
    "tier_structures": TierStructure,
    "card_definitions": CardDefinition,
}
"""The first part of a kept read's key -> the model of what it read."""


def kept_path(log: Path) -> Path:
    """Where the re-read of the apply logging to ``log`` is kept."""
    return log.with_name(log.name + ".reread.jsonl")


class KeptReads:
    """The reads of one plan's re-read (its file's ``plan`` sha256) kept at ``path``."""

    def __init__(
        self,
        path: Path,
        plan: str,
        *,
        owner: Sequence[str | None] = (),
        wall: Callable[[], float] = time.time,
        as_read: bool = True,
    ) -> None:
        self.path = path
        self.plan = plan
        self.owner = list(owner)
        """Where the reads are made: service, project, sandbox state (``LogOwner``'s)."""
        self._wall = wall
        self.as_read = as_read
        """Whether each read is kept as read (paced), else only once refused (unpaced)."""
        self._unwritten: list[dict[str, object]] = []
        self.refused = False
        """Whether the re-read kept ended in a refusal (``refuse``)."""
        self._at: dict[tuple[str, ...], float] = {}
        """Key -> when its read was made (``KEPT_FOR`` from then it answers)."""
        self.held = self._load()
        """Key -> the models its read gave (a get: one, or none for an object gone)."""

    def _load(self) -> dict[tuple[str, ...], list[ApiModel]]:
        # a link is refused before the re-read sends a call, not at its first
        refuse_links(self.path, what=_WHAT, error=LogFileError)
        if not self.path.exists():
            return {}
        data = regular_bytes(self.path, limit=KEPT_MOST, what=_WHAT, error=LogFileError)
        held: dict[tuple[str, ...], list[ApiModel]] = {}
        now = self._wall()
        for line in data.splitlines():  # each decoded alone: a kill may cut a character
            try:
                entry = json.loads(line)
                if entry.get("log") != KEPT or entry.get("plan") != self.plan:
                    continue
                if entry.get("owner", []) != self.owner:
                    continue  # read from another service, project or sandbox state
                if not _fresh(entry.get("at"), now):
                    continue  # read too long ago (or when, not said): read again
                if entry.get("refused") is True:
                    self.refused = True
                    continue
                key = tuple(map(str, entry["key"]))
                model = _MODELS[key[0]]
                held[key] = [model.model_validate(item) for item in entry["models"]]
                self._at[key] = entry["at"]
            except (ValueError, KeyError, TypeError, IndexError):
                continue  # cut short by a kill (mid-character too), or not a kept read: read again
        return held

    def read(self, key: tuple[str, ...], read: Callable[[], list[Any]]) -> list[Any]:
        """The models of ``key``: kept (read at most ``KEPT_FOR`` before), else ``read()``
        and kept."""
        if key in self.held and _fresh(self._at[key], self._wall()):
            return self.held[key]
        models = read()
        at = self._wall()
        line: dict[str, object] = {"key": list(key), "models": [m.wire() for m in models]}
        if self.as_read:
            self._append(line | {"at": at})
        else:
            self._unwritten.append(line | {"at": at})
        self.held[key], self._at[key] = models, at
        return models

    def expire(self) -> None:
        """Let go of the rows read more than ``KEPT_FOR`` before now: read again if asked
        (a run kept going windows since it took them up)."""
        now = self._wall()
        for key in [key for key, at in self._at.items() if not _fresh(at, now)]:
            del self.held[key], self._at[key]

    def drop(self, keys: Collection[tuple[str, ...]]) -> None:
        """The reads of ``keys`` used up (a chunk re-planned from them): the others kept for
        the next chunks, beside the log as they were (read when they were; a file of none
        removed). A paced re-read's (``as_read``)."""
        if not self.held.keys() & set(keys):
            return
        for key in keys:
            self.held.pop(key, None)
            self._at.pop(key, None)
        if not self.held:
            self.clear()
            return
        self.path.unlink(missing_ok=True)
        lines: list[dict[str, object]] = [{"refused": True}] if self.refused else []
        lines += (
            {"key": list(key), "models": [m.wire() for m in models], "at": self._at[key]}
            for key, models in self.held.items()
        )
        self._append(*lines)

    def refuse(self) -> None:
        """The re-read ended in a refusal (stale; a refresh's unsupported changes): what it
        read is kept for a ``refresh=True`` apply of the plan to take up (``KEPT_FOR``):
        not kept as read, written now, after the mark (a kill cuts a refusal's rows short)."""
        self._append({"refused": True})
        self.refused = True
        for line in self._unwritten:
            self._append(line)
        self._unwritten = []

    def clear(self) -> None:
        """The re-read ended: nothing kept for the next."""
        self.path.unlink(missing_ok=True)
        self.held, self._at = {}, {}
        self._unwritten = []
        self.refused = False

    def _append(self, *fields: dict[str, object]) -> None:
        """A line of this plan and owner for each of ``fields``, read now unless ``at`` says,
        in one write (a kill cuts the last line short at most: read again, not taken up)."""
        head = {"log": KEPT, "plan": self.plan, "owner": self.owner, "at": self._wall()}
        text = "".join(json.dumps(head | one, ensure_ascii=False) + "\n" for one in fields)
        fd = open_append(self.path, what=_WHAT, error=LogFileError)
        try:  # one O_APPEND write
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def _fresh(at: object, now: float) -> bool:
    """Whether a read made at ``at`` (Unix seconds) is at most ``KEPT_FOR`` old at ``now``
    (a time to come: this machine's clock was moved back, not trusted)."""
    if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
        return False
    return 0 <= now - at <= KEPT_FOR
