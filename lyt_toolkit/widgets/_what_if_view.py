"""What the what-if panel draws: the headline as an HTML table and each card definition's
liability before and after as a PNG bar chart (a bare ``Figure``: no pyplot state)."""

from __future__ import annotations

from html import escape
from io import BytesIO
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.figure import Figure

from ..reports.economics_chart import plain
from ..reports.economics_report import format_figure

__all__ = [
    "DEFINITION_FIGURES",
    "definition_figures",
    "format_value",
    "headline_html",
    "liability_bars",
    "liability_png",
]

_MOVED = "background:#fff3cd;font-weight:bold"
BEFORE, AFTER = "#7f8c8d", "#2c3e50"
"""Bar colours of the liability before and after the edit."""
LABEL_WIDTH = 26
"""Card definition names longer than this are cut (the chart's left margin is fixed)."""


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
    rows = card_definitions[card_definitions["card_definition_id"] == card_definition_id]
    return pd.DataFrame(
        [
            (figure, *(row[f"{measure}_{side}"] for side in ("before", "after", "change")))
            for measure, figure in DEFINITION_FIGURES.items()
            for _, row in rows.head(1).iterrows()
        ],
        columns=["figure", "before", "after", "change"],
    )


def format_value(figure: str, value: Any) -> str:
    """A figure as the panel shows it: an earn rate to 4 significant digits, the others as
    the economics report does."""
    if value is None or pd.isna(value):
        return "n/a"
    if figure == "earn_points_per_unit":
        return f"{float(value):.4g}"
    return format_figure(figure, float(value))


def headline_html(headline: pd.DataFrame) -> str:
    """Figures (``figure``, ``before``, ``after``, ``change``: ``HEADLINE_CHANGE``'s or
    ``definition_figures``) as an HTML table, one row each (``data-figure`` names it); a
    figure that moves is highlighted."""
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
            f"<td{style}>{sign}{escape(format_value(name, change))}</td>"
        )
        rows.append(f'<tr data-figure="{escape(str(name))}">{cells}</tr>')
    head = "<tr><th>figure</th><th>before</th><th>after</th><th>change</th></tr>"
    return (
        '<table class="lyt-what-if-headline">'
        f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def liability_bars(card_definitions: pd.DataFrame) -> pd.DataFrame:
    """What the liability chart draws: per card definition whose points have a value (in
    the chart's order, bottom up), ``label``, ``before`` and ``after`` (the liability at
    the median value per point, ``DEFINITION_CHANGE``'s ``liability_median_*``)."""
    before = card_definitions["liability_median_before"].astype("float64")
    after = card_definitions["liability_median_after"].astype("float64")
    valued = (before.notna() | after.notna()).to_numpy()
    names = card_definitions["card_definition_name"].fillna(card_definitions["card_definition_id"])
    bars = pd.DataFrame({"label": [_short(n) for n in names], "before": before, "after": after})[
        valued
    ]
    return bars.iloc[::-1].fillna({"before": 0.0, "after": 0.0}).reset_index(drop=True)


def liability_png(bars: pd.DataFrame) -> bytes:
    """``liability_bars`` as horizontal bars, before and after, as PNG (fixed margins: a
    layout pass would cost as much as the drawing)."""
    height = 0.45 * max(len(bars), 2) + 1.1  # inches: 0.35 above the bars, 0.6 below
    figure = Figure(figsize=(7.5, height), dpi=80)
    figure.subplots_adjust(left=0.3, right=0.84, top=1 - 0.35 / height, bottom=0.6 / height)
    with rc_context({"text.usetex": False}):
        ax = figure.add_subplot()
        if bars.empty:
            ax.text(0.5, 0.5, "No card definition whose points have a value", ha="center")
            ax.set_axis_off()
        else:
            rows = np.arange(len(bars))
            ax.barh(rows + 0.2, bars["before"], 0.4, color=BEFORE, label="before")
            ax.barh(rows - 0.2, bars["after"], 0.4, color=AFTER, label="after")
            ax.set_yticks(rows, [plain(label) for label in bars["label"]])
            ax.set_xlabel("liability at the median value per point (minor units)")
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.set_title("Liability per card definition")
        out = BytesIO()
        figure.savefig(out, format="png")
    return out.getvalue()


def _short(name: object, width: int = LABEL_WIDTH) -> str:
    text = str(name)
    return text if len(text) <= width else text[: width - 1] + "…"
