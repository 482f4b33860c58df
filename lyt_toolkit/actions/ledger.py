"""The ledger of applied plans: a plan applied to completion is recorded next to its file
(``<file>.applied``, one JSON line a complete apply, each with the sha256 of the plan file's
bytes; beside the file a symbolic link names, so a second link refuses it too), and that
same plan refuses to apply again.

The record is bound to the plan's content, not its path: a new plan saved over an applied
one (the usual ``plan.save("plan.json")`` after the next pull) applies, while the applied
one, kept or written back, is still refused. Refusing the save instead would make the
analyst delete a marker by hand to reuse a name, and a deleted marker protects nothing;
hashing keeps the protection on what matters (sending the same calls twice) without the
chore. A marker written before the hash was recorded (no ``sha256``) refuses any plan at
that path, naming the marker to delete when the plan is a new one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from .._lock import beside
from ..errors import LytError
from ..snapshot.clock import utc_now
from ._runner import REFUSED_FOR_GOOD
from .items import Outcome

__all__ = [
    "COMPLETE",
    "PlanAlreadyAppliedError",
    "applied_marker",
    "applied_record",
    "record_applied",
    "refuse_applied",
    "refused_for_good",
]

COMPLETE = (Outcome.SUCCEEDED, Outcome.ALREADY_DONE, Outcome.SKIPPED)
"""Outcomes of an item the plan no longer has to send."""


def refused_for_good(results: pd.DataFrame) -> pd.Series:
    """Which of a saved plan's ``results`` are writes the service refused for good
    (``_runner.REFUSED_FOR_GOOD``): a run again with the log does not send them, only a
    plan made again (``refresh``) reconsiders them."""
    status = pd.to_numeric(results["status"], errors="coerce")
    return (results["outcome"] == Outcome.FAILED) & status.isin(REFUSED_FOR_GOOD)


class PlanAlreadyAppliedError(LytError, RuntimeError):
    """A plan file already applied to completion."""


def applied_marker(path: Path) -> Path:
    """Where a complete apply of the plan file at ``path`` is recorded: next to it, the
    file a symbolic link names (every link to one plan file shares its marker)."""
    return beside(path, ".applied")


def applied_record(path: Path, sha256: str) -> dict[str, Any] | None:
    """The marker's record of an apply to completion of the plan whose file's bytes hash
    to ``sha256``, else ``None``; a record without a hash (an older toolkit's) counts as
    this plan's: it cannot tell."""
    try:
        raw = applied_marker(path).read_bytes()
    except FileNotFoundError:
        return None
    # a line holding a byte that is not UTF-8 (damaged) is skipped, as a cut line is
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            continue
        if record.get("sha256", sha256) == sha256:
            return record
    return None


def refuse_applied(path: Path, sha256: str) -> None:
    """``PlanAlreadyAppliedError`` when the ledger holds an apply to completion of it."""
    applied = applied_record(path, sha256)
    if applied is not None:
        unbound = "" if "sha256" in applied else "; if this is a new plan, delete that marker"
        raise PlanAlreadyAppliedError(
            f"{path} was applied to completion ({applied_marker(path)}{unbound});"
            " plan again from a fresh snapshot"
        )


def record_applied(path: Path, sha256: str, results: pd.DataFrame) -> bool:
    """Record the apply whose ``results`` these are if it was complete (every outcome
    ``COMPLETE``); whether it was."""
    if not results["outcome"].isin(COMPLETE).all():
        return False
    record = {"applied_at": utc_now().isoformat(), "calls": len(results), "sha256": sha256}
    with applied_marker(path).open("a", encoding="utf-8") as marker:
        marker.write(json.dumps(record) + "\n")
    return True
