"""``PlanPanel``: the base of the widgets that run action plans in a background worker,
with Cancel, a progress bar, the call budget and the results."""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import pandas as pd

from .._progress import PacedProgress
from .._stop import Stop
from .._text import counted, figure
from ..actions.cost import PlanCost, budgeted
from ..snapshot.defaults import DEFAULT_SHARE
from ._background import LOADING, LoadsWhenShown, join_worker
from ._grid import clear, grid, show
from ._messages import BAR_STYLES, COLOURS, describe_error, error_html, ok_html, status_html
from ._results import RESULT_VIEW, download_button, outcome_state, outcome_summary, progress_bar

if TYPE_CHECKING:
    from ..actions import ActionPlan
    from ..actions.log import LogSource
    from ..client import LoyaltyClient

__all__ = ["PlanPanel", "cost_html", "refusal"]


class PlanPanel(LoadsWhenShown, w.VBox):
    """Base of the widgets that run action plans, in a background worker.

    ``status``, ``progress``, ``cancel_button``, ``budget`` (the call budget and
    the cost of the batch about to run), ``results_grid`` (``result_columns``
    of the last run), ``download`` (its CSV) and ``results`` (the last run's
    DataFrame; ``None`` before, and after a batch an error stopped) are attributes a
    subclass places among its ``children``. Nothing is read from the service in a
    constructor: :meth:`refresh` loads, on the first display or on a Refresh button.
    Only one batch runs at a time; :meth:`wait` joins it (for tests and scripts).
    ``budget_share``: the share of the calls left in the window a batch may use (0.5, as
    ``execute``'s default: the rest stays for the project's other traffic); set it to 1.0
    to let a batch take the whole window. ``paced``: set it to True to run a batch larger
    than that share paced (``execute(paced=True)``): the share of every window, waiting for
    each reset, in the background as any batch; it needs an action log (``action_log``, or the
    log a panel asks for), from which running again resumes.
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
        self.budget_share = DEFAULT_SHARE
        self.paced = False
        self.action_log: LogSource | None = None
        """The log of the panel's batches (each item's outcome, written as it ends): with it
        a batch stopped part-way (Cancel, the budget, a crash) resumes where it stopped. A
        paced batch needs one."""
        self._cancel = Stop()  # a Cancel ends the waits of the requests in flight at once
        self._worker: threading.Thread | None = None
        self._running = False
        self.cancel_button.on_click(lambda _: self.cancel())
        super().__init__()

    def _run_views(self) -> list[w.Widget]:
        """What a run fills, as the panels show it below their own widgets: ``status``,
        ``progress``, ``results_grid``, ``download``."""
        return [self.status, self.progress, self.results_grid, self.download]

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
        self._show_reads()

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

    _reloaded = "the list"
    """What the panel's reload after a run reads, as the shown cost names it."""

    def _reload_calls(self) -> int:
        """The calls the panel's reload after a run sends (subclasses that reload): counted
        in the cost a run shows and checked against the budget before it starts."""
        return 0

    def _reloads(self, plan: ActionPlan[Any]) -> int:
        """The reload's calls after a run of ``plan``: none when it sends nothing."""
        return self._reload_calls() if plan.valid_items else 0

    def _run_cost(self, plan: ActionPlan[Any], log: LogSource | None = None) -> PlanCost:
        """Every call a run of ``plan`` sends: the plan's, and the reload after it when the
        plan sends anything, within the panel's ``budget_share``. ``OSError`` or
        ``ValueError`` for a log it cannot read."""
        cost = plan.cost(self.client, log=log, budget_share=self.budget_share)
        reload = self._reloads(plan)
        if not reload:
            return cost
        if not cost.needed and not self.client.holds_token:
            reload += 1  # the token request the plan's count would have held
        return replace(cost, needed=cost.needed + reload)

    def show_cost(self, plan: ActionPlan[Any], log: LogSource | None = None) -> None:
        """Show next to the execute button what running ``plan`` costs (the reload after the
        run counted, and said) and the budget left."""
        try:
            cost = self._run_cost(plan, log)
        except (OSError, ValueError):  # an unreadable log: ``run`` says so when asked to run
            self.budget.value = ""
            return
        reload = self._reloads(plan)
        read = f"{counted(reload, 'read')} of {self._reloaded}"
        note = f" (with {read} after the run)" if reload else ""
        self.budget.value = cost_html(cost, note)

    def _read_cost(self, calls: int) -> PlanCost:
        """``calls`` reads set against the panel's ``budget_share`` of the budget the client
        knows (nothing sent)."""
        return PlanCost.for_client(calls, self.client, self.budget_share)

    def _check_reads(self, calls: int, what: str) -> int | None:
        """Raise ``BudgetExceededError``, nothing sent, when ``calls`` reads of ``what`` do
        not fit the panel's ``budget_share`` (a client that does not know its budget reads
        it first: its token request); a loader's ``guard`` shows it as the status. Else the
        reads the share holds (at least ``calls``; None while the budget is unknown): a list
        whose pages ``calls`` only bounds from below is walked within them."""
        cost = budgeted(lambda: self._read_cost(calls), self.client)
        if not cost.fits:
            raise cost.refusal(f"{what} ({counted(calls, 'call')})", partial=False)
        return None if cost.allowed is None else cost.allowed - (cost.needed - calls)

    def _reads_html(self, what: str, calls: int, note: str = "") -> str:
        """``what`` the panel reads next and the cost of its ``calls`` (``note`` after them,
        as ``cost_html`` places it), for the panel's ``reads`` line."""
        return f"{html.escape(what)}: {cost_html(self._read_cost(calls), note)}"

    def _show_reads(self) -> None:
        """Show what the panel's next reads cost (subclasses with a ``reads`` line); called
        when a load or a batch ends, the budget then known anew."""

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
        knows cannot carry the batch (nothing is sent then), unless the panel is
        ``paced`` (then refused without a log). ``log``: the batch's action log, else the
        panel's ``action_log``. Otherwise the
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
        log = self.action_log if log is None else log
        paced = self.paced
        if self._unlogged(log):
            return False
        try:
            cost = self._run_cost(plan, log)
        except (OSError, ValueError) as exc:
            self.show_error(f"Could not read the action log {log}: {describe_error(exc)}")
            return False
        if not cost.fits and not paced:
            self.show_error(refusal(cost))
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
        self.progress.max = max(len(plan.items), 1)
        running = "Running paced" if paced else "Running"
        self.status.value = status_html(f"{running}: {counted(cost.needed, 'call')}", "running")
        self._worker = threading.Thread(
            target=self._execute,
            args=(plan, view, then, concurrency, log, paced),
            name=f"lyt-widget-{plan.action}",
            daemon=True,
        )
        self._worker.start()
        return True

    def cancel(self) -> None:
        """Stop the running batch once the requests in flight have been answered (one waiting
        to be sent again, a retry, is not sent: ``cancelled``)."""
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
            join_worker(self._worker, timeout, "the batch")
            if not (self.loading or self._running):
                return

    def _execute(
        self,
        plan: ActionPlan[Any],
        view: Sequence[str],
        then: Callable[[], None] | None,
        concurrency: int,
        log: LogSource | None,
        paced: bool,
    ) -> None:
        """Execute ``plan`` (``paced``: paced, its line on the status)."""
        try:
            results = plan.execute(
                self.client,
                concurrency=concurrency,
                log=log,
                progress=self._batch_progress(),
                cancel=self._cancel,
                budget_share=self.budget_share,
                paced=paced,
            )
        except Exception as exc:  # a thread's exception would only reach stderr
            # Items may have been sent before it stopped: the last batch's results are not
            # this one's, so they go (its log, or a reload, tells which items were done).
            self.results = None
            clear(self.results_grid)
            self._settle()
            self.progress.bar_style = "danger"
            got = f"after {figure(self.progress.value)} of {counted(self.progress.max, 'item')}"
            self.show_error(f"The batch stopped {got}: {describe_error(exc)}")
            self._show_reads()
            return
        self.results = results
        show(self.results_grid, results, view)
        self.download.value = download_button(results, f"{plan.action}_results.csv")
        self._settle()
        if then is not None:
            self.guard(then, "the new state")
        self._show_reads()
        state = outcome_state(results)
        self.progress.bar_style = BAR_STYLES[state]
        self.status.value = status_html(outcome_summary(results), state)

    def _unlogged(self, log: LogSource | None) -> bool:
        """True, the refusal shown, when the panel is ``paced`` and ``log`` is None."""
        if self.paced and log is None:
            self.show_error(f"Refused, nothing was sent: {UNLOGGED}.")
            return True
        return False

    def _batch_progress(self) -> PacedProgress:
        """A batch's progress: its items on the bar, a paced run's line on the status."""
        return _BatchProgress(self, self.budget_share)

    def _settle(self) -> None:
        self._running = False
        self.cancel_button.disabled = True
        self.update_buttons()

    def _advance(self, done: int, total: int) -> None:
        self.progress.max = max(total, 1)
        self.progress.value = done


class _BatchProgress:
    """A batch's progress on ``panel``: the items done on its bar; a paced run's line (calls,
    window, expected end: ``fill.pace.PaceBar``) on its status, once a second, until a Cancel
    is pressed (its own status stays)."""

    def __init__(self, panel: PlanPanel, share: float) -> None:
        self._panel, self._share = panel, share

    def __call__(self, done: int, total: int) -> None:
        self._panel._advance(done, total)

    def paced(self, line: str) -> None:
        if not self._panel._cancel.is_set():
            text = f"Running paced at {self._share:g} of each window: {line}"
            self._panel.status.value = status_html(text, "running")


UNLOGGED = (
    "a paced batch needs an action log, from which running it again after a stop (Cancel,"
    " a crash) sends only the rest: set the panel's action_log = 'batch.log.jsonl'"
)
"""Why a paced batch without a log is refused, and what to do."""


def refusal(cost: PlanCost) -> str:
    """Why a batch or plan ``cost`` does not fit was refused, how to let it take more when the
    whole window would hold it, and that the panel runs it paced."""
    text = f"Refused, nothing was sent: the call budget cannot carry it ({cost})"
    if cost.share < 1 and cost.remaining is not None and cost.needed <= cost.remaining:
        text += "; set the panel's budget_share = 1.0 to let it take the whole window"
    return (
        f"{text}; or set the panel's paced = True to run it at {cost.share:g} of every window,"
        " waiting for each reset, resumable from the panel's action log"
    )


def cost_html(cost: PlanCost, note: str = "") -> str:
    """``cost`` as a line, green when it fits its share of the budget, else red; ``note``
    follows the calls needed."""
    text = str(cost)
    if note:
        needed = f"calls needed: {figure(cost.needed)}"
        text = text.replace(needed, needed + note, 1)
    colour = COLOURS["success" if cost.fits else "failure"]
    return f'<span style="color:{colour}">{html.escape(text)}</span>'
