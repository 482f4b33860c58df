"""A batch's results in a widget: the columns shown, the outcome count and state, the
progress bar and the CSV download."""

from __future__ import annotations

import base64
import html
from typing import Any, Literal

import ipywidgets as w
import pandas as pd

from .._text import figure
from ..actions import Outcome

__all__ = [
    "RESULT_VIEW",
    "download_button",
    "failure_text",
    "outcome_state",
    "outcome_summary",
    "progress_bar",
]

RESULT_VIEW = ("row", "target", "outcome", "status", "error_key", "message", "resource_id")


def progress_bar(description: str = "Progress") -> w.IntProgress:
    """An empty bar that :class:`PlanPanel` fills while a plan executes."""
    return w.IntProgress(value=0, min=0, max=1, description=description, bar_style="info")


def download_button(frame: pd.DataFrame, filename: str, label: str = "Download CSV") -> str:
    """A button-styled link carrying the CSV as a data URI: works in any notebook front end."""
    payload = base64.b64encode(frame.to_csv(index=False).encode()).decode()
    return (
        f'<a download="{html.escape(filename)}" href="data:text/csv;base64,{payload}" '
        'role="button" class="jupyter-button widget-button mod-info" '
        'style="display:inline-flex;align-items:center;text-decoration:none;padding:0 12px">'
        f"\u2913 {html.escape(label)}</a>"
    )


def outcome_summary(results: pd.DataFrame) -> str:
    """One line counting an execution's results per outcome, e.g. ``succeeded: 3, failed: 1``."""
    counts = results["outcome"].value_counts(sort=False)
    parts = [f"{name}: {figure(int(counts[name]))}" for name in counts.index if counts[name]]
    return ", ".join(parts) if parts else "nothing to do"


def outcome_state(results: pd.DataFrame) -> Literal["success", "partial", "failure"]:
    """``success`` when nothing failed, ``failure`` when nothing got done, else ``partial``."""
    outcome = results["outcome"].astype(str)
    bad = outcome.isin([Outcome.FAILED, Outcome.INVALID, Outcome.CANCELLED])
    if not bad.any():
        return "success"
    return "failure" if bad.all() else "partial"


def failure_text(status: Any, error_key: Any, message: Any) -> str:
    """A result row's failure as a line: ``423 locked: <message>``, or the message alone when
    no HTTP status came back (refused before it was sent)."""
    if pd.isna(status):
        return str(message)
    return f"{int(status)} {error_key}: {message}"
