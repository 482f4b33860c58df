"""The economics what-if report folder: the comparison frames as CSV with a manifest, two
before/after charts as PNG and one self-contained HTML page (``economics-what-if.html``).

Written from plain frames (``WhatIfFrames``; ``lyt report economics --edited`` fills them
from a ``whatif.WhatIf``), in the conventions of the economics report: text a spreadsheet
would run is escaped with a leading ``'``, dtypes are in the manifest, every file goes to a
temporary name first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .._write import replacing
from .cells import ESCAPING
from .snapshot_csv import ESCAPING_KEY, write_csv, write_folder
from .what_if_chart import save_what_if_charts
from .what_if_page import WHAT_IF_FILES, WhatIfFrames, what_if_page

__all__ = [
    "WHAT_IF_FILES",
    "WHAT_IF_FORMAT",
    "WHAT_IF_HTML",
    "WhatIfFrames",
    "write_what_if_report",
]

WHAT_IF_FORMAT = "lyt-economics-what-if/1"
"""The ``format`` of a what-if report's ``manifest.json``."""

WHAT_IF_HTML = "economics-what-if.html"
"""The self-contained page of a what-if report (beside ``economics.html``'s name)."""


def write_what_if_report(report: WhatIfFrames, out: str | Path) -> list[Path]:
    """The frames as CSV, the manifest, the charts as PNG and the page, in ``out``; returns
    the written paths, sorted."""
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    charts = save_what_if_charts(report.card_definitions, directory)
    extra = {
        ESCAPING_KEY: ESCAPING,
        "base": report.base,
        "edited": report.edited,
        "summary": report.summary,
        "headline": _headline(report.headline),
        **({"not_given": dict(report.not_given)} if report.not_given else {}),
        "charts": [p.name for p in charts],
        "page": WHAT_IF_HTML,
        **({} if report.sample_note is None else {"sample": report.sample_note}),
    }
    written = write_folder(
        report, directory, suffix=".csv", write_frame=write_csv,
        format=WHAT_IF_FORMAT, extra=extra,
    )  # fmt: skip
    page = directory / WHAT_IF_HTML
    with replacing(page) as tmp:
        tmp.write_text(what_if_page(report, charts), encoding="utf-8")
    return sorted({*written, *charts, page})


def _headline(headline: pd.DataFrame) -> dict[str, dict[str, float | None]]:
    """Figure -> before, after, change (JSON: NA as null)."""
    return {
        str(row["figure"]): {side: _plain(row[side]) for side in ("before", "after", "change")}
        for _, row in headline.iterrows()
    }


def _plain(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)
