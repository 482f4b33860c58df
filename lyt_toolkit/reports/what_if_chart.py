"""PNG charts of a what-if: per card definition, a measure before and after the edit.

Each chart draws two bars per card definition (before grey, after dark) from the
``DEFINITION_CHANGE`` frame (``WhatIf.card_definitions``): the liability at the median value
and the effective return at the median value. Drawn on bare ``Figure`` objects, as
``economics_chart`` draws, so saving never touches a notebook's pyplot state.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from .._write import replacing
from ._png import save_png
from .economics_chart import FONT_SIZE, OUTSTANDING, RANGE, plain

__all__ = ["WHAT_IF_CHARTS", "plot_before_after", "save_what_if_charts"]

WHAT_IF_CHARTS = {
    "liability_before_after": (
        "liability_median",
        "Points liability per card definition, before and after (median; minor units)",
        "liability (minor units)",
    ),
    "effective_return_before_after": (
        "return_median",
        "Effective return per card definition, before and after (median; share of spend)",
        "share of spend returned",
    ),
}
"""Chart file stem -> (the ``DEFINITION_CHANGE`` measure drawn, title, axis label)."""

_HEIGHT = 0.4


def plot_before_after(
    definitions: pd.DataFrame, measure: str, ax: Axes, *, title: str, xlabel: str
) -> Axes:
    """Per card definition with ``measure`` known on either side, a bar before and one
    after the edit; a definition whose ``measure`` moved is named in bold."""
    before = definitions[f"{measure}_before"].astype("float64")
    after = definitions[f"{measure}_after"].astype("float64")
    known = (before.notna() | after.notna()).to_numpy()
    if not known.any():
        ax.text(0.5, 0.5, "No card definition with a figure", ha="center", va="center",
                transform=ax.transAxes)  # fmt: skip
        ax.set_axis_off()
        ax.set_title(title)
        return ax
    rows = definitions[known].iloc[::-1]
    names = rows["card_definition_name"].astype(object)
    labels = [
        plain(i if pd.isna(n) else n)
        for n, i in zip(names, rows["card_definition_id"], strict=True)
    ]
    y = np.arange(len(rows), dtype="float64")
    old, new = before[known].iloc[::-1].fillna(0.0), after[known].iloc[::-1].fillna(0.0)
    ax.barh(y + _HEIGHT / 2, old, height=_HEIGHT, color=RANGE, label="before")
    ax.barh(y - _HEIGHT / 2, new, height=_HEIGHT, color=OUTSTANDING, label="after")
    ax.set_yticks(y, labels)
    moved = ~np.isclose(old.to_numpy(), new.to_numpy(), rtol=1e-9, atol=0.0)
    for tick, changed in zip(ax.get_yticklabels(), moved, strict=True):
        tick.set_fontweight("bold" if changed else "normal")
    if measure.startswith("return"):
        ax.xaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    ax.set_xlabel(xlabel)
    ax.legend(loc="lower right")
    ax.set_title(title)
    return ax


def save_what_if_charts(definitions: pd.DataFrame, directory: Path) -> list[Path]:
    """Every chart of :data:`WHAT_IF_CHARTS` as ``<name>.png`` in ``directory``."""
    written = []
    for name, (measure, title, xlabel) in WHAT_IF_CHARTS.items():
        fig = Figure(figsize=(11, 6))
        path = directory / f"{name}.png"
        with rc_context({"font.size": FONT_SIZE, "text.usetex": False}):
            plot_before_after(definitions, measure, fig.add_subplot(), title=title, xlabel=xlabel)
            with replacing(path) as tmp:
                save_png(fig, tmp)
        written.append(path)
    return written
