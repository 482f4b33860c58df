"""A PNG chart of audit findings by rule and severity, for reports and e-mails.

The chart draws a findings summary: one row per rule plus a last ``total``
row, one column per severity (most urgent first) plus ``total``, as
``lyt_toolkit.audit.summary(findings)`` returns it.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from .._text import figure
from ._png import save_png

X_ROOM = 0.05
"""Room right of the longest bar, as a fraction of its length."""

COLORS: dict[str, str] = {"error": "#c0392b", "warning": "#e67e22", "info": "#2980b9"}
"""One colour per severity, the same in every chart."""

TOTAL = "total"
"""The summary's total row and column."""

_SAMPLED, _ESTIMATED = "sampled", "estimated"
"""Columns of a sampled snapshot's summary: findings in the sample, the program's estimate."""


def _by_rule(counts: pd.DataFrame) -> pd.DataFrame:
    """The summary's rules that have findings, last rule first (barh draws bottom up)."""
    rules = counts.drop(index=TOTAL)
    return rules[rules[TOTAL] > 0].iloc[::-1]


def plot_findings(summary: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Horizontal bars: findings per rule, stacked by severity (rules without findings left out).

    ``summary`` is the findings summary (``lyt_toolkit.audit.summary(findings)``).
    """
    counts = _by_rule(summary)
    if ax is None:
        height = 1.5 + 0.4 * max(len(counts), 1)
        _, ax = plt.subplots(figsize=(10, height))
    if counts.empty:
        ax.text(0.5, 0.5, "No findings", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
    else:
        left = pd.Series(0, index=counts.index)
        for severity in _severities(counts):
            color = COLORS.get(severity)
            ax.barh(counts.index, counts[severity], left=left, color=color, label=severity)
            left = left + counts[severity]
        _label_estimates(ax, counts)
        ax.set_xlabel("findings")
        # Explicit limits rather than ax.margins: the empty segment a stacked bar
        # draws at its end (a zero-width severity) pins autoscaling to the longest
        # bar, so margins never add room there.
        room = X_ROOM if _ESTIMATED not in counts.columns else 1.5  # room for the labels
        ax.set_xlim(0, counts[TOTAL].max() * (1 + room))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(title="severity", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    total = int(summary[TOTAL].iloc[-1])
    title = f"Audit findings by rule and severity ({figure(total)} in all)"
    if _ESTIMATED in summary.columns:
        title += "\nper-member rules: findings in the sample, labelled with the program's estimate"
    ax.set_title(title)
    return ax


def _severities(counts: pd.DataFrame) -> list[str]:
    """The severity columns: those before ``total`` (a sample's summary has more after it)."""
    columns = [str(c) for c in counts.columns]
    return columns[: columns.index(TOTAL)]


def _label_estimates(ax: Axes, counts: pd.DataFrame) -> None:
    """Beside each bar of a per-member rule of a sample, the program's estimate and interval."""
    if _ESTIMATED not in counts.columns:
        return
    for rule, row in counts.iterrows():
        if pd.isna(row[_SAMPLED]) or not row[TOTAL]:
            continue
        ax.annotate(
            f" about {float(row[_ESTIMATED]):,.0f} in the program "
            f"({float(row['ci_low']):,.0f} to {float(row['ci_high']):,.0f})",
            (float(row[TOTAL]), str(rule)),
            va="center",
            fontsize=8,
        )


def save_chart(summary: pd.DataFrame, path: str | Path) -> Path:
    """Write the chart of a findings summary as a PNG and return its path."""
    path = Path(path)
    counts = len(_by_rule(summary))
    # A bare Figure draws without pyplot's global state, so saving a report never
    # switches the backend a notebook is using for inline plots.
    fig = Figure(figsize=(10, 1.5 + 0.4 * max(counts, 1)))
    plot_findings(summary, ax=fig.add_subplot())
    save_png(fig, path)
    return path
