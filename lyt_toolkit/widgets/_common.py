"""Small pieces every widget shares: messages, progress bars, downloads, and ``PlanPanel``,
the base of the widgets that run action plans in the background."""

from __future__ import annotations

import base64
import html
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import ipywidgets as w
import pandas as pd

from .._text import counted
from ..actions import Outcome
from ..errors import LytError
from ._grid import grid, show

if TYPE_CHECKING:
    from ..actions import ActionPlan
    from ..actions.log import LogSource
    from ..client import LoyaltyClient

__all__ = [
    "RESULT_VIEW",
    "LoadsWhenShown",
    "PlanPanel",
    "State",
    "describe_error",
    "download_button",
    "enum_text",
    "error_html",
    "ok_html",
    "outcome_state",
    "outcome_summary",
    "progress_bar",
    "status_html",
]

RESULT_VIEW = ("row", "target", "outcome", "status", "error_key", "message", "resource_id")

State = Literal["running", "success", "partial", "failure"]

_COLOURS: dict[State, str] = {
    "running": "#0d47a1",
    "success": "#1b5e20",
    "partial": "#8a5300",
    "failure": "#b00020",
}
_BAR_STYLES: dict[State, str] = {
    "running": "info",
    "success": "success",
    "partial": "warning",
    "failure": "danger",
}
_ICONS: dict[State, str] = {
    "running": "\u23f3",
    "success": "\u2714",
    "partial": "\u26a0",
    "failure": "\u2716",
}


def status_html(text: str, state: State) -> str:
    """``text`` escaped, with the icon and colour of ``state`` (running, success, partial,
    failure)."""
    return (
        f'<span style="color:{_COLOURS[state]};font-weight:600">'
        f"{_ICONS[state]} {html.escape(text)}</span>"
    )


def error_html(text: str) -> str:
    """``text`` escaped and shown as a failure."""
    return status_html(text, "failure")


def ok_html(text: str) -> str:
    """``text`` escaped and shown as a success."""
    return status_html(text, "success")


def describe_error(exc: BaseException) -> str:
    """A user-facing line for an error raised while loading data (never a credential)."""
    if isinstance(exc, LytError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


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
    parts = [f"{name}: {int(counts[name])}" for name in counts.index if counts[name]]
    return ", ".join(parts) if parts else "nothing to do"


def outcome_state(results: pd.DataFrame) -> Literal["success", "partial", "failure"]:
    """``success`` when nothing failed, ``failure`` when nothing got done, else ``partial``."""
    outcome = results["outcome"].astype(str)
    bad = outcome.isin([Outcome.FAILED, Outcome.INVALID, Outcome.CANCELLED])
    if not bad.any():
        return "success"
    return "failure" if bad.all() else "partial"


def enum_text(value: Any) -> str:
    """An enum member's value, or any other value as text (for option labels)."""
    return str(getattr(value, "value", value))


class LoadsWhenShown:
    """Mixin of widgets that read the service: never in the constructor, but in
    :meth:`refresh`, started in a background thread on the first display and by a
    Refresh button (:meth:`refresh_in_background`), so the kernel stays free while a
    long list loads. A choice that lists something new (a project's webhooks, a
    member's cards) loads the same way (:meth:`load_in_background`). Called directly,
    :meth:`refresh` loads in the calling thread."""

    _shown = False
    _loading = False
    _loader: threading.Thread | None = None

    def refresh(self) -> None:
        """Load what the widget lists from the service (nothing by default)."""

    @property
    def loading(self) -> bool:
        """True while a background load runs (until the widget shows its end)."""
        return self._loading

    def refresh_in_background(self) -> bool:
        """Start :meth:`refresh` in a background thread; False (nothing started) while a
        load already runs. The widget shows that it is loading until the load ends."""
        return self.load_in_background(self.refresh)

    def load_in_background(self, load: Callable[[], object]) -> bool:
        """Start ``load`` in a background thread; False (nothing started) while another
        load runs. Called from within a load (an observer fired by it), ``load`` runs
        at once, as part of that load."""
        if threading.current_thread() is self._loader:
            load()
            return True
        if self._loading:
            return False
        self._loading = True
        self.show_loading(True)
        self._loader = threading.Thread(
            target=self._load, args=(load,), name=f"lyt-load-{type(self).__name__}", daemon=True
        )
        self._loader.start()
        return True

    def _load(self, load: Callable[[], object]) -> None:
        try:
            load()
        except Exception as exc:  # a thread's exception would only reach stderr
            self.show_load_error(f"Could not load: {describe_error(exc)}")
        finally:
            self._loading = False
            self.show_loading(False)

    def show_loading(self, loading: bool) -> None:
        """Show that a load starts or ended (subclasses: a note, disabled buttons)."""

    def show_load_error(self, text: str) -> None:
        """Show ``text``, a load's failure (subclasses)."""

    def wait(self, timeout: float | None = 120) -> None:
        """Block until the background load (if any) has ended and the widget shows it."""
        _join(self._loader, timeout, "the load")

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        if not self._shown:
            self._shown = True
            self.refresh_in_background()
        return super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]


def _join(thread: threading.Thread | None, timeout: float | None, what: str) -> None:
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout)
        if thread.is_alive():
            raise TimeoutError(f"{what} was still running after {timeout} s")


LOADING = "Loading…"
"""The status while a background load runs."""


class PlanPanel(LoadsWhenShown, w.VBox):
    """Base of the widgets that run action plans, in a background worker.

    ``status``, ``progress``, ``cancel_button``, ``budget`` (the call budget and
    the cost of the batch about to run), ``results_grid`` (``result_columns``
    of the last run), ``download`` (its CSV) and ``results`` (the last run's
    DataFrame, ``None`` before) are attributes a subclass places among its ``children``. Nothing
    is read from the service in a constructor: :meth:`refresh` loads, on the
    first display or on a Refresh button. Only one batch runs at a time;
    :meth:`wait` joins it (for tests and scripts).
    """

    def __init__(
        self,
        client: LoyaltyClient,
        *,
        progress_label: str,
        result_columns: Sequence[str] = RESULT_VIEW,
    ) -> None:
        self.client = client
        self.status = w.HTML()
        self.progress = progress_bar(progress_label)
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True)
        self.budget = w.HTML()
        self.results_grid = grid(result_columns)
        self.download = w.HTML()
        self.results: pd.DataFrame | None = None
        self._cancel = threading.Event()
        self._worker: threading.Thread | None = None
        self._running = False
        self.cancel_button.on_click(lambda _: self.cancel())
        super().__init__()

    # -- messages --------------------------------------------------------------------------

    def show_error(self, text: str) -> None:
        """Show ``text`` as the status, as a failure."""
        self.status.value = error_html(text)

    def show_ok(self, text: str) -> None:
        """Show ``text`` as the status, as a success."""
        self.status.value = ok_html(text)

    def guard(self, load: Callable[[], None], what: str) -> bool:
        """Run ``load``; a failure shows as the status instead of raising (False then)."""
        try:
            load()
        except Exception as exc:  # an observer's exception would only reach the log
            self.show_error(f"Could not load {what}: {describe_error(exc)}")
            return False
        return True

    # -- buttons ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """True while a batch or a load runs (the buttons are disabled meanwhile)."""
        return self._running or self.loading

    def show_loading(self, loading: bool) -> None:
        if loading:
            self.status.value = status_html(LOADING, "running")
            for button in self.controls():
                button.disabled = True
            return
        if self.status.value == status_html(LOADING, "running"):
            self.status.value = ""
        self.update_buttons()

    def show_load_error(self, text: str) -> None:
        self.show_error(text)

    def update_buttons(self) -> None:
        """Enable each button as the widget's state allows (subclasses); called after a run."""

    def enable(self, button: w.Button, allowed: bool) -> None:
        """Enable ``button`` when ``allowed`` and no batch is running."""
        button.disabled = self.busy or not allowed

    def controls(self) -> Sequence[w.Button]:
        """The buttons disabled while a batch runs (subclasses list theirs)."""
        return ()

    # -- budget ----------------------------------------------------------------------------

    def show_cost(self, plan: ActionPlan[Any], log: LogSource | None = None) -> None:
        """Show next to the execute button what ``plan`` costs and the budget left."""
        try:
            cost = plan.cost(self.client, log=log)
        except (OSError, ValueError):  # an unreadable log: ``run`` says so when asked to run
            self.budget.value = ""
            return
        state: State = "success" if cost.fits else "failure"
        colour = _COLOURS[state]
        self.budget.value = f'<span style="color:{colour}">{html.escape(str(cost))}</span>'

    # -- running ---------------------------------------------------------------------------

    def run(
        self,
        plan: ActionPlan[Any],
        view: Sequence[str],
        *,
        then: Callable[[], None] | None = None,
        concurrency: int = 8,
        log: LogSource | None = None,
    ) -> bool:
        """Start executing ``plan`` in the background; False when refused.

        Refused while another batch runs, and when the call budget the client
        knows cannot carry the batch (nothing is sent then). Otherwise the
        buttons are disabled, Cancel enabled, and when the batch ends the
        ``view`` columns of its results show in the grid (all of them in the
        ``download`` CSV), ``then`` (e.g. a reload) runs, the status counts the
        outcomes and the buttons come back.
        """
        if self._running:
            self.show_error("A batch is already running: wait for it to end or press Cancel.")
            return False
        if self.loading:
            self.show_error("The lists are still loading: try again when they are shown.")
            return False
        try:
            cost = plan.cost(self.client, log=log)
        except (OSError, ValueError) as exc:
            self.show_error(f"Could not read the action log {log}: {describe_error(exc)}")
            return False
        if not cost.fits:
            self.show_error(f"Refused, nothing was sent: the call budget cannot carry it ({cost})")
            self.show_cost(plan, log)
            return False
        self._running = True
        self._cancel.clear()
        for button in self.controls():
            button.disabled = True
        self.cancel_button.disabled = False
        self.download.value = ""
        self.progress.bar_style = "info"
        self.progress.value = 0
        self.status.value = status_html(f"Running: {counted(cost.needed, 'call')}", "running")
        self._worker = threading.Thread(
            target=self._execute,
            args=(plan, view, then, concurrency, log),
            name=f"lyt-widget-{plan.action}",
            daemon=True,
        )
        self._worker.start()
        return True

    def cancel(self) -> None:
        """Stop the running batch once the requests in flight have been answered."""
        if self._running:
            self._cancel.set()
            self.cancel_button.disabled = True
            self.status.value = status_html(
                "Cancelling: waiting for the requests in flight", "running"
            )

    def wait(self, timeout: float | None = 120) -> None:
        """Block until the running loads and batch (if any) have ended and the widget is
        settled (a batch's reload may start a load, which this waits for too)."""
        while True:
            super().wait(timeout)
            _join(self._worker, timeout, "the batch")
            if not (self.loading or self._running):
                return

    def _execute(
        self,
        plan: ActionPlan[Any],
        view: Sequence[str],
        then: Callable[[], None] | None,
        concurrency: int,
        log: LogSource | None,
    ) -> None:
        try:
            results = plan.execute(
                self.client,
                concurrency=concurrency,
                log=log,
                progress=self._advance,
                cancel=self._cancel,
            )
        except Exception as exc:  # a thread's exception would only reach stderr
            self._settle()
            self.progress.bar_style = "danger"
            self.show_error(f"The batch stopped: {describe_error(exc)}")
            return
        self.results = results
        show(self.results_grid, results, view)
        self.download.value = download_button(results, f"{plan.action}_results.csv")
        self._settle()
        if then is not None:
            self.guard(then, "the new state")
        state = outcome_state(results)
        self.progress.bar_style = _BAR_STYLES[state]
        self.status.value = status_html(outcome_summary(results), state)

    def _settle(self) -> None:
        self._running = False
        self.cancel_button.disabled = True
        self.update_buttons()

    def _advance(self, done: int, total: int) -> None:
        self.progress.max = max(total, 1)
        self.progress.value = done
