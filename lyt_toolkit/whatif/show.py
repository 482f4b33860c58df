"""A what-if shown: a short text table (``print``) and Jupyter's grid with what moved
highlighted."""

from __future__ import annotations

from html import escape
from typing import Protocol

import pandas as pd

from .._text import counted
from ..actions import ChangePlan
from ..economics import Economics
from ..economics.schemas import DEFINITION_MEASURES
from ..reports.economics_report import format_figure, not_pulled_figure
from ..reports.what_if_page import (
    counts,
    definitions_table,
    edits_table,
    findings_table,
    headline_table,
    mispricing_table,
)
from .schemas import MadeBy

SERVICE, DASHBOARD = MadeBy.SERVICE.value, MadeBy.DASHBOARD.value

__all__ = ["Shown", "summary_line", "what_if_html", "what_if_text"]


class Shown(Protocol):
    """What a what-if shows (``WhatIf``)."""

    @property
    def before(self) -> Economics: ...
    @property
    def headline(self) -> pd.DataFrame: ...
    @property
    def not_given(self) -> dict[str, str]: ...
    @property
    def card_definitions(self) -> pd.DataFrame: ...
    @property
    def mispricing(self) -> pd.DataFrame: ...
    @property
    def edits(self) -> pd.DataFrame: ...
    @property
    def findings(self) -> pd.DataFrame: ...
    @property
    def plan(self) -> ChangePlan: ...


def summary_line(what: Shown) -> str:
    """``3 edits: 1 the service can make (1 call), 2 only in its dashboard``."""
    edits = what.edits
    if not len(edits):
        return "No edits: the figures are the base snapshot's."
    made = int((edits["made_by"] == MadeBy.SERVICE.value).sum())
    calls = counted(len(what.plan.parts) and int(what.plan.changes["calls"].sum()), "call")
    return (
        f"{counted(len(edits), 'edit')}: {made} the service can make ({calls}), "
        f"{len(edits) - made} only in its dashboard"
    )


def _change(name: str, row: pd.Series, reasons: dict[str, str]) -> str:
    if name in reasons:  # NA on a side: a kind it counts not pulled, no value observed
        return not_pulled_figure(reasons[name])
    change = row["change"]
    text = format_figure(name, change)
    if not pd.isna(change) and change > 0:
        text = f"+{text}"
    if not pd.isna(row["change_ci_low"]):
        low = format_figure(name, row["change_ci_low"])
        high = format_figure(name, row["change_ci_high"])
        text = f"{text} (95 % CI {low} to {high})"
    return text


def what_if_text(what: Shown) -> str:
    """The headline before, after and change (a figure a side cannot give: ``n/a (rewards,
    reward_costs not pulled)``, ``n/a (no point value observed)``), then one line each for
    the card definitions that move, the mispricing, the findings and the edits."""
    reasons = what.not_given
    rows = [("figure", "before", "after", "change")]
    for _, row in what.headline.iterrows():
        name = str(row["figure"])
        rows.append(
            (
                name.replace("_", " "),
                format_figure(name, row["before"]),
                format_figure(name, row["after"]),
                _change(name, row, reasons),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    table = [
        f"  {r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]}" for r in rows
    ]
    moved = _moving_definitions(what)
    lines = [
        f"What-if on {what.before.source or 'a snapshot'} as of "
        f"{what.before.pulled_at:%Y-%m-%d %H:%M} UTC (amounts in minor units)",
        f"  {summary_line(what)}",
        *table,
        "  card definitions that move: " + (", ".join(moved) if moved else "none"),
        f"  mispricing: {counts(what.mispricing, ('appeared', 'resolved', 'changed'))}",
        f"  audit findings: {counts(what.findings, ('appeared', 'changed', 'resolved'))}",
    ]
    return "\n".join(lines)


def _moving_definitions(what: Shown) -> list[str]:
    """Names (else IDs) of the card definitions with a measure that changes."""
    frame = what.card_definitions
    moved = pd.Series(False, index=frame.index)
    for measure, _ in DEFINITION_MEASURES:
        before, after = frame[f"{measure}_before"], frame[f"{measure}_after"]
        change = frame[f"{measure}_change"]
        moved |= (change.fillna(0) != 0).astype(bool) | (before.isna() != after.isna())
    names = frame["card_definition_name"].fillna(frame["card_definition_id"])
    return [str(n) for n in names[moved]]


def what_if_html(what: Shown) -> str:
    """Jupyter's view: the summary, then the report page's tables (``reports.what_if_page``):
    the headline, the card definitions, the mispricing, the edits and the findings, what
    moved highlighted; each table's rest counted, pointing at the ``WhatIf`` frame."""
    edits = what.edits
    parts = [
        f'<div class="lyt-what-if"><p><b>{escape(summary_line(what))}</b></p>',
        "<h4>Headline (amounts in minor units)</h4>",
        headline_table(what.headline, "WhatIf.headline", what.not_given),
        "<h4>Card definitions</h4>",
        definitions_table(what.card_definitions, "WhatIf.card_definitions"),
        "<h4>Mispricing that changes</h4>",
        mispricing_table(what.mispricing, "WhatIf.mispricing"),
        "<h4>Edits and who can make them</h4>",
        f"<p>The service (the plan's calls):</p>{edits_table(edits, SERVICE, 'WhatIf.edits')}",
        f"<p>Only its dashboard:</p>{edits_table(edits, DASHBOARD, 'WhatIf.edits')}",
        "<h4>Audit findings that change</h4>",
        findings_table(what.findings, "WhatIf.findings"),
        "</div>",
    ]
    return "".join(parts)
