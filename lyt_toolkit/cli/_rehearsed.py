"""What ``lyt rehearse`` and ``lyt verify`` share: a saved plan rehearsed on a sandbox
holding its base snapshot (``SavedPlan.rehearse``), with the plan and the snapshot read
first, each failure one line naming the file or option, and the Python spellings of a
refusal given as the command line's (``lyt export --kinds ...``). No call reaches the
configured service here. Imports are late so ``lyt --help`` stays fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import LytError
from ._common import EXIT_ERROR, fail, scrub
from ._pull import read_or_fail

if TYPE_CHECKING:
    from ..actions import Rehearsal, SavedPlan
    from ..snapshot import ProgramSnapshot

__all__ = ["Rehearsed", "base_line", "load_or_fail", "pull_words", "rehearsed_or_fail"]


@dataclass(frozen=True)
class Rehearsed:
    """A saved plan, the snapshot it was rehearsed on, and the rehearsal."""

    plan: SavedPlan
    snapshot: ProgramSnapshot
    rehearsal: Rehearsal


def load_or_fail(path: str, command: str) -> SavedPlan | None:
    """The plan saved at ``path``, or None once one line says why it cannot be read (a file
    may quote a token planted in it: masked)."""
    from ..actions import ChangePlan

    try:
        return ChangePlan.load(path)
    except (LytError, OSError) as exc:
        fail(command, scrub(" ".join(str(exc).split())), EXIT_ERROR)
    return None


def base_line(plan: SavedPlan, folder: str, snapshot: ProgramSnapshot) -> str | None:
    """A note when the snapshot in ``folder`` is not the one the plan was made from (its
    source or pull time differ), else None: the rehearsal then stands for that state."""
    base = plan.base
    if (base.source, base.pulled_at) == (snapshot.source, snapshot.pulled_at):
        return None
    return (
        f"Note: the plan was made from the snapshot of {base.source} pulled at"
        f" {base.pulled_at:%Y-%m-%d %H:%M:%S} UTC; {folder} holds {snapshot.source} pulled at"
        f" {snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC: rehearsed on that"
    )


def rehearsed_or_fail(
    plan: SavedPlan,
    folder: str,
    command: str,
    log: Path | None = None,
    snapshot: ProgramSnapshot | None = None,
) -> Rehearsed | None:
    """``plan`` rehearsed on a sandbox holding the snapshot saved in ``folder`` (``--base``;
    ``snapshot``: already read from it), skipping what ``log`` shows done; None once one
    line says why it could not be."""
    snapshot = read_or_fail(folder, command) if snapshot is None else snapshot
    if snapshot is None:
        return None
    if (note := base_line(plan, folder, snapshot)) is not None:
        print(note)
    try:
        rehearsal = plan.rehearse(snapshot, log=log, progress=True)
    except (LytError, OSError, ValueError) as exc:
        reason = pull_words(" ".join(str(exc).split()))
        if reason.startswith("snapshot: "):  # the snapshot is the --base folder
            reason = f"--base {folder}: {reason.removeprefix('snapshot: ')}"
        fail(command, scrub(reason), EXIT_ERROR)
        return None
    return Rehearsed(plan, snapshot, rehearsal)


def pull_words(message: str) -> str:
    """A refusal naming a pull in Python, as the command line makes it: ``kinds=[...]`` as
    ``lyt export --kinds ...``, ``checkpoint='DIR'`` as ``lyt export --checkpoint DIR``."""
    message = re.sub(
        r"ProgramSnapshot\.pull\(client, kinds=\[([^]]*)\]\)",
        lambda m: f"lyt export --kinds {_names(m[1])}",
        message,
    )
    message = re.sub(
        r"pull with kinds=\[([^]]*)\]", lambda m: f"export with --kinds {_names(m[1])}", message
    )
    return re.sub(
        r"ProgramSnapshot\.pull\(client, checkpoint='([^']*)'\)",
        lambda m: f"lyt export --checkpoint {m[1]}",
        message,
    )


def _names(listed: str) -> str:
    """``'a', 'b'`` as ``a,b``."""
    return ",".join(name.strip().strip("'\"") for name in listed.split(","))
