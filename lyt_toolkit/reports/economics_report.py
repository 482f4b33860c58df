"""The economics report folder: every economics frame as CSV with a manifest, the charts as
PNG, and one self-contained HTML page (charts embedded, no external assets).

The CSVs follow the snapshot conventions (``reports.snapshot_csv``: text a spreadsheet
would run is escaped with a leading ``'``, dtypes in the manifest), so a colleague can open
them in a spreadsheet and ``read_frames``-style code can restore them. The HTML page needs no
Python and no network: it opens from a mail attachment.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import pandas as pd

from .._collector import start_up
from .._write import replacing
from .cells import ESCAPING
from .html_page import embedded_charts, html_page
from .snapshot_csv import ESCAPING_KEY, MANIFEST, write_csv, write_folder

__all__ = [
    "ECONOMICS_FORMAT",
    "ECONOMICS_HTML",
    "EconomicsFrames",
    "format_figure",
    "headline_lines",
    "not_pulled_figure",
    "sample_note",
    "write_economics_report",
]

ECONOMICS_FORMAT = "lyt-economics/1"
"""The ``format`` of an economics report's ``manifest.json``."""

ECONOMICS_HTML = "economics.html"
"""The self-contained page of an economics report."""


class EconomicsFrames(Protocol):
    """What the report is written from (an ``lyt_toolkit.economics.Economics``)."""

    @property
    def source(self) -> str: ...

    @property
    def pulled_at(self) -> pd.Timestamp: ...

    @property
    def headline(self) -> Mapping[str, float | None]: ...

    def frames(self) -> Mapping[str, pd.DataFrame]: ...


def write_economics_report(
    economics: EconomicsFrames, out: str | Path, *, source: str | None = None
) -> list[Path]:
    """The frames as CSV, the manifest, the charts as PNG and the HTML page, in ``out``.

    The page names the service as ``source`` (e.g. ``project app_1 on cluster us1.api``;
    default: ``economics.source``, its address); a headline figure the economics cannot give
    (``Economics.not_given``) reads ``n/a (rewards not pulled)`` or ``n/a (no point value
    observed)`` there, and the manifest's ``not_given`` says why. Returns the written paths,
    sorted. Every file goes to a temporary name first and is renamed into place.
    """
    with start_up():  # matplotlib loads only here (see start_up)
        from .economics_chart import save_economics_charts

    if not hasattr(economics, "headline"):  # e.g. the snapshot the economics were made from
        raise TypeError(
            "economics: expected what economics.summarise returns, not a"
            f" {type(economics).__name__}: write_economics_report(economics.summarise(snapshot),"
            " out)"
        )
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    charts = save_economics_charts(economics.frames(), directory)
    note = sample_note(economics)
    left = _not_given_of(economics)
    extra = {
        ESCAPING_KEY: ESCAPING,
        "headline": {k: _plain(v) for k, v in economics.headline.items()},
        **({"not_given": dict(left)} if left else {}),
        "charts": [p.name for p in charts],
        "page": ECONOMICS_HTML,
        **({} if note is None else {"sample": note}),
    }
    written = write_folder(
        economics,
        directory,
        suffix=".csv",
        write_frame=write_csv,
        format=ECONOMICS_FORMAT,
        extra=extra,
    )
    page = directory / ECONOMICS_HTML
    with replacing(page) as tmp:
        tmp.write_text(economics_html(economics, charts, source), encoding="utf-8")
    return sorted({*written, *charts, page})


def _plain(value: float | None) -> float | None:
    """A headline figure as JSON can hold it (NA and NaN as null)."""
    return None if value is None or pd.isna(value) else float(value)


def format_figure(name: str, value: float | None) -> str:
    """A headline figure as people read it: rates as percentages, amounts with separators."""
    if value is None or pd.isna(value) or math.isinf(value):
        return "n/a"
    if name.endswith(("_rate", "_return")) or "_return_" in name:
        return f"{value:.2%}"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"


def not_pulled_figure(reason: str) -> str:
    """A figure the snapshot cannot give, as people read it: ``n/a (rewards, reward_costs
    not pulled)``, ``n/a (no point value observed)`` of its ``reason``
    (``Economics.not_given``); the headline and the what-if print it alike, and the per
    card definition frames' ``reason`` holds the same words."""
    return f"n/a ({reason})"


_LOW, _HIGH = "_ci_low", "_ci_high"


def headline_lines(
    headline: Mapping[str, float | None], not_given: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """The headline as (label, figure) pairs to print: a figure estimated from a sample is
    followed by its interval (``1,234 (95 % CI 1,100 to 1,380)``), whose ends are not listed
    apart; a figure ``not_given`` gives a reason for (``Economics.not_given``) reads
    ``n/a (rewards, reward_costs not pulled)`` or ``n/a (no point value observed)``."""
    reasons = not_given or {}
    out = []
    for name, value in headline.items():
        if name.endswith((_LOW, _HIGH)) and name.rsplit("_ci_", 1)[0] in headline:
            continue
        if name in reasons:
            out.append((name.replace("_", " "), not_pulled_figure(reasons[name])))
            continue
        figure = format_figure(name, value)
        if f"{name}{_LOW}" in headline:
            low = format_figure(name, headline[f"{name}{_LOW}"])
            high = format_figure(name, headline.get(f"{name}{_HIGH}"))
            figure = f"{figure} (95 % CI {low} to {high})"
        out.append((name.replace("_", " "), figure))
    return out


def _not_given_of(economics: object) -> Mapping[str, str]:
    """Headline figure -> why ``economics`` gives none (``Economics.not_given``: a kind it
    counts not pulled, no point value observed); empty of economics that say nothing of it."""
    return getattr(economics, "not_given", None) or {}


def sample_note(economics: object) -> str | None:
    """What a reader of a sampled snapshot's figures must know first (None: not sampled):
    ``estimated from 1,000 of 20,000 members (stratified sample, seed 7); 95 % intervals``."""
    design = getattr(economics, "sample", None)
    if design is None:
        return None
    kind = f"stratified sample by {', '.join(design.by)}" if design.by else "simple random sample"
    return (
        f"estimated from {design.size:,} of {design.population:,} members ({kind}, seed "
        f"{design.seed}); 95 % intervals"
    )


def economics_html(
    economics: EconomicsFrames,
    charts: list[Path],
    source: str | None = None,
) -> str:
    """The page: title, source (``source``, else ``economics.source``), headline figures
    (``headline_lines``), then every chart inline as base64 PNG."""
    e = html.escape
    named = source or economics.source or "the service"
    rows = "\n".join(
        f"<tr><th>{e(label)}</th><td>{e(figure)}</td></tr>"
        for label, figure in headline_lines(economics.headline, _not_given_of(economics))
    )
    note = sample_note(economics)
    sampled = (
        ""
        if note is None
        else f"\n<p><strong>Totals {e(note)}</strong> (see estimates.csv for every total's "
        "interval, per card definition and per month).</p>"
    )
    files = ", ".join(e(f"{name}.csv") for name in economics.frames())
    body = f"""<p>{e(named)} as of {economics.pulled_at:%Y-%m-%d %H:%M:%S} UTC.
Amounts are in the service's minor units (e.g. cents); values per point are minor units per
point; returns are shares of spend.</p>{sampled}
<h2>Headline figures</h2>
<table>
{rows}
</table>
<h2>Charts</h2>
{embedded_charts(charts)}
<p>The figures behind the charts are in this folder as CSV: {files}
(described in {e(MANIFEST)}).</p>"""
    return html_page(
        "Program economics",
        body,
        style="td { text-align: right; font-variant-numeric: tabular-nums; }",
    )
