"""``EditPanel``: edit a snapshot's frames in an editable grid, then plan, rehearse and apply.

The panel holds ``actions.edit(snapshot)``: a cell edited in the grid lands in that
``ProgramEdit`` in the column's own dtype (typed text is read by ``frames.parse``, the
rules of every typed value), Add row appends an empty row (a new benefit: its ``id``
left empty), Delete selected rows drops the rows of the selected cells. Plan, Rehearse and Apply run
``ChangePlan``'s own steps in a background worker; a value that does not fit its column
shows as the plan's ``EditError`` (frame, row and column), never as a traceback.
"""

from __future__ import annotations

import functools
import html
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

import ipywidgets as w
import pandas as pd
from ipydatagrid import DataGrid

from .. import actions
from .._shares import share_of
from .._text import counted, figure, tally
from ..actions.cost import PlanCost, budgeted
from ..actions.log import ActionLog
from ..actions.rehearsal import sampled_refusal
from ..errors import BudgetExceededError, PullBudgetError
from ..fill.pace_run import PacedRun, paced_run
from ..frames.parse import ValueRefused, typed_column, typed_value
from ..frames.registry import FRAME_NAMES
from ..snapshot import ProgramSnapshot
from ..snapshot.again import again_calls, again_sample
from ..snapshot.cost import budget_text
from ..snapshot.defaults import checked_concurrency
from ._messages import State, describe_error, status_html
from ._plan_panel import PlanPanel, cost_html, refusal
from ._refused import (
    SEND_AGAIN,
    STILL_HELD,
    reconsidered,
    refused_in,
    refused_left,
    refused_results,
    skipped_note,
    still_held,
)
from ._results import (
    RESULT_VIEW,
    download_button,
    failure_text,
    outcome_state,
    outcome_summary,
)
from ._taken import Taken

if TYPE_CHECKING:
    from ..actions.log import LogSource
    from ..client import LoyaltyClient

__all__ = ["EditPanel", "Table"]

CHANGE_VIEW = ("kind", "key", "action", "column", "before", "after", "call", "blocked_reason")
UNSUPPORTED_VIEW = ("kind", "key", "column", "before", "after", "reason")
DIFF_VIEW = ("kind", "key", "change", "column", "before", "after")
CHECK_VIEW = ("kind", "key", "change", "column", "expected", "actual", "status")
NOT_APPLIED_VIEW = ("kind", "key", "column", "after", "not_applied", "reason")
"""An edit an Apply did not make, kept on top of the pull: ``not_applied`` is ``failed``,
``refused for good`` (its log keeps it from being sent again: see ``send_refused``),
``invalid``, ``never sent`` (cancelled), ``edited since`` or ``unsupported``."""
REFUSED_FOR_GOOD = "refused for good"
"""``not_applied`` of a write refused 404, 409 or 423 with a log, logged final."""
_DONE = frozenset(
    {actions.Outcome.SUCCEEDED, actions.Outcome.SKIPPED, actions.Outcome.ALREADY_DONE}
)
"""The outcomes of an item the service holds: its edit is in the pull, never sent again."""
GRID_HEIGHT = "320px"
"""The editable grid scrolls within this height (it draws only the rows in view)."""
TABLE_ROWS = 10
"""A read-only table shows this many rows at most and scrolls for the others."""


class EditPanel(PlanPanel):
    """One frame of ``snapshot`` at a time (``kind``, chosen in a dropdown) in an editable
    grid; the edits of every frame make one plan.

    Plan and Rehearse need no client; Apply sends the plan through ``client`` (with
    ``log``, resumable; ``concurrency`` requests in flight; a client set on a panel built
    without one arms Apply at once) and refuses deletes unless
    Allow deletes is ticked and changes the service cannot make unless Ignore unsupported
    is, with the plan's own message; Cancel stops it after the requests in flight.
    After Apply the panel pulls the service again as the snapshot was pulled (its kinds,
    and for a sampled snapshot the ``Sample`` its design was drawn by: size, seed, strata,
    join bands and allocation, ``again_sample``): a rehearsal of the
    same plan is verified against that pull (``verification``), and the pull becomes the
    new base. The calls Plan shows, and Apply checks against the budget before it sends
    anything, count that pull (``again_calls``); a pull the budget cannot hold after the
    writes is not started (a rehearsed Apply is then verified reading only what the rehearsal
    changed, ``actions.verify_touched``, when the share holds that), and Plan then pulls
    first only once the budget holds it. Every
    edit the Apply did not make stays on top of it, planned again, and is listed with why in
    ``not_applied_table``: those that failed, those never sent (Cancel, the budget's share
    spent) and those Ignore unsupported left out; a second Apply sends exactly the ones it
    can, none that was made. Apply is armed only while the plan holds a change the service
    can make. ``plan``, ``rehearsal``, ``results`` and ``verification`` hold
    the last of each.

    With a log, a write the service refused for good (404, 409, 423) is logged final and
    listed ``refused for good``: a plain Apply does not send it again (the status counts
    it), nor does its cost count it. Once what refused it is put right, tick Send refused
    writes again (``send_refused``, shown while the plan holds such writes): Apply then
    reads the log as reconsidered and sends them, writing the log's ``reconsidered`` line with
    its first write (``ActionLog.as_reconsidered``), and the cost counts them. An Apply that
    ends before sending any write leaves the log as it was and the box ticked.
    """

    def __init__(
        self,
        snapshot: ProgramSnapshot,
        client: LoyaltyClient | None = None,
        *,
        kind: str = "rewards",
        log: LogSource | None = None,
        concurrency: int = 8,
    ) -> None:
        if not isinstance(snapshot, ProgramSnapshot):
            raise TypeError(f"snapshot: expected a ProgramSnapshot, not {type(snapshot).__name__}")
        if kind not in FRAME_NAMES:
            raise ValueError(f"kind: {kind!r} is not a frame; choose one of {list(FRAME_NAMES)}")
        checked_concurrency(concurrency)
        # PlanPanel reads its client only in run() and show_cost(), which this panel never
        # calls: without one, Plan and Rehearse work and Apply says it needs a client.
        self._built = False
        super().__init__(client, progress_label="Applying")  # type: ignore[arg-type]
        self.snapshot = snapshot
        self.edit = actions.edit(snapshot)
        self.action_log = log
        self.concurrency = concurrency
        self.plan: actions.ChangePlan | None = None
        self.rehearsal: actions.Rehearsal | None = None
        self.verification: actions.Verification | None = None
        self._unpulled: _Applied | None = None
        """An Apply whose writes the snapshot does not hold yet (its pull afterwards failed):
        Plan pulls again first, so that nothing is planned, and sent, twice."""
        self._refused_at: int = 0
        """The calls the last pull again the budget refused said it needed (0: none was)."""
        self._again_of: tuple[ProgramSnapshot, int] | None = None
        """A snapshot and its ``again_calls``: counted once a snapshot, not at each figure
        that shows it (a plan's cost line showed it three times)."""

        self.kind_select = w.Dropdown(options=list(FRAME_NAMES), value=kind, description="Frame")
        self._kind = Taken[str](self.kind_select)
        self.grid = self._new_grid(kind)
        wide = w.Layout(width="auto")
        self.add_button = w.Button(description="Add row", icon="plus", layout=wide)
        self.delete_button = w.Button(description="Delete selected rows", icon="trash", layout=wide)
        self.plan_button = w.Button(description="Plan", icon="list", button_style="info")
        self.rehearse_button = w.Button(description="Rehearse", icon="flask", disabled=True)
        self.apply_button = w.Button(description="Apply", button_style="warning", disabled=True)
        self.allow_destroy = w.Checkbox(value=False, description="Allow deletes", indent=False)
        self.ignore_unsupported = w.Checkbox(
            value=False, description="Ignore unsupported", indent=False
        )
        self.send_refused = w.Checkbox(
            value=False,
            description=SEND_AGAIN,
            indent=False,
            layout=w.Layout(display="none", width="auto"),
        )
        """Shown while the plan holds writes the log shows refused for good: ticked, Apply
        reconsiders them (the log's ``reconsidered`` line, with its first write) and sends
        them; unticked once it wrote that line, ticked still when it sent no write."""
        self._resend = Taken[bool](self.send_refused)
        """The frame chosen and Send refused writes again as set: the steps' thread reads
        these, never the controls."""
        self.summary = w.HTML()
        self.changes_table = Table(CHANGE_VIEW)
        self.unsupported_table = Table(UNSUPPORTED_VIEW)
        self.rehearsal_table = Table(DIFF_VIEW)
        self.results_table = Table(("call", *RESULT_VIEW))
        self.verification_table = Table(CHECK_VIEW)
        self.not_applied_table = Table(NOT_APPLIED_VIEW)
        self.progress.layout.display = "none"  # shown while and after Apply runs

        self.kind_select.observe(lambda _: self._kind_chosen(), names="value")
        self.add_button.on_click(lambda _: self.add_row())
        self.delete_button.on_click(lambda _: self.delete_selected_rows())
        self.plan_button.on_click(lambda _: self.make_plan())
        self.rehearse_button.on_click(lambda _: self.rehearse())
        self.apply_button.on_click(lambda _: self.apply())
        self.send_refused.observe(lambda _: self._send_refused_toggled(), names="value")
        self.children = [
            w.HBox([self.kind_select, self.add_button, self.delete_button]),
            self.grid,
            w.HBox([self.plan_button, self.rehearse_button, self.apply_button, self.cancel_button]),
            w.HBox([self.allow_destroy, self.ignore_unsupported, self.send_refused, self.budget]),
            self.status,
            self.summary,
            self.changes_table,
            self.unsupported_table,
            self.rehearsal_table,
            self.progress,
            self.results_table,
            self.download,
            self.not_applied_table,
            self.verification_table,
        ]
        self._built = True
        self.update_buttons()

    @property  # type: ignore[override]  # PlanPanel's client is never None; this one may be
    def client(self) -> LoyaltyClient | None:
        """The client Apply sends through; set it once the panel is built (to connect
        later, or to another service) and Apply is armed at once when the plan holds a
        change the service can make (``None``: Apply disabled, Plan and Rehearse work)."""
        return self._client

    @client.setter
    def client(self, client: LoyaltyClient | None) -> None:
        self._client = client
        if self._built:  # PlanPanel's __init__ sets it before the buttons exist
            self.update_buttons()

    # -- the edited frames -----------------------------------------------------------------

    @property
    def kind(self) -> str:
        """The frame the grid shows."""
        return str(self._kind.value)

    def frame_of(self, kind: str) -> pd.DataFrame:
        """The edited frame ``kind`` (its rows' labels are the row numbers errors name)."""
        frame: pd.DataFrame = getattr(self.edit, kind)
        return frame

    def _set_frame(self, frame: pd.DataFrame) -> None:
        setattr(self.edit, self.kind, frame)
        self._show_frame()
        self._edited()

    def _kind_chosen(self) -> None:
        self._show_frame()

    def _show_frame(self) -> None:
        """A new grid for the shown frame in place of the old one, which is closed.

        Never new data in the same grid: the browser answers each cell set from Python
        (``set_cell_value``) with the same edit, by row position, and those answers arrive
        once the kernel is idle; a closed grid's answers are dropped, so none lands on
        another frame or on rows that moved.
        """
        old, self.grid = self.grid, self._new_grid(self.kind)
        self.children = [self.grid if child is old else child for child in self.children]
        old.close()

    def _new_grid(self, kind: str) -> DataGrid:
        """An editable grid of the frame ``kind``, its element of the CSS class
        ``lyt-edit-<kind>``; IDs and names get wider columns than the others."""
        frame = self.frame_of(kind)
        grid = DataGrid(
            _shown(frame),
            editable=not self.busy,
            selection_mode="cell",
            base_column_size=110,
            column_widths={
                name: 190 if name.endswith("name") else 150
                for name in frame.columns
                if name.endswith(("id", "name"))
            },
            layout=w.Layout(height=GRID_HEIGHT, width="100%"),
        )
        grid.add_class(f"lyt-edit-{kind}")
        grid.on_cell_change(lambda cell: self._cell_changed(cell) if grid is self.grid else None)
        return grid

    def _cell_changed(self, cell: dict[str, Any]) -> None:
        """A cell the user edited (or ``set_cell_value``): its text read as the snapshot
        column's dtype (``frames.parse``, the rules of every typed value); text it refuses
        is held as typed, and Plan names it with the parser's message."""
        frame = self.frame_of(self.kind)
        column, position = cell["column"], cell["row"]
        if column not in frame.columns or not 0 <= position < len(frame):
            return
        dtype = getattr(self.snapshot, self.kind)[column].dtype
        label, value = frame.index[position], cell["value"]
        try:
            value = typed_value(value, dtype)
        except ValueRefused:
            fits = False
        else:
            fits = True
        if _same(frame.at[label, column], value):
            return  # e.g. the browser repeating a cell set from Python: nothing changed
        if fits and frame[column].dtype == dtype:
            frame.loc[label, column] = value
        else:  # the column holds the text as typed until every cell reads again
            frame[column] = frame[column].astype(object)
            frame.loc[label, column] = value
            frame[column] = _conformed(frame[column], dtype)
        self._edited()

    def add_row(self) -> None:
        """Append an empty row to the shown frame (a new benefit: fill in its create's
        columns and leave ``id`` empty)."""
        if self.busy:
            self.show_error("Wait for the running step to end (or press Cancel).")
            return
        frame = self.frame_of(self.kind)
        label = int(frame.index.max()) + 1 if len(frame) else 0
        self._set_frame(frame.reindex(frame.index.append(pd.Index([label]))))
        self.status.value = status_html(f"Row {label} added to {self.kind}.", "success")

    def selected_labels(self) -> list[Any]:
        """The labels of the rows holding a selected cell, in frame order."""
        frame = self.frame_of(self.kind)
        # _visible_rows: the grid's row order once sorted or filtered in the browser
        # (empty when it shows the frame as it is); selections count the rows shown.
        visible = list(self.grid._visible_rows)
        rows = {
            row
            for rect in self.grid.selections
            for row in range(int(rect["r1"]), int(rect["r2"]) + 1)
        }
        positions = {visible[r] if visible else r for r in rows if r < (len(visible) or len(frame))}
        return [frame.index[p] for p in sorted(positions) if p < len(frame)]

    def delete_selected_rows(self) -> None:
        """Drop the rows of the selected cells from the shown frame."""
        if self.busy:
            self.show_error("Wait for the running step to end (or press Cancel).")
            return
        labels = self.selected_labels()
        if not labels:
            self.show_error("Select a cell in each row to delete first.")
            return
        self._set_frame(self.frame_of(self.kind).drop(index=labels))
        rows = ", ".join(str(label) for label in labels)
        self.status.value = status_html(f"Deleted {self.kind} rows {rows}.", "success")

    def _edited(self) -> None:
        """An edit makes the last plan and rehearsal stale."""
        self.plan = None
        self.rehearsal = None
        self.summary.value = ""
        self.budget.value = ""
        self.update_buttons()

    # -- buttons ---------------------------------------------------------------------------

    def controls(self) -> Sequence[w.Button]:
        return (
            self.add_button,
            self.delete_button,
            self.plan_button,
            self.rehearse_button,
            self.apply_button,
        )

    def update_buttons(self) -> None:
        planned = self.plan is not None and len(self.plan) > 0
        sendable = self.plan is not None and len(self.plan.changes) > 0
        self.enable(self.add_button, True)
        self.enable(self.delete_button, True)
        self.enable(self.plan_button, True)
        self.enable(self.rehearse_button, planned and self.snapshot.sample is None)
        self.enable(self.apply_button, sendable and self.client is not None)
        self.kind_select.disabled = self.busy
        self.grid.editable = not self.busy
        if self.plan is None:  # shown again by the next plan holding writes refused for good
            self.send_refused.layout.display = "none"

    # -- plan, rehearse, apply -------------------------------------------------------------

    def make_plan(self) -> bool:
        """Plan every frame's edits in the background: the summary line, the changes
        and the unsupported ones show; a cell that does not fit shows its ``EditError``."""
        return self._start("Planning", self._plan)

    def rehearse(self) -> bool:
        """Run the plan on a sandbox started from the snapshot in the background; its
        diff shows. Nothing is sent to the client's service. Refused for a sampled snapshot
        (Rehearse is then disabled): a sample cannot stand for the whole program."""
        plan = self.plan
        if plan is None:
            self.show_error("Plan first: Rehearse runs the current plan.")
            return False
        if self.snapshot.sample is not None:  # refused before a sandbox is started
            self.show_error(
                "Rehearse is off: " + sampled_refusal("the plan", self.snapshot, plan.parts)
            )
            return False
        rehearse = functools.partial(self._rehearse, bool(self._resend.value))
        return self._start("Rehearsing on a sandbox started from the snapshot", rehearse)

    def apply(self) -> bool:
        """Send the plan through the client in the background (Cancel stops it after the
        requests in flight), then verify it and take the service's new state as base."""
        plan = self.plan
        if plan is None:
            self.show_error("Plan first: Apply sends the current plan.")
            return False
        if self.client is None:
            self.show_error("Apply needs a client: EditPanel(snapshot, client).")
            return False
        if not len(plan.changes):  # it would send nothing, then pull the service again
            held = (
                f", only {counted(len(plan.unsupported), 'change')} it cannot make (listed"
                " above): edit or undo those"
                if len(plan.unsupported)
                else ""
            )
            self.show_error(
                f"Nothing to send: the plan holds no change the service can make{held}."
            )
            return False
        paced = self.paced
        if self._unlogged(self.action_log):
            return False
        refused = refused_in(plan, self.action_log)
        resend = refused > 0 and bool(self._resend.value)
        if refused and not resend and refused == sum(len(p.valid_items) for p in plan.parts):
            self.show_error(f"Nothing to send: the plan holds only {skipped_note(refused)}.")
            return False
        read = self._read_log(resend)
        allowed = _Allowed(bool(self.allow_destroy.value), bool(self.ignore_unsupported.value))
        run = PacedRun()  # the check's calls and the apply's, one run: its own, never earlier
        try:  # the plan's own refusals (deletes, unsupported changes, the budget)
            with paced_run(run):
                cost = plan.check_apply(
                    self.client,
                    log=read,
                    allow_destroy=allowed.destroy,
                    ignore_unsupported=allowed.unsupported,
                    budget_share=self.budget_share,
                    paced=paced,
                )
        except BudgetExceededError:
            cost = self._apply_cost(plan, resend)
        except Exception as exc:
            self.show_error(f"Refused, nothing was sent: {describe_error(exc)}")
            return False
        else:
            cost = self._apply_cost(plan, resend)
        finally:  # a paced check notes its window in the log: the view's file is closed
            if isinstance(read, ActionLog) and read is not self.action_log:
                read.close()
        if not cost.fits and not paced:
            self.show_error(self._refusal(cost))
            return False
        self.not_applied_table.clear()
        applying = "Applying paced" if paced else "Applying"
        calls = counted(cost.needed, "call")
        if refused:
            sent = f"{counted(refused, 'write')} refused for good before, sent again"
            calls += f"; {sent if resend else skipped_note(refused)}"
        apply = functools.partial(self._apply, paced, resend, run, allowed)
        return self._start(f"{applying}: {calls}", apply, cancellable=True)

    def _plan(self) -> None:
        if self._unpulled is not None:
            try:  # the last Apply's changes, and any edited since
                edited = self.edit.plan()
            except actions.EditError as exc:
                self.show_error(f"Cannot plan: {exc}")
                return
            again = self._again_cost()
            if not again.fits:  # not tried blindly: nothing is sent
                self.budget.value = cost_html(again)
                self.show_error(
                    "Cannot plan: the snapshot does not hold the last Apply's writes, and"
                    f" pulling the service again needs {counted(again.needed, 'call')}, more"
                    f" than the budget holds ({again}); nothing was sent."
                    f" {_go_on(again, self.snapshot)}"
                )
                return
            self.status.value = status_html(
                f"Pulling the service again first: {counted(again.needed, 'call')}…", "running"
            )
            try:
                after = self._pull_again()
            except Exception as exc:
                self.show_error(
                    "Cannot plan: the snapshot does not hold the last Apply's writes, and the"
                    " service could not be pulled again, so a plan now would send them twice:"
                    f" {describe_error(exc)}"
                )
                return
            self._take(after, self._unpulled, edited)  # plans what is left, if anything
            return
        self.changes_table.clear()
        self.unsupported_table.clear()
        try:
            plan = self.edit.plan()
        except actions.EditError as exc:
            self.show_error(f"Cannot plan: {exc}")
            return
        self.plan, self.rehearsal = plan, None
        self.summary.value = f"<b>{html.escape(plan.summary())}</b>"
        self.changes_table.show(plan.changes, "<b>Changes</b>")
        self.unsupported_table.show(plan.unsupported, "<b>Changes the service cannot make</b>")
        refused = self._show_plan_cost()
        changes = counted(len(plan.changes), "change")
        held = f"; {skipped_note(refused)}" if refused and not self._resend.value else ""
        self.show_ok(f"Planned: {changes}, {figure(len(plan.unsupported))} unsupported{held}.")

    def _send_refused_toggled(self) -> None:
        """Send refused writes again ticked or unticked (not by an Apply, which unticks it once
        it sent a write): the last rehearsal rehearsed other writes, and the cost changes."""
        if self.busy:
            return
        self.rehearsal = None
        self._show_plan_cost()

    def _show_plan_cost(self) -> int:
        """Show what an Apply of the plan costs, as Send refused writes again is ticked or
        not, and that box while the plan holds writes the log shows refused for good; how
        many it holds."""
        plan = self.plan
        refused = 0 if plan is None else refused_in(plan, self.action_log)
        self.send_refused.layout.display = "" if refused else "none"
        if plan is None or self.client is None:
            return refused
        resend = refused > 0 and bool(self._resend.value)
        # the budget read first when the client knows none
        cost = budgeted(lambda: self._apply_cost(plan, resend), self.client)
        note = f" (with {figure(self._again_calls())} of the pull again after the apply"
        if refused:
            note += f", {counted(refused, 'write')} refused for good " + (
                "sent again" if resend else "not counted: not sent again"
            )
        if _beyond_any_window(self._again_calls(), cost):
            note += (
                ", more than the panel's share of a whole window: only a paced Apply goes"
                " through, ending with its writes"
            )
        self.budget.value = cost_html(cost, f"{note})" if len(plan.changes) else "")
        return refused

    def _rehearse(self, resend: bool) -> None:
        """Rehearse the plan as Apply would send it (``resend``: Send refused writes again
        ticked when Rehearse was pressed)."""
        plan = self.plan
        assert plan is not None  # checked by rehearse()
        log = self._read_log(resend)
        rehearsal = plan.rehearse(log=log, concurrency=self.concurrency, progress=False)
        if self.plan is plan:
            self.rehearsal = rehearsal
        self.rehearsal_table.show(
            rehearsal.diff.changes,
            f"<b>Rehearsal</b>: {html.escape(repr(rehearsal))}; what it changed on the sandbox:",
            always=True,
        )
        changes, calls = counted(len(rehearsal.diff), "change"), counted(rehearsal.calls, "call")
        self.show_ok(f"Rehearsed: {changes}, {calls}.")

    def _apply(self, paced: bool, resend: bool, run: PacedRun, allowed: _Allowed) -> None:
        """Apply the plan (``paced``: paced, its line on the status; ``resend``: the log read
        with its refusals for good reconsidered, and so sent, the line saying so written with
        the first write: an Apply that sends none leaves them held, the box ticked), in the
        ``run`` its check began (``fill.pace_run``: the check's token request is the Apply's
        own, not said sent earlier in the window), with what its check ``allowed``."""
        plan, client, log = self.plan, self.client, self.action_log
        assert plan is not None and client is not None  # checked by apply()
        self.progress.layout.display = ""
        self.progress.max = max(sum(len(part.items) for part in plan.parts), 1)
        self.progress.value = 0
        read = self._read_log(resend)
        try:
            with paced_run(run):
                results = plan.apply(
                    client,
                    log=read,
                    allow_destroy=allowed.destroy,
                    ignore_unsupported=allowed.unsupported,
                    concurrency=self.concurrency,
                    progress=self._batch_progress(),
                    cancel=self._cancel,
                    budget_share=self.budget_share,
                    paced=paced,
                )
        except Exception as exc:
            if not still_held(read):
                raise
            self.progress.bar_style = "danger"
            self.show_error(f"Applying stopped: {describe_error(exc)}; {STILL_HELD}.")
            return
        finally:
            if isinstance(read, ActionLog) and read is not log:
                read.close()
            if resend and not still_held(read):
                # once: refused again, they are held again (unticked as a load shows its list)
                self._shows((), functools.partial(setattr, self.send_refused, "value", False))
        self.results = results
        self.results_table.show(results, "<b>Results</b>")
        self.download.value = download_button(results, "change_plan_results.csv")
        state = outcome_state(results) if len(results) else "success"
        self.progress.bar_style = {"success": "success", "partial": "warning"}.get(state, "danger")
        summary = outcome_summary(results) if len(results) else "nothing to do"
        refused = results[refused_results(results, log)]
        if len(refused):
            summary += f"; {refused_left(refused)}"
        if still_held(read):
            summary += f"; {STILL_HELD}"
        applied = _Applied(plan, results, self.rehearsal, summary, state)
        self.plan = None  # sent: Apply is not armed again with it, whatever the pull does
        again = self._again_cost()
        if not again.fits:  # other traffic spent the window meanwhile: nothing is pulled
            self._unpulled = applied
            self._show_budget_left()
            verified = self._verify_touched(applied)
            self.status.value = status_html(
                f"Applied: {summary}; the service was not pulled again: that needs"
                f" {counted(again.needed, 'call')}, more than the budget now holds ({again}),"
                f" so {verified} and the grid still shows the snapshot from before the"
                f" apply. {_go_on(again, self.snapshot)}",
                "partial",
            )
            return
        try:
            after = self._pull_again()
        except Exception as exc:  # the writes are done: say so, not that the apply stopped
            self._unpulled = applied
            self._show_budget_left()
            self.verification = None
            self.verification_table.clear()
            self.status.value = status_html(
                f"Applied: {summary}; the service could not be pulled again, so nothing is "
                "verified and the grid still shows the snapshot from before the apply (Plan "
                f"pulls it again first): {describe_error(exc)}",
                "partial",
            )
            return
        self._take(after, applied)

    def _verify_touched(self, applied: _Applied) -> str:
        """Verify ``applied`` against its rehearsal reading only what the rehearsal changed
        (``actions.verify_touched``), when it was rehearsed and those reads fit the panel's
        share; what was verified, in words."""
        client, rehearsal = self.client, applied.rehearsal
        assert client is not None  # only after an apply, which needs one
        self.verification = None
        self.verification_table.clear()
        if rehearsal is None:
            return "nothing is verified"
        share = self.budget_share
        cost = actions.verify_touched_cost(rehearsal, client, budget_share=share)
        if not cost.fits:
            return (
                "nothing is verified (reading only what the rehearsal changed needs"
                f" {counted(cost.needed, 'call')}, more than the share holds too)"
            )
        try:
            verification = actions.verify_touched(
                rehearsal, client, results=applied.results, budget_share=share
            )
        except Exception as exc:
            failed = describe_error(exc)
            return f"nothing is verified (reading what the rehearsal changed failed: {failed})"
        self._show_verification(verification)
        return (
            "it was verified against the rehearsal reading only what the rehearsal changed"
            f" ({counted(cost.needed, 'call')}: {verification!r})"
        )

    def _show_verification(self, verification: actions.Verification) -> None:
        """``verification`` kept and shown in its table."""
        self.verification = verification
        self.verification_table.show(
            verification.checks,
            status_html(
                f"Verification against the rehearsal: {verification!r}",
                "success" if verification.ok else "failure",
            ),
            always=True,
        )

    def _pull_again(self) -> ProgramSnapshot:
        """The service as it is now, pulled as the snapshot was (its kinds, and the sample
        design it was drawn by), within the panel's share; a refusal for the budget is
        remembered, so that Plan does not try it again until the budget holds it."""
        assert self.client is not None  # only after an apply, which needs one
        base = self.snapshot
        try:
            after = ProgramSnapshot.pull(
                self.client,
                progress=False,
                kinds=base.kinds,
                sample=again_sample(base),
                budget_share=self.budget_share,
            )
        except PullBudgetError as exc:
            self._refused_at = exc.sent + exc.needed
            raise
        self._refused_at = 0
        return after

    def _show_budget_left(self) -> None:
        """The calls line once an Apply's writes (and pull again) are sent: the budget the
        client read last, in place of the sent plan's cost."""
        client = self.client
        assert client is not None  # only after an Apply
        quota = client.quota
        left = budget_text(quota.remaining, quota.limit, quota.resets_at)
        self.budget.value = html.escape(f"after the apply: {left}")

    def _again_calls(self) -> int:
        """The calls of the pull again (``again_calls``, counted once for each snapshot the
        panel holds), at least what a refusal of it said."""
        if self._again_of is None or self._again_of[0] is not self.snapshot:
            self._again_of = (self.snapshot, again_calls(self.snapshot))
        return max(self._again_of[1], self._refused_at)

    def _again_cost(self) -> PlanCost:
        """The pull again set against the panel's share of the budget the client knows."""
        client = self.client
        assert client is not None  # only with a client
        quota = client.quota

        def cost() -> PlanCost:
            return PlanCost(
                self._again_calls(),
                quota.remaining,
                quota.limit,
                quota.resets_at,
                share=self.budget_share,
            )

        return budgeted(cost, client)

    def _apply_cost(self, plan: actions.ChangePlan, resend: bool = False) -> PlanCost:
        """Every call an Apply of ``plan`` sends: the plan's, then the pull again; ``resend``:
        the writes the log shows refused for good reconsidered, and so sent."""
        log = self._read_log(resend)
        cost = plan.cost(self.client, log=log, budget_share=self.budget_share)
        again = self._again_calls() if len(plan.changes) else 0
        return replace(cost, needed=cost.needed + again)

    def _refusal(self, cost: PlanCost) -> str:
        """Why an Apply of ``cost`` (the plan's calls and the pull again) is refused, and the
        way on: when the pull again alone needs more than the panel's share of a whole window,
        no reset lets it through, and a paced Apply sends the plan's own calls and ends."""
        again = self._again_calls()
        if not _beyond_any_window(again, cost):
            return f"{refusal(cost)}; {self._again_note()}"
        whole = share_of(cost.limit or 0, cost.share)
        own = counted(cost.needed - again, "call")
        allowed = cost.allowed
        when = (
            "now (this window's share holds them)"
            if allowed is not None and cost.needed - again <= allowed
            else f"at {cost.share:g} of every window, waiting for each reset"
        )
        return (
            f"Refused, nothing was sent: the call budget cannot carry it ({cost}); "
            f"{self._again_note()}, more than the panel's share of a whole window"
            f" ({counted(whole, 'call')}): no window lets an unpaced Apply go through; set the"
            f" panel's paced = True (with an action log: log= or panel.action_log): it sends"
            f" the plan's {own} {when}, resumable from the log, and ends there without the"
            " pull again (a rehearsed plan is verified reading only what the rehearsal"
            " changed); then pull the service paced for a new EditPanel"
        )

    def _read_log(self, resend: bool) -> LogSource | None:
        """The panel's log as an Apply reads it, ``resend``: its refusals for good
        reconsidered (nothing written)."""
        log = self.action_log
        return None if log is None else reconsidered(log, resend)

    def _again_note(self) -> str:
        """What the calls an Apply needs count besides the plan's own."""
        sample = self.snapshot.sample
        drawn = "" if sample is None else f" (a sample of {sample.size:,} members)"
        return (
            f"the calls needed count {counted(self._again_calls(), 'call')} of pulling the"
            f" service again after the apply{drawn}"
        )

    def _take(
        self, after: ProgramSnapshot, applied: _Applied, edited: actions.ChangePlan | None = None
    ) -> None:
        """``after``, pulled once ``applied`` ran, as the new base: verified against the
        rehearsal, with the edits of ``edited`` (the applied plan by default) that it did not
        make on top, listed with why and planned again."""
        plan, results, rehearsal = applied.plan, applied.results, applied.rehearsal
        self._unpulled = None
        self.verification = None
        if rehearsal is not None:
            self._show_verification(rehearsal.verify(after, results=results))
        else:
            self.verification_table.clear()
        # The edits not made (failed, never sent, unsupported and ignored) stay on top of
        # the pull, planned again: Apply sends exactly them, none of the made ones again.
        refused = refused_results(results, self.action_log)
        missed = _not_applied(plan if edited is None else edited, results, refused)
        edit, kept = _kept_edits(self.edit, missed, self.snapshot, after)
        self.snapshot, self.edit = after, edit
        self.plan, self.rehearsal = None, None
        self._show_frame()
        verified = "" if rehearsal is not None else " (not rehearsed: the results are the check)"
        shown = "the grid shows the service as pulled again"
        self.not_applied_table.clear()
        self._show_budget_left()
        if len(kept):
            self._plan()  # its cost line in place of the budget left
            self.not_applied_table.show(
                kept, "<b>Not applied</b>: kept as edits on top of the pull, planned again"
            )
            why = tally(kept["not_applied"].value_counts(sort=False).items())
            shown += (
                f" with the {counted(len(kept), 'edit')} not applied ({why}) on top, planned"
                " again: Apply sends those the service can make"
            )
        self.status.value = status_html(
            f"Applied: {applied.summary}{verified}; {shown}.", applied.state
        )

    # -- background ------------------------------------------------------------------------

    def _start(self, what: str, work: Callable[[], None], *, cancellable: bool = False) -> bool:
        """Run ``work`` in the background worker PlanPanel's ``wait`` and ``busy`` know;
        False when another step runs."""
        if self.busy:
            self.show_error("A step is already running: wait for it to end or press Cancel.")
            return False
        self._running = True
        self._cancel.clear()
        self.update_buttons()
        self.cancel_button.disabled = not cancellable
        self.status.value = status_html(f"{what}…", "running")
        self._worker = threading.Thread(
            target=self._work, args=(what, work), name="lyt-widget-edit", daemon=True
        )
        self._worker.start()
        return True

    def _work(self, what: str, work: Callable[[], None]) -> None:
        try:
            work()
        except Exception as exc:  # a thread's exception would only reach stderr
            self.progress.bar_style = "danger"
            self.show_error(f"{what.split(':')[0]} stopped: {describe_error(exc)}")
        finally:
            self._settle()


class _Allowed(NamedTuple):
    """What Apply was pressed with, its check's and its run's alike: Allow deletes
    (``destroy``) and Ignore unsupported (``unsupported``) as they were ticked then."""

    destroy: bool
    unsupported: bool


class Table(w.VBox):
    """A read-only grid of ``columns`` under a title, shown once there is something to show.

    A DataGrid like the editable one (its state is the rows alone, where an itables grid
    stores its code with each copy); ``frame`` is what it shows.
    """

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = tuple(columns)
        self.frame = pd.DataFrame(columns=list(self.columns))
        self.title = w.HTML()
        self.grid: DataGrid | None = None
        super().__init__(layout=w.Layout(display="none"))

    def show(self, frame: pd.DataFrame, title: str, *, always: bool = False) -> None:
        """Show ``frame``'s columns under ``title``; an empty frame hides the table unless
        ``always`` (the title then says what is empty)."""
        self.clear()
        self.frame = frame[[c for c in self.columns if c in frame.columns]].reset_index(drop=True)
        self.title.value = title
        if not len(self.frame) and not always:
            return
        rows = min(max(len(self.frame), 1), TABLE_ROWS)
        self.grid = DataGrid(
            _shown(self.frame),
            base_column_size=140,
            header_visibility="column",
            selection_mode="cell",
            layout=w.Layout(height=f"{(rows + 1) * 20 + 8}px", width="100%"),
        )
        self.children = [self.title, self.grid]
        self.layout.display = ""

    def clear(self) -> None:
        """Hide the table; its grid is closed."""
        self.frame = self.frame.iloc[0:0]
        self.children = []
        self.layout.display = "none"
        if self.grid is not None:
            self.grid.close()
            self.grid = None


@dataclass(frozen=True)
class _Applied:
    """An Apply that ran: its plan, results, the rehearsal it had, its summary and state."""

    plan: actions.ChangePlan
    results: pd.DataFrame
    rehearsal: actions.Rehearsal | None
    summary: str
    state: State


def _beyond_any_window(calls: int, cost: PlanCost) -> bool:
    """Whether ``calls`` need more than ``cost``'s share of a whole window (its limit known):
    a pull of them would be refused after every reset too."""
    return cost.limit is not None and calls > share_of(cost.limit, cost.share)


def _go_on(cost: PlanCost, snapshot: ProgramSnapshot) -> str:
    """How to go on when the pull again of ``snapshot`` does not fit ``cost``'s budget: after
    the reset, unless it needs more than the share of a whole window, when only a paced pull
    reads it."""
    if _beyond_any_window(cost.needed, cost):
        whole = share_of(cost.limit or 0, cost.share)
        sample = "" if snapshot.sample is None else ", sample=panel.snapshot.sample.drawn_by"
        return (
            f"A reset will not let it run: it needs more than the panel's share of a whole"
            f" window ({counted(whole, 'call')}). Pull the service paced, over as many windows"
            f" as it takes and resumable: snapshot = ProgramSnapshot.pull(client,"
            f" kinds={sorted(snapshot.kinds)!r}{sample}, checkpoint='pull-checkpoint',"
            f" budget_share={cost.share:g}), then a new EditPanel(snapshot, client): it plans"
            " from what the service holds, so nothing is sent twice."
        )
    when = "" if cost.resets_at is None else f" (at {cost.resets_at:%Y-%m-%d %H:%M:%S} UTC)"
    wider = (
        " or set the panel's budget_share = 1.0 to let it take the whole window,"
        if cost.share < 1 and cost.remaining is not None and cost.needed <= cost.remaining
        else ""
    )
    return f"Press Plan once the window resets{when},{wider} and it pulls the service first."


def _not_applied(
    plan: actions.ChangePlan, results: pd.DataFrame, refused: pd.Series
) -> pd.DataFrame:
    """The edits of ``plan`` that the apply of ``results`` did not make (``NOT_APPLIED_VIEW``
    and ``action``): its changes not done, each with its outcome and reason (those of the
    ``refused`` results ``refused for good``), and its unsupported ones."""
    sent = {
        (str(row.call), str(row.target)): (row, bool(for_good))
        for row, for_good in zip(results.itertuples(index=False), refused, strict=True)
    }
    rows: list[dict[str, Any]] = []
    for change in plan.changes.itertuples(index=False):
        result, for_good = sent.get((str(change.call), str(change.key)), (None, False))
        if result is None:
            outcome, reason = "edited since", "not in the apply"
        elif result.outcome in _DONE:
            continue
        elif result.outcome == actions.Outcome.CANCELLED:
            outcome, reason = "never sent", str(result.message)
        else:
            outcome = REFUSED_FOR_GOOD if for_good else str(result.outcome)
            reason = failure_text(result.status, result.error_key, result.message)
        rows.append(_missed(change, change.action, outcome, reason))
    for row in plan.unsupported.itertuples(index=False):
        rows.append(_missed(row, None, "unsupported", str(row.reason)))
    return pd.DataFrame(rows, columns=[*NOT_APPLIED_VIEW, "action"])


def _missed(change: Any, action: Any, outcome: str, reason: str) -> dict[str, Any]:
    fields = ("kind", "key", "column", "after")
    return {
        **{f: getattr(change, f) for f in fields},
        "not_applied": outcome,
        "reason": reason,
        "action": action,
    }


def _kept_edits(
    edit: actions.ProgramEdit,
    missed: pd.DataFrame,
    before: ProgramSnapshot,
    after: ProgramSnapshot,
) -> tuple[actions.ProgramEdit, pd.DataFrame]:
    """An edit of ``after`` (the service pulled again after an apply from ``before``) holding
    the ``missed`` edits of ``edit`` (``_not_applied``), and those of them it holds.

    A changed cell is set on its row, a dropped row dropped, a new row added as typed (its
    ``id`` empty). Left out: a row the service no longer has, and a new benefit whose name
    ``after`` holds and ``before`` did not (created all the same: never created twice). A
    made edit is in ``after`` itself, so it is never planned again."""
    rest = actions.edit(after)
    kept: list[int] = []
    added: set[tuple[str, str]] = set()
    for position, change in enumerate(missed.itertuples(index=False)):
        kind, key = str(change.kind), str(change.key)
        typed, frame = getattr(edit, kind), getattr(rest, kind)
        if key in set(frame["id"].dropna()):  # a row of the service: change or drop it
            at = frame.index[frame["id"] == key]
            was = typed.index[typed["id"] == key]
            if not len(was):
                frame = frame.drop(index=at)
            else:
                column = "status" if _same(change.column, None) else str(change.column)
                frame.loc[at, column] = typed.at[was[0], column]
        elif (typed["id"] == key).any() or (kind, key) in added:
            continue  # gone from the service since (nothing left to change), or added
        else:
            rows = _new_rows(typed, key)
            if not len(rows) or _created_meanwhile(kind, key, before, after):
                continue
            added.add((kind, key))
            for _, row in rows.iterrows():
                label = int(frame.index.max()) + 1 if len(frame) else 0
                frame = frame.reindex(frame.index.append(pd.Index([label])))
                for name, value in row.items():
                    if name in frame.columns and not _same(value, None):
                        frame.loc[label, name] = value
        kept.append(position)
        setattr(rest, kind, frame)
    return rest, missed.iloc[kept][list(NOT_APPLIED_VIEW)].reset_index(drop=True)


def _new_rows(typed: pd.DataFrame, key: str) -> pd.DataFrame:
    """The edit's new rows a change names: ``new row <label>``, or a new benefit's name."""
    prefix = "new row "
    if key.startswith(prefix) and key[len(prefix) :].isdigit():
        label = int(key[len(prefix) :])
        return typed.loc[[label]] if label in typed.index else typed.iloc[0:0]
    if "name" not in typed.columns:
        return typed.iloc[0:0]
    return typed[typed["id"].isna() & (typed["name"] == key)]


def _created_meanwhile(
    kind: str, name: str, before: ProgramSnapshot, after: ProgramSnapshot
) -> bool:
    """Whether ``after`` holds a ``kind`` row named ``name`` that ``before`` did not."""
    old, new = getattr(before, kind), getattr(after, kind)
    if "name" not in new.columns:
        return False
    return bool((new["name"] == name).any()) and not bool((old["name"] == name).any())


def _same(old: Any, new: Any) -> bool:
    """Whether a cell's ``new`` value is the one it holds (both missing counts)."""
    try:
        return bool(pd.isna(old) and pd.isna(new)) or bool(old == new)
    except (TypeError, ValueError):
        return False


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as the grid shows it: text-like cells (edited as text; an instant in ISO
    8601), missing ones blank."""
    shown = frame.astype(object).where(frame.notna(), "")
    for name in frame.columns:
        if isinstance(frame[name].dtype, pd.DatetimeTZDtype):
            shown[name] = [v.isoformat() if isinstance(v, pd.Timestamp) else v for v in shown[name]]
    return shown


def _conformed(column: pd.Series[Any], dtype: Any) -> pd.Series[Any]:
    """``column`` (objects) back in ``dtype`` once every cell reads as one; else as it is."""
    try:
        return typed_column(column, dtype)
    except ValueRefused:
        return column
