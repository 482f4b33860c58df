"""PNG charts of a program's economics, readable on a slide (large type, one message each).

Each ``plot_*`` draws one economics frame (columns as ``lyt_toolkit.economics`` declares
them) on a matplotlib ``Axes``; :func:`save_economics_charts` writes them all as PNG files
on bare ``Figure`` objects, so saving never touches a notebook's pyplot state. Money is in
the service's minor units, as the frames hold it. Names are drawn as plain text (``plain``):
a ``$`` in a name is never read as math.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from .._write import replacing
from ._png import save_png

__all__ = [
    "CANNOT_ACTIVATE",
    "CHARTS",
    "plain",
    "plot_effective_return",
    "plot_liability",
    "plot_liability_over_time",
    "plot_pending_by_month",
    "plot_value_per_point",
    "save_economics_charts",
]

OUTSTANDING, PENDING, RANGE = "#2c3e50", "#e67e22", "#7f8c8d"
"""Colours of outstanding points, pending points and low/high ranges, the same in every chart."""

CANNOT_ACTIVATE = "cannot activate"
"""The pending chart's series of points in buckets that can never activate."""

FONT_SIZE = 12
"""Tick and label size: a chart pasted into a deck stays readable."""


def _empty(ax: Axes, title: str, what: str) -> Axes:
    ax.text(0.5, 0.5, f"No {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    ax.set_title(title)
    return ax


def plain(text: object) -> str:
    """``text`` as matplotlib draws it verbatim: every ``$`` escaped, so a name such as
    ``$5% off$`` is never read as math (which draws it wrong or fails to parse)."""
    return str(text).replace("$", r"\$")


def _label(frame: pd.DataFrame) -> list[str]:
    """Each row's card definition as plain text: its name (``card_definition_name``), else
    its ID."""
    names, ids = frame["card_definition_name"], frame["card_definition_id"]
    return [plain(i if pd.isna(n) else n) for n, i in zip(names, ids, strict=True)]


def _finished(
    ax: Axes,
    title: str,
    *,
    xlabel: str,
    ylabel: str | None = None,
    legend_title: str | None = None,
) -> Axes:
    """``ax`` labelled, titled and with its legend: titled ``legend_title`` (the series
    are card definitions) or else in the lower right."""
    ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if legend_title is None:
        ax.legend(loc="lower right")
    else:
        ax.legend(title=legend_title)
    ax.set_title(title)
    return ax


def _low_high(ax: Axes, labels: list[str], frame: pd.DataFrame, prefix: str, label: str) -> None:
    """A line per bar from ``{prefix}_low`` to ``{prefix}_high``: the estimate's range."""
    low = frame[f"{prefix}_low"].astype("float64").to_numpy()
    high = frame[f"{prefix}_high"].astype("float64").to_numpy()
    ax.hlines(labels, low, high, color=RANGE, linewidth=3, label=label)


def plot_liability(liability: pd.DataFrame, ax: Axes) -> Axes:
    """Horizontal bars per card definition owing points: the median value of outstanding and
    of pending points (stacked), with a line from the low to the high estimate of their total;
    a card definition whose points have no value says so with its points."""
    title = "Points liability per card definition (median, low-high range; minor units)"
    owed = liability["outstanding_points"].fillna(1) + liability["pending_points"].fillna(1) > 0
    if not owed.any():
        return _empty(ax, title, "points owed")
    frame = liability[owed].iloc[::-1]
    labels = _label(frame)
    outstanding = frame["outstanding_value_median"].astype("float64").fillna(0.0)
    pending = frame["pending_value_median"].astype("float64").fillna(0.0)
    ax.barh(labels, outstanding, color=OUTSTANDING, label="outstanding points")
    ax.barh(labels, pending, left=outstanding, color=PENDING, label="pending points")
    _low_high(ax, labels, frame, "value", "low-high estimate")
    points = frame["outstanding_points"] + frame["pending_points"]
    for label, value, owed_points in zip(labels, frame["value_median"], points, strict=True):
        if pd.isna(value):
            count = "" if pd.isna(owed_points) else f" ({int(owed_points):,} points)"
            note = f"no point value{count}"
            ax.annotate(note, (0, label), xytext=(6, 0), textcoords="offset points", va="center")
    return _finished(ax, title, xlabel="liability (minor units)")


def plot_pending_by_month(schedule: pd.DataFrame, ax: Axes) -> Axes:
    """Pending points by the month they activate, stacked by card definition; the points of
    buckets that can never activate (``cannot_activate_points``) are a hatched grey series on
    top, so the bars still add up to every PENDING point."""
    title = "Pending points by activation month"
    if schedule.empty:
        return _empty(ax, title, "pending points")
    blocked = schedule["cannot_activate_points"].fillna(0)
    frame = schedule.assign(
        definition=_label(schedule),
        label=schedule["month"].dt.strftime("%Y-%m"),
        activating=schedule["points"].fillna(0) - blocked,
        blocked=blocked,
    )
    table = frame.pivot_table(
        index="label", columns="definition", values="activating", aggfunc="sum", fill_value=0
    ).astype("int64")
    bottom = pd.Series(0, index=table.index)
    for definition in table.columns:
        ax.bar(table.index, table[definition], bottom=bottom, label=str(definition))
        bottom = bottom + table[definition]
    stuck = frame.groupby("label")["blocked"].sum().reindex(table.index, fill_value=0)
    if stuck.any():
        ax.bar(
            table.index,
            stuck.astype("int64"),
            bottom=bottom,
            label=CANNOT_ACTIVATE,
            color="#bdc3c7",
            hatch="//",
        )
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return _finished(
        ax, title, xlabel="activation month", ylabel="points", legend_title="card definition"
    )


def plot_value_per_point(burn_values: pd.DataFrame, mispriced: pd.DataFrame, ax: Axes) -> Axes:
    """One dot per reward cost at its value per point, a row per card definition; the
    rewards in ``mispriced`` (its ``cost_id`` and ``spending_index``) are red and named, and
    rewards that are not ACTIVE (which point values leave out) are hollow."""
    title = "Value per point per reward (red: mispriced, named; hollow: not ACTIVE)"
    known = burn_values[burn_values["value_per_point"].notna()]
    if known.empty:
        return _empty(ax, title, "reward with a known value")
    definitions = _label(known)
    rows = {name: i for i, name in enumerate(dict.fromkeys(definitions))}
    y = pd.Series([rows[d] for d in definitions], index=known.index, dtype="float64")
    keys = ["cost_id", "spending_index"]
    flagged = known[keys].merge(mispriced[keys], how="left", indicator=True)["_merge"]
    odd = pd.Series((flagged == "both").to_numpy(), index=known.index)
    values = known["value_per_point"].astype("float64")
    active = pd.Series(
        (known["reward_status"] == "ACTIVE").fillna(False).to_numpy(), index=known.index
    )
    on_sale, idle = ~odd & active, ~odd & ~active
    ax.scatter(values[on_sale], y[on_sale], color=OUTSTANDING, s=60, label="ACTIVE reward")
    if idle.any():
        ax.scatter(
            values[idle],
            y[idle],
            facecolors="none",
            edgecolors=OUTSTANDING,
            s=60,
            label="reward not ACTIVE",
        )
    ax.scatter(values[odd], y[odd], color="#c0392b", s=80, label="mispriced reward")
    for index in known.index[odd]:
        ax.annotate(
            plain(known.at[index, "reward_name"]),
            (values[index], y[index]),
            xytext=(6, 6),
            textcoords="offset points",
            color="#c0392b",
        )
    ax.set_yticks(list(rows.values()), list(rows))
    ax.set_ylim(-0.6, len(rows) - 0.4)
    return _finished(ax, title, xlabel="value per point (minor units)")


def plot_effective_return(effective: pd.DataFrame, ax: Axes) -> Axes:
    """Share of spend returned per card definition: the median as a bar, low-high as a line."""
    title = "Effective return per card definition (share of spend)"
    known = effective[effective["return_median"].notna()].iloc[::-1]
    if known.empty:
        return _empty(ax, title, "card definition with an earn rate and a point value")
    labels = _label(known)
    ax.barh(labels, known["return_median"].astype("float64"), color=OUTSTANDING, label="median")
    _low_high(ax, labels, known, "return", "low-high")
    ax.xaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    return _finished(ax, title, xlabel="share of spend returned")


def plot_liability_over_time(over_time: pd.DataFrame, ax: Axes) -> Axes:
    """Median liability per card definition at each snapshot of the history."""
    title = "Points liability over time (median; minor units)"
    if over_time.empty:
        return _empty(ax, title, "history (give --history with stored snapshots)")
    frame = over_time.assign(definition=_label(over_time))
    for definition, rows in frame.groupby("definition", sort=True):
        rows = rows.sort_values("pulled_at")
        ax.plot(rows["pulled_at"], rows["liability_median"], marker="o", label=str(definition))
    return _finished(
        ax,
        title,
        xlabel="snapshot",
        ylabel="liability (minor units)",
        legend_title="card definition",
    )


Plot = Callable[[Mapping[str, pd.DataFrame], Axes], Axes]

CHARTS: dict[str, Plot] = {
    "liability": lambda f, ax: plot_liability(f["liability"], ax),
    "pending_by_month": lambda f, ax: plot_pending_by_month(f["pending_schedule"], ax),
    "value_per_point": lambda f, ax: plot_value_per_point(f["burn_values"], f["mispriced"], ax),
    "effective_return": lambda f, ax: plot_effective_return(f["effective_return"], ax),
    "liability_over_time": lambda f, ax: plot_liability_over_time(f["economics_over_time"], ax),
}
"""Chart file stem -> how it is drawn from the economics frames (by frame name)."""


def save_economics_charts(frames: Mapping[str, pd.DataFrame], directory: Path) -> list[Path]:
    """Every chart of :data:`CHARTS` as ``<name>.png`` in ``directory``; returns the paths."""
    written = []
    for name, plot in CHARTS.items():
        fig = Figure(figsize=(11, 6))
        path = directory / f"{name}.png"
        # usetex off: names are escaped for matplotlib's own text (``plain``), not for TeX.
        with rc_context({"font.size": FONT_SIZE, "text.usetex": False}):
            plot(frames, fig.add_subplot())
            with replacing(path) as tmp:
                save_png(fig, tmp)
        written.append(path)
    return written
