"""Small pieces every widget shares: tables, messages, progress bars, downloads."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Sequence

import ipywidgets as w
import pandas as pd

from ..errors import LytError

__all__ = [
    "describe_error",
    "download_link",
    "error_html",
    "ok_html",
    "outcome_summary",
    "progress_bar",
    "progress_callback",
    "table_html",
]

RESULT_VIEW = ("row", "target", "outcome", "status", "error_key", "message", "resource_id")


def table_html(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> str:
    """A DataFrame as an escaped HTML table (only ``columns`` that exist, when given)."""
    if columns is not None:
        frame = frame[[c for c in columns if c in frame.columns]]
    # Nullable columns (Int64, str) print <NA> whatever na_rep says; blank them first.
    shown = frame.astype(object).where(frame.notna(), "")
    return shown.to_html(index=False, escape=True, classes="lyt-table", border=0)


def error_html(text: str) -> str:
    """``text`` escaped and shown in the error colour."""
    return f'<span style="color:#b00020">{html.escape(text)}</span>'


def ok_html(text: str) -> str:
    """``text`` escaped and shown in the success colour."""
    return f'<span style="color:#1b5e20">{html.escape(text)}</span>'


def describe_error(exc: BaseException) -> str:
    """A user-facing line for an error raised while loading data (never a credential)."""
    if isinstance(exc, LytError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def progress_bar(description: str = "Progress") -> w.IntProgress:
    """An empty bar for ``progress_callback`` to fill while a plan executes."""
    return w.IntProgress(value=0, min=0, max=1, description=description, bar_style="info")


def progress_callback(bar: w.IntProgress) -> Callable[[int, int], None]:
    """A ``progress=`` callback for ``ActionPlan.execute`` that drives an IntProgress."""

    def update(done: int, total: int) -> None:
        bar.max = max(total, 1)
        bar.value = done
        bar.bar_style = "success" if done >= total else "info"

    return update


def download_link(frame: pd.DataFrame, filename: str, label: str = "Download CSV") -> str:
    """An HTML anchor carrying the CSV as a data URI: works in any notebook front end."""
    payload = base64.b64encode(frame.to_csv(index=False).encode()).decode()
    return (
        f'<a download="{html.escape(filename)}" href="data:text/csv;base64,{payload}" '
        f'target="_blank">{html.escape(label)}</a>'
    )


def outcome_summary(results: pd.DataFrame) -> str:
    """One line counting an execution's results per outcome, e.g. ``succeeded: 3, failed: 1``."""
    counts = results["outcome"].value_counts()
    parts = [f"{name}: {int(counts[name])}" for name in counts.index if counts[name]]
    return ", ".join(parts) if parts else "nothing to do"
