"""A what-if shown: a short text table (``print``) and Jupyter's grid with what moved
highlighted."""

from __future__ import annotations

from html import escape
from typing import Any, Protocol

import pandas as pd

from .._text import counted
from ..actions import ChangePlan
from ..economics import Economics
from ..economics.schemas import DEFINITION_MEASURES
from ..reports.economics_report import format_figure
from .schemas import MadeBy

__all__ = ["HTML_ROWS", "Shown", "summary_line", "what_if_html", "what_if_text"]


class Shown(Protocol):
    """What a what-if shows (``WhatIf``)."""

    @property
    def before(self) -> Economics: ...
    @property
    def headline(self) -> pd.DataFrame: ...
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


HTML_ROWS = 50
"""Rows of each table (edits, mispricing, findings) the HTML view shows; the rest counted."""

_MOVED = "background:#fff3cd;font-weight:bold"


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


def _counts(frame: pd.DataFrame, values: tuple[str, ...]) -> str:
    found = frame["change"].astype("string").value_counts()
    return ", ".join(f"{int(found.get(v, 0))} {v}" for v in values)


def _moved(row: pd.Series) -> bool:
    change = row["change"]
    return not (pd.isna(change) or change == 0) or (pd.isna(row["before"]) != pd.isna(row["after"]))


def _change(name: str, row: pd.Series) -> str:
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
    """The headline before, after and change, then one line each for the card
    definitions that move, the mispricing, the findings and the edits."""
    rows = [("figure", "before", "after", "change")]
    for _, row in what.headline.iterrows():
        name = str(row["figure"])
        rows.append(
            (
                name.replace("_", " "),
                format_figure(name, row["before"]),
                format_figure(name, row["after"]),
                _change(name, row),
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
        f"  mispricing: {_counts(what.mispricing, ('appeared', 'resolved', 'changed'))}",
        f"  audit findings: {_counts(what.findings, ('appeared', 'changed', 'resolved'))}",
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


def _cell(value: Any, name: str = "") -> str:
    if value is pd.NA:
        return escape(format_figure(name, None))
    if isinstance(value, float | int) and not isinstance(value, bool):
        return escape(format_figure(name, float(value)))
    return (
        ""
        if value is None or (not isinstance(value, str) and pd.isna(value))
        else escape(str(value))
    )


def _table(head: list[str], rows: list[list[tuple[str, bool]]], total: int) -> str:
    """A table of escaped cells, each (html, highlighted)."""
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="{_MOVED}">{cell}</td>' if moved else f"<td>{cell}</td>"
            for cell, moved in row
        )
        + "</tr>"
        for row in rows
    )
    if total > len(rows):
        body += f'<tr><td colspan="{len(head)}">... and {total - len(rows)} more</td></tr>'
    if not total:
        body = f'<tr><td colspan="{len(head)}">None.</td></tr>'
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def what_if_html(what: Shown) -> str:
    """Jupyter's view: the summary, the headline, the card definitions (each measure
    before -> after, what moved highlighted), then the mispricing, edits and findings."""
    headline = [
        [
            (escape(str(row["figure"]).replace("_", " ")), False),
            (_cell(row["before"], str(row["figure"])), False),
            (_cell(row["after"], str(row["figure"])), _moved(row)),
            (escape(_change(str(row["figure"]), row)), _moved(row)),
        ]
        for _, row in what.headline.iterrows()
    ]
    definitions = []
    for _, row in what.card_definitions.iterrows():
        cells = [(escape(str(row["card_definition_name"] or row["card_definition_id"])), False)]
        for measure, _doc in DEFINITION_MEASURES:
            before, after = row[f"{measure}_before"], row[f"{measure}_after"]
            moved = not pd.isna(row[f"{measure}_change"]) and row[f"{measure}_change"] != 0
            moved = moved or pd.isna(before) != pd.isna(after)
            text = _cell(before, measure)
            if moved:
                text = f"{text} &rarr; {_cell(after, measure)}"
            cells.append((text, bool(moved)))
        definitions.append(cells)
    mispricing = what.mispricing.head(HTML_ROWS)
    edits = what.edits.head(HTML_ROWS)
    findings = what.findings.head(HTML_ROWS)
    parts = [
        f'<div class="lyt-what-if"><p><b>{escape(summary_line(what))}</b></p>',
        "<h4>Headline (amounts in minor units)</h4>",
        _table(["figure", "before", "after", "change"], headline, len(headline)),
        "<h4>Card definitions</h4>",
        _table(
            ["card definition", *(m.replace("_", " ") for m, _ in DEFINITION_MEASURES)],
            definitions,
            len(definitions),
        ),
        "<h4>Mispricing that changes</h4>",
        _table(
            ["change", "reward", "cost", "ratio before", "ratio after"],
            [
                [
                    (_cell(r["change"]), True),
                    (_cell(r["reward_name"] or r["reward_id"]), False),
                    (_cell(r["cost_id"]), False),
                    (_cell(r["ratio_before"]), False),
                    (_cell(r["ratio_after"]), False),
                ]
                for _, r in mispricing.iterrows()
            ],
            len(what.mispricing),
        ),
        "<h4>Edits and who can make them</h4>",
        _table(
            ["kind", "key", "column", "before", "after", "made by", "call / reason"],
            [
                [
                    *((_cell(r[c]), False) for c in ("kind", "key", "column", "before", "after")),
                    (_cell(r["made_by"]), r["made_by"] == MadeBy.DASHBOARD.value),
                    (
                        _cell(r["call"] if r["made_by"] == MadeBy.SERVICE.value else r["reason"]),
                        False,
                    ),
                ]
                for _, r in edits.iterrows()
            ],
            len(what.edits),
        ),
        "<h4>Audit findings that change</h4>",
        _table(
            ["change", "rule", "resource", "message"],
            [
                [
                    (_cell(r["change"]), True),
                    (_cell(r["rule"]), False),
                    (_cell(r["resource_id"]), False),
                    (_cell(r["message"]), False),
                ]
                for _, r in findings.iterrows()
            ],
            len(what.findings),
        ),
        "</div>",
    ]
    return "".join(parts)
