"""The what-if report's HTML page: headline before/after/change, card definitions with what
moved highlighted, the charts inline, the mispricing that changes, the edits split into
those the service can make and those only its dashboard can, and the audit findings that
appear, change or resolve. Every value is HTML-escaped; no external assets.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .economics_report import format_figure, not_pulled_figure
from .html_page import embedded_charts, html_page
from .snapshot_csv import MANIFEST

__all__ = [
    "MAX_ROWS",
    "WHAT_IF_FILES",
    "WhatIfFrames",
    "counts",
    "definitions_table",
    "edits_table",
    "findings_table",
    "headline_table",
    "mispricing_table",
    "what_if_page",
]

WHAT_IF_FILES = {
    "headline": "headline_change",
    "card_definitions": "definition_change",
    "mispricing": "mispricing_change",
    "edits": "edits",
    "findings": "findings",
}
"""A what-if's frame name (``WhatIf.frames()``) -> its CSV file's stem."""


@dataclass(frozen=True)
class WhatIfFrames:
    """What the report is written from: a what-if's frames (``HEADLINE_CHANGE``,
    ``DEFINITION_CHANGE``, ``MISPRICING_CHANGE``, ``EDITS`` and the compared findings), the
    base snapshot's ``source`` and ``pulled_at``, the folders compared, the what-if's
    summary line, for a sampled base the note on its sample (``sample_note``), and why a
    headline figure is NA (``not_given``: ``WhatIf.not_given``)."""

    headline: pd.DataFrame
    card_definitions: pd.DataFrame
    mispricing: pd.DataFrame
    edits: pd.DataFrame
    findings: pd.DataFrame
    source: str
    pulled_at: pd.Timestamp
    base: str
    edited: str
    summary: str
    sample_note: str | None = None
    not_given: Mapping[str, str] = field(default_factory=dict)

    def frames(self) -> dict[str, pd.DataFrame]:
        """CSV file stem -> frame (``WHAT_IF_FILES``)."""
        return {stem: getattr(self, name) for name, stem in WHAT_IF_FILES.items()}


MAX_ROWS = 200
"""Rows of each table the page shows; the rest are counted (every row is in the CSV)."""

SERVICE, DASHBOARD = "service", "dashboard"
"""``made_by`` of an edit the service has a call for, and of one only its dashboard makes."""

_MEASURES = (
    ("earn_points_per_unit", "earn rate (points per unit)"),
    ("value_low", "value per point, low"),
    ("value_median", "value per point, median"),
    ("value_high", "value per point, high"),
    ("return_median", "effective return (median)"),
    ("liability_median", "liability (median)"),
)
"""The ``DEFINITION_CHANGE`` measures shown, and their headings."""

Cell = tuple[str, bool]
"""A cell's text (not yet escaped) and whether it is highlighted as moved."""

e = html.escape


def _figure(name: str, value: Any) -> str:
    """A figure as people read it: shares as percentages, earn rates to 4 digits."""
    if value is None or pd.isna(value):
        return "n/a"
    number = float(value)
    if name.startswith("return") or name.endswith(("_rate", "_return")):
        return f"{number:.2%}"
    if name == "earn_points_per_unit" or name.startswith("ratio"):
        return f"{number:.4g}"
    return format_figure(name, number)


def _text(value: Any) -> str:
    """A cell as text; NA as empty."""
    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)


def _moved(before: Any, after: Any, change: Any) -> bool:
    """Whether a figure moved: a change other than 0, or known on one side only."""
    return bool(pd.isna(before) != pd.isna(after) or not (pd.isna(change) or change == 0))


def _interval(name: str, row: pd.Series, side: str) -> str:
    """`` (95 % CI low to high)`` of a sampled figure's ``side``, else empty."""
    low, high = row[f"{side}_ci_low"], row[f"{side}_ci_high"]
    if pd.isna(low) or pd.isna(high):
        return ""
    return f" (95 % CI {_figure(name, low)} to {_figure(name, high)})"


MOVED_STYLE = "background:#fff3cd;font-weight:bold"
"""How a moved cell is highlighted: inline, so the tables read the same in a notebook."""


def _table(head: Sequence[str], rows: Iterable[Sequence[Cell]], total: int, more_in: str) -> str:
    """A table of at most ``MAX_ROWS`` rows; the rest counted, pointing at ``more_in``."""
    th = "".join(f"<th>{e(h)}</th>" for h in head)
    moved = f'<td class="moved" style="{MOVED_STYLE}">'
    body = "\n".join(
        "<tr>" + "".join(f"{moved}{e(t)}</td>" if hi else f"<td>{e(t)}</td>"
                         for t, hi in row) + "</tr>"
        for row in rows
    )  # fmt: skip
    if not total:
        body = f'<tr><td colspan="{len(head)}">None.</td></tr>'
    elif total > MAX_ROWS:
        more = f"... and {total - MAX_ROWS:,} more in {more_in}"
        body += f'\n<tr><td colspan="{len(head)}">{e(more)}</td></tr>'
    return f"<table>\n<thead><tr>{th}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def headline_table(
    frame: pd.DataFrame,
    more_in: str = "headline_change.csv",
    not_given: Mapping[str, str] | None = None,
) -> str:
    """``HEADLINE_CHANGE`` as a table: before, after and change, intervals where sampled; a
    figure ``not_given`` gives a reason for reads ``n/a (rewards, reward_costs not
    pulled)`` or ``n/a (no point value observed)`` as its change."""
    reasons = not_given or {}
    rows = []
    for _, row in frame.iterrows():
        name = str(row["figure"])
        moved = _moved(row["before"], row["after"], row["change"])
        change = _figure(name, row["change"])
        if moved and not pd.isna(row["change"]) and row["change"] > 0:
            change = f"+{change}"
        if name in reasons:
            change = not_pulled_figure(reasons[name])
        rows.append(
            [
                (name.replace("_", " "), False),
                (_figure(name, row["before"]) + _interval(name, row, "before"), False),
                (_figure(name, row["after"]) + _interval(name, row, "after"), moved),
                (change + _interval(name, row, "change"), moved),
            ]
        )
    return _table(["figure", "before", "after", "change"], rows, len(rows), more_in)


def definitions_table(frame: pd.DataFrame, more_in: str = "definition_change.csv") -> str:
    """``DEFINITION_CHANGE`` as a table: each measure, before -> after where it moved, then
    why some are n/a or not what they say (its ``reason``: ``no point value observed``)."""
    rows = []
    for _, row in frame.iterrows():
        cells: list[Cell] = [
            (_text(row["card_definition_name"]) or str(row["card_definition_id"]), False)
        ]
        for measure, _ in _MEASURES:
            before, after = row[f"{measure}_before"], row[f"{measure}_after"]
            moved = _moved(before, after, row[f"{measure}_change"])
            text = _figure(measure, before)
            cells.append((f"{text} \u2192 {_figure(measure, after)}" if moved else text, moved))
        cells.append((_text(row.get("reason")), False))
        rows.append(cells)
    head = ["card definition", *(h for _, h in _MEASURES), "why n/a"]
    return _table(head, rows, len(rows), more_in)


def mispricing_table(frame: pd.DataFrame, more_in: str = "mispricing_change.csv") -> str:
    """``MISPRICING_CHANGE`` as a table: each cost whose mispricing changes."""

    def span(row: pd.Series, name: str) -> str:
        before, after = _figure(name, row[f"{name}_before"]), _figure(name, row[f"{name}_after"])
        return before if before == after else f"{before} \u2192 {after}"

    rows = [
        [
            (_text(r["change"]), True),
            (_text(r["reward_name"]) or _text(r["reward_id"]), False),
            (f"{_text(r['cost_id'])} #{_text(r['spending_index'])}", False),
            (_text(r["card_definition_name"]) or _text(r["card_definition_id"]), False),
            (span(r, "points"), False),
            (span(r, "ratio"), False),
        ]
        for _, r in frame.head(MAX_ROWS).iterrows()
    ]
    head = [
        "change",
        "reward",
        "cost (spending entry)",
        "card definition",
        "points",
        "value / median",
    ]
    return _table(head, rows, len(frame), more_in)


def edits_table(frame: pd.DataFrame, made_by: str, more_in: str = "edits.csv") -> str:
    """The ``EDITS`` rows ``made_by`` the service (with its call) or the dashboard (reason)."""
    mine = frame[frame["made_by"].astype("string") == made_by]
    last = "call" if made_by == SERVICE else "reason"
    rows = [
        [(_text(r[c]), c == "after") for c in ("kind", "key", "column", "before", "after", last)]
        for _, r in mine.head(MAX_ROWS).iterrows()
    ]
    return _table(["kind", "key", "column", "before", "after", last], rows, len(mine), more_in)


def findings_table(frame: pd.DataFrame, more_in: str = "findings.csv") -> str:
    """Compared findings as a table: change, rule, severity, resource, messages."""
    rows = [
        [
            (_text(r["change"]), True),
            (_text(r["rule"]), False),
            (_text(r["severity"]), False),
            (_text(r["resource_name"]) or _text(r["resource_id"]), False),
            (_text(r["message"]), False),
            (_text(r["previous_message"]), False),
        ]
        for _, r in frame.head(MAX_ROWS).iterrows()
    ]
    head = ["change", "rule", "severity", "resource", "message", "message before"]
    return _table(head, rows, len(frame), more_in)


def counts(frame: pd.DataFrame, values: Sequence[str]) -> str:
    """``2 appeared, 0 resolved``: rows of ``frame`` by its ``change``, in ``values`` order."""
    found = frame["change"].astype("string").value_counts()
    return ", ".join(f"{int(found.get(v, 0))} {v}" for v in values)


def what_if_page(report: WhatIfFrames, charts: Sequence[Path]) -> str:
    """The page of ``report``, the ``charts`` (PNG files) embedded as base64."""
    edits = report.edits
    service = int((edits["made_by"].astype("string") == SERVICE).sum())
    sampled = (
        ""
        if report.sample_note is None
        else f"\n<p><strong>Totals {e(report.sample_note)}</strong>; a change's interval comes "
        "from the same members' own changes (paired).</p>"
    )
    files = ", ".join(e(f"{stem}.csv") for stem in report.frames())
    body = f"""<p>The edited export <code>{e(report.edited)}</code> against its base
<code>{e(report.base)}</code>, a snapshot of {e(report.source or "the service")} as of
{report.pulled_at:%Y-%m-%d %H:%M:%S} UTC.
Nothing was sent to the service: the edit is on paper. Amounts are in the service's minor
units (e.g. cents); values per point are minor units per point; returns are shares of
spend. What moved is highlighted.</p>{sampled}
<p><strong>{e(report.summary)}</strong></p>
<h2>Headline figures</h2>
{headline_table(report.headline, not_given=report.not_given)}
<h2>Card definitions</h2>
{definitions_table(report.card_definitions)}
<h2>Charts</h2>
{embedded_charts(charts)}
<h2>Mispricing that changes</h2>
<p>{e(counts(report.mispricing, ("appeared", "resolved", "changed")))}.</p>
{mispricing_table(report.mispricing)}
<h2>Edits the service can make ({service})</h2>
<p>The plan's calls: <code>lyt plan --base {e(report.base)} --edited {e(report.edited)}</code>
plans them for <code>lyt apply</code>.</p>
{edits_table(edits, SERVICE)}
<h2>Edits only the service's dashboard can make ({len(edits) - service})</h2>
<p>No call of the service changes these: make them in its dashboard.</p>
{edits_table(edits, DASHBOARD)}
<h2>Audit findings that change</h2>
<p>{e(counts(report.findings, ("appeared", "changed", "resolved")))}.</p>
{findings_table(report.findings)}
<p>Every row is in this folder as CSV: {files} (described in {e(MANIFEST)}).</p>"""
    return html_page("Economics what-if", body)
