"""Small pieces every widget shares: tables, messages, progress bars, downloads, and
``PlanPanel``, the base of the widgets that run action plans."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import pandas as pd

from ..errors import LytError

if TYPE_CHECKING:
    from ..actions import ActionPlan
    from ..actions.log import LogSource
    from ..client import LoyaltyClient

__all__ = [
    "RESULT_VIEW",
    "PlanPanel",
    "describe_error",
    "download_link",
    "enum_text",
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
    """A ``progress=`` callback (a ``lyt_toolkit._progress.Progress``) driving an IntProgress."""

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


def enum_text(value: Any) -> str:
    """An enum member's value, or any other value as text (for option labels)."""
    return str(getattr(value, "value", value))


class PlanPanel(w.VBox):
    """Base of the widgets that run action plans: a status line, a progress bar, results.

    ``status``, ``progress``, ``results_html`` and ``results`` (the last run's
    DataFrame, ``None`` before) are attributes, so a notebook or a test can
    read them; a subclass places them among its own ``children``.
    """

    def __init__(self, client: LoyaltyClient, *, progress_label: str) -> None:
        self.client = client
        self.status = w.HTML()
        self.progress = progress_bar(progress_label)
        self.results_html = w.HTML()
        self.results: pd.DataFrame | None = None
        super().__init__()

    def show_error(self, text: str) -> None:
        """Show ``text`` as the status, in the error colour."""
        self.status.value = error_html(text)

    def show_ok(self, text: str) -> None:
        """Show ``text`` as the status, in the success colour."""
        self.status.value = ok_html(text)

    def guard(self, load: Callable[[], None], what: str) -> bool:
        """Run ``load``; a failure shows as the status instead of raising (False then)."""
        try:
            load()
        except Exception as exc:  # an observer's exception would only reach the log
            self.show_error(f"Could not load {what}: {describe_error(exc)}")
            return False
        return True

    def run(
        self,
        plan: ActionPlan[Any],
        view: Sequence[str],
        *,
        then: Callable[[], None] | None = None,
        button: w.Button | None = None,
        concurrency: int = 8,
        log: LogSource | None = None,
    ) -> pd.DataFrame:
        """Execute ``plan`` with the progress bar and show the ``view`` columns of its results.

        ``button`` stays disabled while the plan runs; ``then`` (e.g. a reload)
        runs before the status shows the count of each outcome.
        """
        if button is not None:
            button.disabled = True
        try:
            results = plan.execute(
                self.client,
                concurrency=concurrency,
                log=log,
                progress=progress_callback(self.progress),
            )
        finally:
            if button is not None:
                button.disabled = False
        self.results = results
        self.results_html.value = table_html(results, view)
        if then is not None:
            then()
        self.show_ok(outcome_summary(results))
        return results
