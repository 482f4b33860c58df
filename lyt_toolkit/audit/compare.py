"""Audit findings between two snapshots: which appeared and which were resolved.

A finding is the same in both when its rule, resource type, resource ID and
message are; a finding whose message changed counts as resolved and appeared.
Importing ``lyt_toolkit.audit`` makes this the source of ``SnapshotDiff.findings``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from .run import FINDING_COLUMNS, run

if TYPE_CHECKING:
    from ..snapshot import ProgramSnapshot

__all__ = ["FINDING_CHANGES", "compare_findings", "findings_between"]

FINDING_CHANGES = ("appeared", "resolved")
"""Values of the ``change`` column of ``findings_between``."""

_IDENTITY = ["rule", "resource_type", "resource_id", "message"]


def findings_between(before: ProgramSnapshot, after: ProgramSnapshot) -> pd.DataFrame:
    """Findings of ``after`` not in ``before`` (``appeared``) and the reverse (``resolved``)."""
    return compare_findings(run(before), run(after))


def compare_findings(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """``change`` plus the finding columns: appeared findings first, then resolved ones."""
    appeared = _only_in(after, before)
    resolved = _only_in(before, after)
    out = pd.concat([appeared, resolved], ignore_index=True)
    change = ["appeared"] * len(appeared) + ["resolved"] * len(resolved)
    out.insert(0, "change", pd.Series(change, dtype=pd.CategoricalDtype(list(FINDING_CHANGES))))
    return out[["change", *FINDING_COLUMNS]]


def _only_in(frame: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    keys = pd.MultiIndex.from_frame(frame[_IDENTITY].astype(object))
    others = pd.MultiIndex.from_frame(other[_IDENTITY].astype(object))
    return frame[~keys.isin(others)].reset_index(drop=True)
