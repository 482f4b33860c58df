"""A sweep shown: a short text table (``print``) and its chart (effective return and
liability against the parameter, on two y axes)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..reports.economics_report import format_figure, not_pulled_figure
from .parameters import Parameter

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_sweep", "sweep_text"]

RETURN, LIABILITY, CURRENT = "#2c3e50", "#e67e22", "#7f8c8d"
"""Colours of the effective return, the liability and the current value's mark."""

_TEXT_COLUMNS = (
    "liability_median",
    "highest_effective_return",
    "definition_return_median",
    "mispriced_rewards",
)


def _floats(column: pd.Series) -> np.ndarray:
    """A column as float64, NA as NaN (what matplotlib draws as a gap)."""
    return column.astype("Float64").to_numpy(dtype="float64", na_value=np.nan)


def _one_definition(frame: pd.DataFrame) -> bool:
    return bool(frame["card_definition_id"].notna().any())


def plot_sweep(
    frame: pd.DataFrame, parameter: Parameter, current: float, ax: Axes | None = None
) -> Axes:
    """``frame`` (``SWEEP``) drawn on ``ax`` (a new figure when None): the effective return
    (the card definition's, else the highest) on the left axis, the liability at the median
    value with its low-high range on a twin right axis, the ``current`` value a dashed
    line. Returns the left axis; the right one is its twin (``ax.figure.axes``)."""
    # Imported here: matplotlib loads when a chart is drawn, not with the package.
    from matplotlib import pyplot as plt
    from matplotlib.ticker import PercentFormatter

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 5))
    rows = frame.sort_values("value")
    x = _floats(rows["value"])
    mine = _one_definition(rows)
    returned = rows["definition_return_median" if mine else "highest_effective_return"]
    label = "effective return (median)" if mine else "highest effective return (median)"
    ax.plot(x, _floats(returned), color=RETURN, marker="o", label=label)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel(label)
    ax.set_xlabel(f"{parameter.name} ({parameter.unit})")
    right = ax.twinx()
    median, low, high = (_floats(rows[f"liability_{end}"]) for end in ("median", "low", "high"))
    right.plot(x, median, color=LIABILITY, marker="s", label="liability (median value)")
    right.fill_between(
        x, low, high, color=LIABILITY, alpha=0.15, label="liability (low to high value)"
    )
    right.set_ylabel("liability (minor units)")
    if np.isfinite(current):
        ax.axvline(current, color=CURRENT, linestyle="--", label=f"current ({current:g})")
    handles = ax.get_legend_handles_labels()
    twin = right.get_legend_handles_labels()
    ax.legend(handles[0] + twin[0], handles[1] + twin[1], loc="best")
    ax.set_title(f"{parameter.name} swept: effective return and liability")
    return ax


def sweep_text(
    frame: pd.DataFrame, parameter: Parameter, not_given: Mapping[str, str] | None = None
) -> str:
    """One line per value (``*`` marks the current one): the liability, the highest (and,
    for one card definition, its) effective return and the mispriced rewards; then, for
    each column ``not_given`` gives a reason for (``Economics.not_given`` of the base), why
    it is n/a (``mispriced rewards: n/a (rewards, reward_costs not pulled)``)."""
    names = [c for c in _TEXT_COLUMNS if c != "definition_return_median" or _one_definition(frame)]
    head = ["", parameter.name, *(n.replace("_", " ") for n in names)]
    rows = [head]
    for _, row in frame.iterrows():
        cells = [format_figure(n, None if pd.isna(row[n]) else float(row[n])) for n in names]
        rows.append(["*" if row["current"] else "", f"{row['value']:g}", *cells])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    reasons = not_given or {}
    why = [f"{n.replace('_', ' ')}: {not_pulled_figure(reasons[n])}" for n in names if n in reasons]
    title = f"Sweep of {parameter.name} ({parameter.unit}); * the current value"
    return "\n".join([title, *lines, *why])
