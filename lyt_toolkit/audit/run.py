"""Run the audit rules over a snapshot and collect their findings as one DataFrame."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from ._view import shared_rows
from .registry import RULES, SEVERITIES, Rule

if TYPE_CHECKING:
    from ..snapshot import ProgramSnapshot

FINDING_COLUMNS: tuple[str, ...] = (
    "rule",
    "severity",
    "resource_type",
    "resource_id",
    "resource_name",
    "message",
)
"""Columns of the findings frame, in order; the same with zero findings."""

SEVERITY_DTYPE = pd.CategoricalDtype(list(SEVERITIES), ordered=True)
"""``error`` < ``warning`` < ``info`` in urgency order, so sorting puts errors first."""


def findings_frame(records: Iterable[dict[str, Any]] = ()) -> pd.DataFrame:
    """A findings frame with the declared columns and dtypes (text as ``string``)."""
    frame = pd.DataFrame(list(records), columns=list(FINDING_COLUMNS))
    typed = frame.astype({c: "string" for c in FINDING_COLUMNS if c != "severity"})
    typed["severity"] = typed["severity"].astype(SEVERITY_DTYPE)
    return typed


def run(snapshot: ProgramSnapshot, rules: Iterable[str | Rule] | None = None) -> pd.DataFrame:
    """Audit ``snapshot`` with every registered rule (or the ones named) and return findings.

    One row per finding; sorted by severity (errors first), rule, resource type,
    resource id and message, so two audits of the same data compare equal.
    """
    chosen = list(RULES.values()) if rules is None else [_rule(r) for r in rules]
    with shared_rows():
        records = _records(snapshot, chosen)
    frame = findings_frame(records)
    order = ["severity", "rule", "resource_type", "resource_id", "message"]
    return frame.sort_values(order, kind="stable", na_position="last").reset_index(drop=True)


def _records(snapshot: ProgramSnapshot, chosen: list[Rule]) -> list[dict[str, Any]]:
    return [
        {
            "rule": r.id,
            "severity": r.severity.value,
            "resource_type": f.resource_type,
            "resource_id": f.resource_id,
            "resource_name": f.resource_name,
            "message": f.message,
        }
        for r in chosen
        for f in r.check(snapshot)
    ]


def _rule(item: str | Rule) -> Rule:
    if isinstance(item, Rule):
        return item
    try:
        return RULES[item]
    except KeyError:
        raise KeyError(f"no audit rule {item!r}; known rules: {', '.join(RULES)}") from None


def summary(findings: pd.DataFrame) -> pd.DataFrame:
    """Finding counts per rule (every registered rule, in catalogue order) and severity.

    Columns are the severities plus ``total``; the last row, ``total``, sums them.
    """
    counts = pd.DataFrame(0, index=pd.Index(list(RULES), name="rule"), columns=list(SEVERITIES))
    sizes = findings.groupby(["rule", "severity"], observed=True).size()
    for key, n in sizes.items():
        rule_id, severity = cast(tuple[str, str], key)  # the (rule, severity) group
        counts.loc[rule_id, severity] = int(n)
    counts["total"] = counts.sum(axis=1)
    counts.loc["total"] = counts.sum(axis=0)
    return counts
