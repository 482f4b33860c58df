"""How a plan shows: its summary line, a line per change, and Jupyter's table (a
``ChangePlan``'s and a ``SavedPlan``'s: the saved one's summary counts its re-read too).

A long plan is cut as pandas cuts a long frame, by the same options: more than
``display.max_rows`` changes (60 by default; None: no limit) show ``display.min_rows`` of
them (10), half from the head and half from the tail, with a line between counting those
left out and saying where they all are (``to_string()``, the ``changes`` and
``unsupported`` frames; ``lyt plan``: its ``--out`` file)."""

from __future__ import annotations

from html import escape
from typing import Any

import pandas as pd

from .._json_file import clipped
from .._text import counted, figure
from .cost import PlanCost
from .edited_frames import noun

__all__ = [
    "SIGNS",
    "calls_text",
    "marked_calls_text",
    "plan_html",
    "plan_lines",
    "plan_string",
    "refused_lines",
    "sample_note",
    "shown_rows",
    "summary_line",
]

SIGNS = {"create": "+", "change": "~", "delete": "-"}
"""Action -> the sign its lines start with."""
EVERY_LINE = "print(plan.to_string()), or the frames plan.changes and plan.unsupported"
"""Where a cut plan's lines all are, in Python."""


def shown_rows(count: int) -> tuple[int, int]:
    """How many of ``count`` rows show from the head and from the tail, as pandas shows a
    frame's: all of them (``count, 0``) up to ``display.max_rows`` or when it is None, else
    ``display.min_rows`` (at most ``display.max_rows``), half from each end."""
    most = pd.get_option("display.max_rows")
    if most is None or count <= most:
        return count, 0
    least = pd.get_option("display.min_rows")
    half = max(min(least, most) if least else most, 2) // 2
    return half, half


def _more(hidden: int, total: int, where: str = EVERY_LINE) -> str:
    """The line standing for the ``hidden`` rows of ``total`` a cut plan leaves out, saying
    ``where`` they all are."""
    return (
        f"... {hidden:,} more {'change' if hidden == 1 else 'changes'} (all {total:,}: {where}) ..."
    )


def _cut(lines: list[str], where: str) -> list[str]:
    """``lines`` as ``shown_rows`` shows them: the head, a line counting the rest and saying
    ``where`` they all are, the tail."""
    head, tail = shown_rows(len(lines))
    hidden = len(lines) - head - tail
    if not hidden:
        return lines
    return [*lines[:head], _more(hidden, len(lines), where), *lines[len(lines) - tail :]]


_HTML_COLUMNS = ("kind", "key", "column", "before", "after")


def summary_line(
    changes: pd.DataFrame, unsupported: pd.DataFrame, calls: str, budget: PlanCost | None
) -> str:
    """``Plan: N to create, N to change, N to delete; N changes the service cannot make;
    CALLS``, then ``, R left in this window`` once a ``budget`` is known (``budget
    unknown`` when the client had read none), with ``(S at the plan's share, 0.5)`` when
    its share is below 1 and ``; N short`` when the calls do not fit it."""
    counts = changes["action"].value_counts()
    made = ", ".join(f"{figure(counts.get(a, 0))} to {a}" for a in SIGNS)
    cannot = counted(len(unsupported), "change")
    text = f"Plan: {made}; {cannot} the service cannot make; {calls}"
    if budget is None:
        return text
    if budget.remaining is None:
        return f"{text}, budget unknown"
    text = f"{text}, {figure(budget.remaining)} left in this window"
    if budget.share < 1 and budget.allowed is not None:
        text += f" ({figure(budget.allowed)} at the plan's share, {budget.share:g})"
    return text if budget.fits else f"{text}; {counted(budget.shortfall, 'call')} short"


def calls_text(reads: int, writes: int, refused: int = 0) -> str:
    """A plan's calls: ``N calls (R re-reads, then W writes)``, or ``W calls`` when nothing
    is re-read; with ``refused`` writes the base shows the service will refuse, each read
    back once, ``N calls (..., W writes, F reads back of the writes the service will
    refuse)``."""
    if not reads and not refused:
        return counted(writes, "call")
    parts = f"{counted(reads, 're-read')}, then " if reads else ""
    parts += counted(writes, "write")
    if refused:
        parts += f", {counted(refused, 'read')} back of the writes the service will refuse"
    return f"{counted(reads + writes + refused, 'call')} ({parts})"


def marked_calls_text(reads: int, writes: int, refused: int = 0) -> str:
    """The calls of a plan a stale apply re-planned from the rows it read (``quiet``), not
    known yet whether the service shows a call of the project since that read: ``W calls, or
    N with its R re-reads first should the service show a call of the project since the read
    it was made from`` (with nothing to re-read, ``calls_text``'s)."""
    sent = calls_text(0, writes, refused)
    if not reads:
        return sent
    return (
        f"{sent}, or {figure(reads + writes + refused)} with its {counted(reads, 're-read')}"
        " first should the service show a call of the project since the read it was made from"
    )


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


def refused_lines(unsupported: pd.DataFrame) -> list[str]:
    """``plan_lines`` of the ``unsupported`` rows for a refusal to quote: each key, column,
    value and reason (an edited or a saved file's) cut short, a bearer token in it masked."""
    widths = {"key": 60, "column": 60, "before": 60, "after": 60, "reason": 200}
    cut = unsupported.assign(
        **{
            name: [v if pd.isna(v) else clipped(str(v), width) for v in unsupported[name]]
            for name, width in widths.items()
        }
    )
    return plan_lines(pd.DataFrame(), cut)


def sample_note(sample: str | None, follow: str = "") -> str:
    """What a plan made from a sampled base says under its summary ('' for a full base): its
    base read the cards and pending buckets of ``sample``'s members alone; then ``follow``,
    on a line of its own: what cannot follow the plan (``rehearsal.sampled_base_line``)."""
    if sample is None:
        return ""
    note = (
        f"Base: {sample}: the other members' cards and pending buckets were not read; this"
        " plan changes none of theirs and says nothing of them"
    )
    return f"{note}\n{follow}" if follow else note


def plan_string(
    summary: str,
    changes: pd.DataFrame,
    unsupported: pd.DataFrame,
    *,
    whole: bool = False,
    note: str = "",
    where: str = EVERY_LINE,
) -> str:
    """The ``summary`` (and a ``note`` under it: a sampled base's), then a line per change
    (``plan_lines``), cut as pandas cuts a long frame (see the module) unless ``whole``, the
    cut's line saying ``where`` they all are."""
    lines = plan_lines(changes, unsupported)
    head = [summary, note] if note else [summary]
    return "\n".join([*head, *(lines if whole else _cut(lines, where))])


def plan_html(
    summary: str, changes: pd.DataFrame, unsupported: pd.DataFrame, note: str = ""
) -> str:
    """Jupyter's view: the summary (and a ``note`` under it: a sampled base's, a saved
    plan's file and sha256), then a table grouped by action (create, change, delete, cannot
    make), each group headed with its count; every value escaped, a long group cut as the
    text is (``shown_rows``)."""
    groups = [(action, changes[changes["action"] == action], "call") for action in SIGNS]
    groups.append(("cannot make", unsupported, "reason"))
    body = [_html_group(action, rows, last) for action, rows, last in groups if len(rows)]
    head = "".join(f"<th>{c}</th>" for c in _HTML_COLUMNS) + "<th>call / reason</th>"
    empty = f'<tbody><tr><td colspan="{len(_HTML_COLUMNS) + 1}">No changes.</td></tr></tbody>'
    return (
        f'<div class="lyt-change-plan"><p><b>{escape(summary)}</b></p>'
        + "".join(f"<p>{escape(line)}</p>" for line in note.splitlines())
        + f"<table><thead><tr>{head}</tr></thead>{''.join(body) or empty}</table></div>"
    )


def _html_group(action: str, rows: pd.DataFrame, last: str) -> str:
    """One ``<tbody>``: a header row naming ``action`` and its count, then its rows."""
    width = len(_HTML_COLUMNS) + 1
    count = figure(len(rows))
    lines = [f'<tr><th colspan="{width}" style="text-align:left">{action} ({count})</th></tr>']
    head, tail = shown_rows(len(rows))
    hidden = len(rows) - head - tail
    lines += [_html_row(row, last) for row in rows.head(head).itertuples(index=False)]
    if hidden:
        lines.append(f'<tr><td colspan="{width}">{escape(_more(hidden, len(rows)))}</td></tr>')
        lines += [_html_row(row, last) for row in rows.tail(tail).itertuples(index=False)]
    return "<tbody>" + "".join(lines) + "</tbody>"


def _html_row(row: Any, last: str) -> str:
    """One change's ``<tr>``: its columns, then its call (or why the service refuses it)."""
    cells = [getattr(row, c) for c in (*_HTML_COLUMNS, last)]
    if last == "call" and isinstance(row.blocked_reason, str):
        cells[-1] = f"{cells[-1]} (the service will refuse: {row.blocked_reason})"
    return "<tr>" + "".join(f"<td>{_html_cell(v)}</td>" for v in cells) + "</tr>"


def _html_cell(value: Any) -> str:
    """A cell's text, HTML-escaped; NA blank."""
    return "" if value is None or value is pd.NA or pd.isna(value) else escape(str(value))
