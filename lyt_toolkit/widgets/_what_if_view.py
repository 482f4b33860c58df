"""What the what-if panel draws: the headline as an HTML table and each card definition's
liability before and after as an HTML bar chart (the browser draws it: a move costs the
kernel no rendering)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from html import escape
from typing import Any

import pandas as pd

from ..reports.economics_report import format_figure, not_pulled_figure

__all__ = [
    "DEFINITION_FIGURES",
    "definition_figures",
    "definition_reasons",
    "format_value",
    "headline_html",
    "liability_bars",
    "liability_html",
]

_MOVED = "background:#fff3cd;font-weight:bold"
BEFORE, AFTER = "#7f8c8d", "#2c3e50"
"""Bar colours of the liability before and after the edit."""
LABEL_WIDTH = 26
"""Card definition names longer than this are cut (the chart's labels keep one width)."""


DEFINITION_FIGURES = {
    "earn_points_per_unit": "earn_points_per_unit",
    "value_median": "value_median",
    "return_median": "effective_return_median",
    "liability_median": "liability_median",
}
"""The measures of ``DEFINITION_CHANGE`` shown for the chosen card definition, by the
figure name they show as."""


def definition_figures(card_definitions: pd.DataFrame, card_definition_id: str) -> pd.DataFrame:
    """The chosen card definition's ``DEFINITION_FIGURES`` as rows of ``figure``,
    ``before``, ``after`` and ``change`` (no row when it is not in the frame)."""
    found = (card_definitions["card_definition_id"] == card_definition_id).to_numpy(bool, False)
    rows = card_definitions[found].head(1).to_dict("records")
    return pd.DataFrame(
        [
            (figure, *(row[f"{measure}_{side}"] for side in ("before", "after", "change")))
            for measure, figure in DEFINITION_FIGURES.items()
            for row in rows
        ],
        columns=["figure", "before", "after", "change"],
    )


def definition_reasons(not_given: Mapping[str, str]) -> dict[str, str]:
    """The reasons of the chosen card definition's measures (``WhatIf.definition_not_given``)
    by the figure names ``definition_figures`` shows them as (``DEFINITION_FIGURES``)."""
    return {DEFINITION_FIGURES[m]: why for m, why in not_given.items() if m in DEFINITION_FIGURES}


def format_value(figure: str, value: Any) -> str:
    """A figure as the panel shows it: an earn rate to 4 significant digits, the others as
    the economics report does."""
    if value is None or pd.isna(value):
        return "n/a"
    if figure == "earn_points_per_unit":
        return f"{float(value):.4g}"
    return format_figure(figure, float(value))


def headline_html(headline: pd.DataFrame, not_given: Mapping[str, str] | None = None) -> str:
    """Figures (``figure``, ``before``, ``after``, ``change``: ``HEADLINE_CHANGE``'s or
    ``definition_figures``) as an HTML table, one row each (``data-figure`` names it); a
    figure that moves is highlighted, one ``not_given`` gives a reason for
    (``WhatIf.not_given``, or ``definition_reasons``) reads ``n/a (rewards, reward_costs not
    pulled)`` or ``n/a (no point value observed)`` as its change."""
    reasons = not_given or {}
    rows = []
    for name, before, after, change in headline[["figure", "before", "after", "change"]].itertuples(
        index=False
    ):
        moved = not pd.isna(change) and change != 0
        style = f' style="{_MOVED}"' if moved else ""
        sign = "+" if moved and change > 0 else ""
        cells = (
            f"<td>{escape(str(name).replace('_', ' '))}</td>"
            f"<td>{escape(format_value(name, before))}</td>"
            f"<td{style}>{escape(format_value(name, after))}</td>"
            f"<td{style}>{sign}{escape(_change(name, change, reasons))}</td>"
        )
        rows.append(f'<tr data-figure="{escape(str(name))}">{cells}</tr>')
    head = "<tr><th>figure</th><th>before</th><th>after</th><th>change</th></tr>"
    return (
        '<table class="lyt-what-if-headline">'
        f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _change(name: str, change: Any, reasons: Mapping[str, str]) -> str:
    """The change column's text: the reason a figure is NA, else the figure."""
    return not_pulled_figure(reasons[name]) if name in reasons else format_value(name, change)


def liability_bars(card_definitions: pd.DataFrame) -> pd.DataFrame:
    """What the liability chart draws: per card definition whose points have a value (in
    the chart's order, top down), ``label``, ``before`` and ``after`` (the liability at
    the median value per point, ``DEFINITION_CHANGE``'s ``liability_median_*``)."""
    before = card_definitions["liability_median_before"].astype("float64")
    after = card_definitions["liability_median_after"].astype("float64")
    valued = (before.notna() | after.notna()).to_numpy()
    names = card_definitions["card_definition_name"].fillna(card_definitions["card_definition_id"])
    bars = pd.DataFrame({"label": [_short(n) for n in names], "before": before, "after": after})[
        valued
    ]
    return bars.fillna({"before": 0.0, "after": 0.0}).reset_index(drop=True)


def liability_html(bars: pd.DataFrame) -> str:
    """``liability_bars`` as an HTML bar chart: per card definition a row
    (``data-card-definition`` names it) with its liability before and after as two bars
    scaled to the largest, each with its figure. Drawn by the browser, so a move costs the
    kernel no rendering."""
    title = '<div style="font-weight:bold;margin:4px 0">Liability per card definition</div>'
    legend = (
        f'<div style="font-size:smaller;margin-bottom:4px">{_swatch(BEFORE)} before '
        f"{_swatch(AFTER)} after &middot; at the median value per point (minor units)</div>"
    )
    if bars.empty:
        empty = "<div><i>No card definition whose points have a value</i></div>"
        return f'<div class="lyt-what-if-liability">{title}{empty}</div>'
    top = float(max(bars["before"].max(), bars["after"].max(), 0.0))
    rows = [
        f'<tr data-card-definition="{escape(label)}">'
        f'<td style="{_LABEL_CELL}">{escape(label)}</td>'
        f'<td style="width:100%">{_bar("before", before, top)}{_bar("after", after, top)}</td></tr>'
        for label, before, after in bars.itertuples(index=False)
    ]
    return (
        f'<div class="lyt-what-if-liability" style="max-width:640px">{title}{legend}'
        f'<table style="width:100%;border-collapse:collapse">{"".join(rows)}</table></div>'
    )


_LABEL_CELL = "white-space:nowrap;padding-right:8px;text-align:right;vertical-align:middle"


def _bar(side: str, value: float, top: float) -> str:
    """The ``side`` (before or after) bar: ``value``'s share of ``top`` wide, its figure
    beside it (``data-side`` names the side)."""
    drawable = math.isfinite(value) and math.isfinite(top) and top > 0
    share = max(value, 0.0) / top if drawable else 0.0
    colour = BEFORE if side == "before" else AFTER
    figure = escape(format_figure("liability_median", value))
    return (
        f'<div data-side="{side}" title="{side}: {figure}" '
        'style="display:flex;align-items:center;gap:4px;height:14px">'
        f'<div style="width:{share * 85:.2f}%;min-width:1px;height:11px;background:{colour}">'
        f'</div><span style="font-size:smaller">{figure}</span></div>'
    )


def _swatch(colour: str) -> str:
    return f'<span style="display:inline-block;width:10px;height:10px;background:{colour}"></span>'


def _short(name: object, width: int = LABEL_WIDTH) -> str:
    text = str(name)
    return text if len(text) <= width else text[: width - 1] + "…"
