"""Run the audit rules over a snapshot and collect their findings as one DataFrame.

On a sampled snapshot the rules that read member records (``Rule.per_member``: cards,
pending buckets) see only the sampled members' records, so their findings are a sample
too. Each finding still names the record it found; the findings frame adds ``member_id``
and ``weight`` (``SAMPLED_COLUMNS``) and keeps the sample design in
``findings.attrs["sample"]``, and ``summary`` counts such a rule's findings in the sample
and estimates them for the program with a 95 % interval (``estimate_total`` on each sampled
member's count). A full snapshot's findings and summary are as they always were.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import numpy as np
import pandas as pd

from ..frames.sample import SampleDesign, estimate_totals
from ..snapshot import ProgramSnapshot
from ._view import shared_rows
from .registry import RULES, SEVERITIES, Rule

FINDING_COLUMNS: tuple[str, ...] = (
    "rule",
    "severity",
    "resource_type",
    "resource_id",
    "resource_name",
    "message",
)
"""Columns of the findings frame, in order; the same with zero findings."""

SAMPLED_COLUMNS: tuple[str, ...] = ("member_id", "weight")
"""Columns the findings of a sampled snapshot add after ``FINDING_COLUMNS``: the member whose
record a finding names (NA for a record of a frame read whole) and how many findings of the
program it stands for (its member's weight; 1 for a record of a frame read whole)."""

ESTIMATE_COLUMNS: tuple[str, ...] = ("sampled", "estimated", "ci_low", "ci_high")
"""Columns ``summary`` adds on a sample's findings: findings in the sample (NA for a rule
that reads only whole frames), and the program's count estimated with its 95 % interval
(a whole-frame rule's count is exact, so all three equal it)."""

LEFT_OUT_ATTR = "left_out"
"""The findings' ``attrs`` key naming the rules a partial snapshot could not be judged by."""
SAMPLE_ATTR = "sample"
"""The key of ``findings.attrs`` holding the ``SampleDesign`` of a sampled snapshot's findings."""

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

    On a sampled snapshot (``snapshot.sample``) the frame adds ``SAMPLED_COLUMNS`` and keeps
    the design in ``attrs["sample"]``, for ``summary`` to estimate the program's counts.

    A snapshot pulled with ``kinds=`` is judged only by the rules whose ``needs`` it holds:
    the others are left out, their ids in ``attrs["left_out"]`` (a reward cost never pulled
    is not missing); naming such a rule in ``rules`` is a ``ValueError``.
    """
    if not isinstance(snapshot, ProgramSnapshot):
        raise TypeError(f"snapshot: expected a ProgramSnapshot, not {type(snapshot).__name__}")
    chosen = list(RULES.values()) if rules is None else [_rule(r) for r in rules]
    cannot = [r for r in chosen if not r.needs <= snapshot.kinds]
    if cannot and rules is not None:
        lacking = "; ".join(
            f"{r.id} needs {', '.join(sorted(r.needs - snapshot.kinds))}" for r in cannot
        )
        raise ValueError(
            f"rules: this snapshot was pulled without what they judge ({lacking}); pull those "
            "kinds too, or leave those rules out"
        )
    chosen = [r for r in chosen if r not in cannot]
    with shared_rows():
        records = _records(snapshot, chosen)
    frame = findings_frame(records)
    if cannot:
        frame.attrs[LEFT_OUT_ATTR] = [r.id for r in cannot]
    if snapshot.sample is not None:
        frame = _weighed(frame, records, snapshot.sample)
    order = ["severity", "rule", "resource_type", "resource_id", "message"]
    return frame.sort_values(order, kind="stable", na_position="last").reset_index(drop=True)


def _weighed(
    frame: pd.DataFrame, records: list[dict[str, Any]], design: SampleDesign
) -> pd.DataFrame:
    """``frame`` with ``member_id``, ``weight`` and the design in its attrs."""
    members = pd.array([r["member_id"] for r in records], dtype="string")
    weighed = design.weigh(frame.assign(member_id=members))
    whole = ~frame["rule"].isin(_per_member_rules()).to_numpy(dtype=bool)
    weighed["weight"] = weighed["weight"].mask(whole, 1.0)
    weighed.attrs[SAMPLE_ATTR] = design
    return weighed


def _records(snapshot: ProgramSnapshot, chosen: list[Rule]) -> list[dict[str, Any]]:
    return [
        {
            "rule": r.id,
            "severity": r.severity.value,
            "resource_type": f.resource_type,
            "resource_id": f.resource_id,
            "resource_name": f.resource_name,
            "message": f.message,
            "member_id": f.member_id,
        }
        for r in chosen
        for f in r.check(snapshot)
    ]


def _per_member_rules() -> list[str]:
    return [r.id for r in RULES.values() if r.per_member]


def _rule(item: str | Rule) -> Rule:
    if isinstance(item, Rule):
        return item
    try:
        return RULES[item]
    except KeyError:
        raise KeyError(f"no audit rule {item!r}; known rules: {', '.join(RULES)}") from None


def summary(findings: pd.DataFrame, sample: SampleDesign | None = None) -> pd.DataFrame:
    """Finding counts per rule (every registered rule, in catalogue order) and severity.

    Columns are the severities plus ``total``; the last row, ``total``, sums them.

    The findings of a sampled snapshot (``run`` gave them ``weight`` and the design in
    ``attrs["sample"]``; else pass ``sample=snapshot.sample``) add ``ESTIMATE_COLUMNS``: a
    per-member rule's count in the sample is not the program's, so ``estimated``,
    ``ci_low`` and ``ci_high`` give the program's (see ``estimate_lines`` for them in words).
    ``ci_low`` is never below the findings seen: those are in the program for sure. They
    are not rounded here; the printed summary and ``audit_estimates.csv`` round them to
    whole findings (``reports.audit_report.whole_estimates``).
    """
    counts = pd.DataFrame(0, index=pd.Index(list(RULES), name="rule"), columns=list(SEVERITIES))
    sizes = findings.groupby(["rule", "severity"], observed=True).size()
    for key, n in sizes.items():
        rule_id, severity = cast(tuple[str, str], key)  # the (rule, severity) group
        counts.loc[rule_id, severity] = int(n)
    counts["total"] = counts.sum(axis=1)
    counts.loc["total"] = counts.sum(axis=0)
    design = sample if sample is not None else findings.attrs.get(SAMPLE_ATTR)
    if design is None and "weight" in findings.columns:
        raise ValueError(
            "these findings are of a sampled snapshot (they have a weight column), so their "
            "counts are the sample's, not the program's: pass summary(findings, "
            "sample=snapshot.sample) to estimate the program's (a report folder's snapshot, "
            "read_snapshot(folder), holds it)"
        )
    return counts if design is None else _estimated(counts, findings, design)


def _estimated(counts: pd.DataFrame, findings: pd.DataFrame, design: SampleDesign) -> pd.DataFrame:
    """``counts`` with ``ESTIMATE_COLUMNS``: per-member rules estimated from the per-member
    counts of their findings, whole-frame rules exact, the total both added up."""
    if "member_id" not in findings.columns:
        raise ValueError("findings: a sample's findings need the member_id column run() gives")
    per_member = [r for r in _per_member_rules() if r in counts.index]
    mine = findings[findings["rule"].isin(per_member)]
    if mine["member_id"].isna().any():
        raise ValueError("findings: a per-member rule's finding names no member_id")
    table = pd.crosstab(mine["member_id"].astype("string"), mine["rule"].astype("string"))
    table = table.reindex(columns=per_member, fill_value=0)
    table["total"] = table.sum(axis=1)
    estimates = estimate_totals(design, table.astype("float64"))
    seen = counts["total"].astype("float64")
    seen["total"] = seen[per_member].sum()
    exact = counts["total"].drop(index=[*per_member, "total"]).sum()
    out = counts.copy()
    out["sampled"] = pd.array([pd.NA] * len(out), dtype="Int64")
    out.loc[[*per_member, "total"], "sampled"] = seen[[*per_member, "total"]].astype("int64")
    rows = [*per_member, "total"]
    found = estimates.loc[rows].set_axis(rows)
    found.loc["total", ["value", "low", "high"]] += exact
    floor = seen[rows].copy()  # the findings seen are in the program for sure
    floor["total"] += exact
    found["low"] = np.maximum(found["low"].to_numpy(), floor.to_numpy())
    unseen = [r for r in per_member if seen[r] == 0]
    if unseen and not design.census:
        found.loc[unseen, "high"] = unseen_bound(design)
    for column, name in (("estimated", "value"), ("ci_low", "low"), ("ci_high", "high")):
        values = counts["total"].astype("float64")
        values[rows] = found[name].to_numpy()
        out[column] = pd.array(values.to_numpy(), dtype="Float64")
    return out


def unseen_bound(design: SampleDesign) -> float:
    """The 95 % upper bound on the members of the program with a problem the sample saw in
    none of them: ``-ln(0.05) x`` the largest weight, about 3 times the members the most
    thinly sampled member stands for. Hidden where the sample is thinnest, that many go
    unseen 1 time in 20 (``P(none seen) ~ exp(-sum_h K_h / w_h)``); spread elsewhere,
    fewer. A member with several findings of one rule counts once."""
    weights = design.units["weight"].astype("float64")
    return float(-np.log(0.05) * weights.max()) if len(weights) else 0.0


def estimate_lines(counts: pd.DataFrame, design: SampleDesign) -> list[str]:
    """One sentence per per-member rule of a sample's ``summary``: its findings in the sample
    and the program's estimate, e.g. ``pending-bucket-not-activatable: 3 in the sample of
    1,000 members; about 60 (95 % CI 20 to 100) in the program`` (none when not a sample's)."""
    if "sampled" not in counts.columns:
        return []
    lines = []
    of = f"in the sample of {design.size:,} of {design.population:,} members"
    for rule_id, row in counts.drop(index="total").iterrows():
        if pd.isna(row["sampled"]):
            continue
        n = int(row["sampled"])
        if n == 0 and not design.census:
            lines.append(
                f"{rule_id}: none {of}; the program may still have some: at most about "
                f"{float(row['ci_high']):,.0f} members with one (95 % upper bound)"
            )
            continue
        interval = f"95 % CI {float(row['ci_low']):,.0f} to {float(row['ci_high']):,.0f}"
        if design.census:
            interval = "exact: every member was read"
        lines.append(
            f"{rule_id}: {n:,} {of}; about {float(row['estimated']):,.0f} ({interval}) "
            "in the program"
        )
    return lines
