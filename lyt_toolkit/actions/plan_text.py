"""How a plan shows: its summary line, a line per change, and Jupyter's table (a
``ChangePlan``'s and a ``SavedPlan``'s: the saved one's summary counts its re-read too)."""

from __future__ import annotations

from html import escape
from typing import Any

import pandas as pd

from .._text import counted
from .cost import PlanCost
from .edited_frames import noun

__all__ = ["HTML_ROWS", "SIGNS", "calls_text", "plan_html", "plan_lines", "summary_line"]

SIGNS = {"create": "+", "change": "~", "delete": "-"}
"""Action -> the sign its lines start with."""

HTML_ROWS = 50
"""Rows of each action group ``plan_html`` shows; the rest are counted."""

_HTML_COLUMNS = ("kind", "key", "column", "before", "after")


def summary_line(
    changes: pd.DataFrame, unsupported: pd.DataFrame, calls: str, budget: PlanCost | None
) -> str:
    """``Plan: N to create, N to change, N to delete; N changes the service cannot make;
    CALLS``, then ``, R left in this window`` once a ``budget`` is known (``budget
    unknown`` when the client had read none), with ``(S at the plan's share, 0.5)`` when
    its share is below 1 and ``; N short`` when the calls do not fit it."""
    counts = changes["action"].value_counts()
    made = ", ".join(f"{counts.get(a, 0)} to {a}" for a in SIGNS)
    cannot = counted(len(unsupported), "change")
    text = f"Plan: {made}; {cannot} the service cannot make; {calls}"
    if budget is None:
        return text
    if budget.remaining is None:
        return f"{text}, budget unknown"
    text = f"{text}, {budget.remaining} left in this window"
    if budget.share < 1:
        text += f" ({budget.allowed} at the plan's share, {budget.share:g})"
    return text if budget.fits else f"{text}; {counted(budget.shortfall, 'call')} short"


def calls_text(reads: int, writes: int) -> str:
    """A saved plan's calls: ``N calls (R re-reads, then W writes)``, or ``W calls`` when
    nothing is re-read."""
    if not reads:
        return counted(writes, "call")
    both = f"{counted(reads, 're-read')}, then {counted(writes, 'write')}"
    return f"{counted(reads + writes, 'call')} ({both})"


def plan_lines(changes: pd.DataFrame, unsupported: pd.DataFrame) -> list[str]:
    """A line per change (``+``, ``~``, ``-``; a pending-bucket activation the base shows
    blocked ends ``(the service will refuse: REASON)``) and per change the service cannot
    make (``!``, with the reason)."""
    lines = []
    for row in changes.itertuples(index=False):
        what = noun(str(row.kind))
        if row.action == "create":
            lines.append(f'+ {what} "{row.key}" {row.after}')
        elif row.action == "change":
            lines.append(f"~ {what} {row.key} {row.column} {row.before} -> {row.after}")
        else:
            lines.append(f"- {what} {row.key}")
        if isinstance(row.blocked_reason, str):
            lines[-1] += f" (the service will refuse: {row.blocked_reason})"
    for row in unsupported.itertuples(index=False):
        detail = f" {row.column} {row.before} -> {row.after}" if isinstance(row.column, str) else ""
        lines.append(f"! {noun(str(row.kind))} {row.key}{detail}: {row.reason}")
    return lines


def plan_html(
    summary: str, changes: pd.DataFrame, unsupported: pd.DataFrame, note: str = ""
) -> str:
    """Jupyter's view: the summary (and a ``note`` under it: a saved plan's file and
    sha256), then a table grouped by action (create, change, delete, cannot make), each
    group headed with its count; every value escaped, at most ``HTML_ROWS`` rows a group."""
    groups = [(action, changes[changes["action"] == action], "call") for action in SIGNS]
    groups.append(("cannot make", unsupported, "reason"))
    body = [_html_group(action, rows, last) for action, rows, last in groups if len(rows)]
    head = "".join(f"<th>{c}</th>" for c in _HTML_COLUMNS) + "<th>call / reason</th>"
    empty = f'<tbody><tr><td colspan="{len(_HTML_COLUMNS) + 1}">No changes.</td></tr></tbody>'
    return (
        f'<div class="lyt-change-plan"><p><b>{escape(summary)}</b></p>'
        + (f"<p>{escape(note)}</p>" if note else "")
        + f"<table><thead><tr>{head}</tr></thead>{''.join(body) or empty}</table></div>"
    )


def _html_group(action: str, rows: pd.DataFrame, last: str) -> str:
    """One ``<tbody>``: a header row naming ``action`` and its count, then its rows."""
    width = len(_HTML_COLUMNS) + 1
    lines = [f'<tr><th colspan="{width}" style="text-align:left">{action} ({len(rows)})</th></tr>']
    for row in rows.head(HTML_ROWS).itertuples(index=False):
        cells = [getattr(row, c) for c in (*_HTML_COLUMNS, last)]
        if last == "call" and isinstance(row.blocked_reason, str):
            cells[-1] = f"{cells[-1]} (the service will refuse: {row.blocked_reason})"
        lines.append("<tr>" + "".join(f"<td>{_html_cell(v)}</td>" for v in cells) + "</tr>")
    if len(rows) > HTML_ROWS:
        more = len(rows) - HTML_ROWS
        lines.append(f'<tr><td colspan="{width}">... and {more} more</td></tr>')
    return "<tbody>" + "".join(lines) + "</tbody>"


def _html_cell(value: Any) -> str:
    """A cell's text, HTML-escaped; NA blank."""
    return "" if value is None or value is pd.NA or pd.isna(value) else escape(str(value))
