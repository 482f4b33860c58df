"""Audit findings between two snapshots: which appeared, which changed, which were resolved.

A finding is identified by what it is about: its rule, resource type and
resource ID. A finding of ``after`` with the same identity and message as one
of ``before`` stayed and is left out; among the rest, findings with the same
identity pair up in order as ``changed`` (the new message in ``message``, the
old one in ``previous_message``), and the unpaired ones ``appeared`` or were
``resolved``. ``findings_between(diff.before, diff.after)`` is the findings of a
``SnapshotDiff`` (its deprecated ``findings`` attribute calls it, once importing
``lyt_toolkit.audit`` registered it).

When either snapshot is a sample, the rules that read member records (``Rule.per_member``)
see different members on the two sides, so a finding of an unsampled member would read as
resolved: ``findings_between`` leaves those rules out, warns, and names them in the
result's ``attrs["left_out"]``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import pandas as pd

from .registry import RULES
from .run import FINDING_COLUMNS, run

if TYPE_CHECKING:
    from ..snapshot import ProgramSnapshot

__all__ = ["FINDING_CHANGES", "compare_findings", "findings_between"]

FINDING_CHANGES = ("appeared", "changed", "resolved")
"""Values of the ``change`` column of ``findings_between``."""

LEFT_OUT_ATTR = "left_out"
"""The key of ``findings_between(...).attrs`` naming the rules left out (a sample's side)."""

_IDENTITY = ["rule", "resource_type", "resource_id"]
"""What a finding is about: findings with the same identity are one finding over time."""

_NTH = "_nth"


def findings_between(before: ProgramSnapshot, after: ProgramSnapshot) -> pd.DataFrame:
    """Findings of ``after`` not in ``before`` (``appeared``), those whose message changed
    (``changed``) and those of ``before`` gone from ``after`` (``resolved``).

    With a sample on either side the per-member rules are left out, with a ``UserWarning``
    and their ids in ``attrs["left_out"]`` (see the module doc)."""
    if before.sample is None and after.sample is None:
        return compare_findings(run(before), run(after))
    left_out = [r.id for r in RULES.values() if r.per_member]
    rules = [r for r in RULES.values() if not r.per_member]
    sides = " and ".join(
        f"the {name} snapshot is a {s.sample}"
        for name, s in (("before", before), ("after", after))
        if s.sample is not None
    )
    warnings.warn(
        f"findings of {', '.join(left_out)} left out: {sides}, whose findings about cards and "
        "pending buckets are of its sampled members only (compare two full pulls for them)",
        UserWarning,
        stacklevel=2,
    )
    columns = list(FINDING_COLUMNS)
    out = compare_findings(run(before, rules)[columns], run(after, rules)[columns])
    out.attrs[LEFT_OUT_ATTR] = tuple(left_out)
    return out


def compare_findings(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """``change``, the finding columns and ``previous_message`` (NA unless ``changed``):
    appeared findings first, then changed, then resolved ones, each in their audit's order."""
    old = _numbered(_only_in(before, after), _IDENTITY)
    new = _numbered(_only_in(after, before), _IDENTITY)
    keys = [*_IDENTITY, _NTH]
    new = new.merge(
        old[[*keys, "message"]].rename(columns={"message": "previous_message"}),
        on=keys,
        how="left",
        indicator=True,
    )
    old = old.merge(new[keys], on=keys, how="left", indicator=True)
    parts = {
        "appeared": new[new["_merge"] == "left_only"],
        "changed": new[new["_merge"] == "both"],
        "resolved": old[old["_merge"] == "left_only"],
    }
    out = pd.concat([part.assign(change=name) for name, part in parts.items()], ignore_index=True)
    out = out.astype({**before.dtypes.to_dict(), "previous_message": "string"})
    out["change"] = out["change"].astype(pd.CategoricalDtype(list(FINDING_CHANGES)))
    return out[["change", *FINDING_COLUMNS, "previous_message"]]


def _only_in(frame: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``frame`` with no equal finding in ``other`` (a repeated one counts each time)."""
    columns = [*_IDENTITY, "message"]
    mine = _numbered(frame, columns)
    keys = pd.MultiIndex.from_frame(mine[[*columns, _NTH]].astype(object))
    others = pd.MultiIndex.from_frame(_numbered(other, columns)[[*columns, _NTH]].astype(object))
    return frame[~keys.isin(others)].reset_index(drop=True)


def _numbered(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame`` with ``_nth``: 0, 1, ... among rows with the same values in ``columns``."""
    return frame.assign(**{_NTH: frame.groupby(columns, dropna=False).cumcount()})
