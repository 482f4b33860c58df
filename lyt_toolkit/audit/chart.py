"""A PNG chart of audit findings by rule and severity, for reports and e-mails."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display

import matplotlib.pyplot as plt
import pandas as pd

from .registry import SEVERITIES
from .run import summary

COLORS: dict[str, str] = {"error": "#c0392b", "warning": "#e67e22", "info": "#2980b9"}
"""One colour per severity, the same in every chart."""


def plot_findings(findings: pd.DataFrame, ax: plt.Axes | None = None) -> plt.Axes:
    """Horizontal bars: findings per rule, stacked by severity (rules without findings left out)."""
    counts = summary(findings).drop(index="total")
    counts = counts[counts["total"] > 0].iloc[::-1]
    if ax is None:
        height = 1.5 + 0.4 * max(len(counts), 1)
        _, ax = plt.subplots(figsize=(10, height))
    if counts.empty:
        ax.text(0.5, 0.5, "No findings", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
    else:
        left = pd.Series(0, index=counts.index)
        for severity in SEVERITIES:
            color = COLORS[severity]
            ax.barh(counts.index, counts[severity], left=left, color=color, label=severity)
            left = left + counts[severity]
        ax.set_xlabel("findings")
        ax.margins(x=0.05)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(title="severity", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"Audit findings by rule and severity ({len(findings)} in all)")
    return ax


def save_chart(findings: pd.DataFrame, path: str | Path) -> Path:
    """Write the findings chart as a PNG and return its path."""
    path = Path(path)
    ax = plot_findings(findings)
    fig = ax.figure
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)
    return path
