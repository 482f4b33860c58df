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
result's ``attrs["left_out"]``. A rule needing a kind (``Rule.needs``) that either snapshot
was pulled without is left out and named there too, without a warning.
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

    Rules are left out, their ids in ``attrs["left_out"]``, when a side cannot judge them:
    the per-member rules with a sample on either side (with a ``UserWarning``, see the module
    doc), and a rule whose ``needs`` the two snapshots do not both hold (pulled with
    ``kinds=``: a card definition never pulled is not missing)."""
    sides = (("before", before.sample), ("after", after.sample))
    sampled = [(name, design) for name, design in sides if design is not None]
    held = before.kinds & after.kinds
    left_out = [r.id for r in RULES.values() if (sampled and r.per_member) or not r.needs <= held]
    if sampled:
        per_member = ", ".join(r.id for r in RULES.values() if r.per_member)
        which = " and ".join(f"the {name} snapshot is a {design}" for name, design in sampled)
        warnings.warn(
            f"findings of {per_member} left out: {which}, whose findings about cards and "
            "pending buckets are of its sampled members only (compare two full pulls for them)",
            UserWarning,
            stacklevel=2,
        )
    if not left_out:
        return compare_findings(run(before), run(after))
    rules = [r for r in RULES.values() if r.id not in left_out]
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
