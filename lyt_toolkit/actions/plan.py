"""Bulk operations as data: a plan of items, previewed, then executed in parallel.

A plan is built from the user's input without touching the service, so the
preview shows every item and every local validation error first. Executing
sends one request per valid item (see ``_runner``) and returns one result row
per item. With an ``ActionLog`` a re-run skips what already succeeded and
settles what was interrupted in flight. ``preview(client)`` also reads the
service's current state (never writes) to say what each item will really do,
and an item the service refuses because it is already in its target state
(the reward is DRAFT, the tier structure DELETED) is reported ``already_done``,
not ``failed``, even without a log.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic

import pandas as pd

from .._deprecation import deprecation, warn
from .._progress import Progress, ProgressBar
from .._stop import StoppablePool
from .._text import counted
from ..client.allowance import checked_share
from ..errors import APIError, QuotaExhaustedError
from ..fill.pace_run import paced_run
from ..frames.registry import FRAME_NAMES
from ..snapshot.defaults import DEFAULT_SHARE, checked_concurrency
from ._runner import run_items
from .cost import PlanCost, budgeted, item_calls, items_within, plan_cost
from .items import ItemResult, Observer, Outcome, P, PlanItem, Standing
from .log import ActionLog, LogOwner, LogSource, LogState, log_state, opened_log
from .paced import hearing, pacing, refuse_past_cycle, refuse_unlogged
from .rehearsal import Rehearsal, rehearse
from .results import RESULT_COLUMNS, preview_frame, results_frame

if TYPE_CHECKING:
    from pathlib import Path

    from ..client import LoyaltyClient
    from ..snapshot import ProgramSnapshot

__all__ = [
    "RESULT_COLUMNS",
    "ActionPlan",
    "ItemResult",
    "Outcome",
    "PlanCost",
    "PlanItem",
    "Progress",
    "Standing",
]


class ActionPlan(Generic[P]):
    """A planned batch of items with payloads of type ``P``.

    Subclasses define how one item is sent and recovered. ``preview()`` is
    pure; ``execute(client, ...)`` runs the valid items and returns one result
    row per item, in plan order.
    """

    action: str = "action"
    item_columns: dict[str, str] = {}
    """The descriptive columns (from the input) of every preview and results frame, and their
    dtypes: the same whatever the plan was built from, NA where the input did not give one."""
    extra_result_columns: tuple[str, ...] = ()
    preview_columns: dict[str, str] = {}
    """The plan's own state columns of ``preview(client)`` and their dtypes."""
    rehearsal_kinds: frozenset[str] = frozenset(FRAME_NAMES)
    """The snapshot kinds a rehearsal needs, so its sandbox holds what the plan reads and
    changes as production does: ``rehearse`` refuses a snapshot pulled without one."""
    settled_by: tuple[type[APIError], ...] = ()
    """Errors that may only mean an item is already in its target state (then checked)."""

    def __init__(self, items: Sequence[PlanItem[P]]) -> None:
        self.items = list(items)

    def __repr__(self) -> str:
        invalid = sum(1 for i in self.items if i.error)
        return f"<{type(self).__name__} {counted(len(self.items), 'item')}, {invalid} invalid>"

    def __len__(self) -> int:
        return len(self.items)

    # -- what subclasses provide -----------------------------------------------------

    def perform(self, client: LoyaltyClient, item: PlanItem[P]) -> ItemResult:
        """Send the one request for ``item`` and return its SUCCEEDED result.

        Implementations must: send exactly one write built from ``item.payload``
        (or the target), let the client's errors propagate instead of catching
        them (the runner turns an ``APIError`` into a FAILED row and a
        ``RequestValidationError`` into an INVALID one), put the created or
        changed resource's ID in ``resource_id``, and be safe to call from
        several threads at once, since items run on a pool over one client.
        """
        raise NotImplementedError

    def seed_rehearsal(self, program: dict[str, Any], at: pd.Timestamp) -> None:
        """Add to ``program`` (the rehearsal sandbox's program file, as written from the
        snapshot pulled ``at``) what the plan's rehearsal needs beyond the snapshot; by
        default nothing. ``DeleteWebhooks`` adds the webhooks it targets."""

    def observer(self, client: LoyaltyClient) -> Observer[P]:
        """A function telling what one valid item will do given the service's state now.

        It may only read (any number of calls, from several threads at once) and
        may keep what it read for the items that follow. An ``APIError`` it
        raises becomes a "fails" row of the preview. The default reads nothing.
        """
        return lambda item: Standing(item.summary)

    def preview_reads(self, items: list[PlanItem[P]]) -> int:
        """The calls ``observer`` sends for ``items`` (valid, not done) at least, which a
        preview sets against its share of the budget before the first; by default one an
        item. A plan whose observer reads more, or shares its reads (each once, a listing
        of many), counts them here."""
        return len(items)

    def _reads_at_least(self, items: list[PlanItem[P]]) -> bool:
        """Whether ``observer`` may read more for ``items`` than ``preview_reads`` counts
        (a preview refused then says "at least"); by default not."""
        return False

    def recover(self, client: LoyaltyClient, item: PlanItem[P], error: APIError) -> Standing | None:
        """After :meth:`perform` failed with ``error``: the item's standing when the service
        shows it already in its target state (``done`` set), otherwise ``None``.

        Only errors of ``settled_by`` are checked, read-only, with :meth:`check_done`;
        the runner reports a confirmed item ``already_done`` (or, when an earlier
        run left it in doubt, ``succeeded`` and ``recovered``).
        """
        if not isinstance(error, self.settled_by):
            return None
        standing = self.check_done(client, item)
        return standing if standing.done else None

    def _calls_seen(self, calls: int, standing: Standing | None) -> int:
        """An item's ``calls`` as its preview read it: a write sent once (``calls`` 1) that
        the service will refuse (``Standing.read_back``) and that is checked (``settled_by``)
        costs its read back too."""
        seen = calls == 1 and standing is not None and standing.read_back
        return calls + int(seen and bool(self.settled_by))

    def check_done(self, client: LoyaltyClient, item: PlanItem[P]) -> Standing:
        """Whether the service shows ``item`` in its target state (``done`` set), read-only:
        what a write in doubt is read with before it is sent again, and a refused one after
        (``recover``), each costed as one read. By default the ``observer``'s standing; a plan
        whose observer reads more than one call an item reads only what tells ``done``."""
        return self.observer(client)(item)

    def field_for(self, item: PlanItem[P], error: APIError) -> str | None:
        """The input field ``error`` from the service is about, or ``None`` if it is not clear.

        Implementations map the error's status, key or resource type to the name
        of a field of the user's input (as used in ``PlanItem.field``), so forms
        and result tables can point at what to correct. It must not call the
        service. The default names no field.
        """
        return None

    # -- preview ------------------------------------------------------------------------

    def preview(
        self,
        client: LoyaltyClient | LogSource | None = None,
        *,
        log: LogSource | None = None,
        concurrency: int = 8,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
    ) -> pd.DataFrame:
        """One row per item: target, what will happen, the calls it costs, any local error.

        With ``client``, each valid item's ``will`` says what the service's current
        state makes of it (``nothing (already DRAFT)``, ``fails: ...``), read with
        at most ``concurrency`` requests in flight and nothing written; the plan's
        ``preview_columns`` hold its state (NA without a client). With ``log``,
        items that already succeeded show that they will be skipped. ``calls`` is
        what executing each item sends (0 when invalid or done in the log, 2 when in doubt,
        2 when the preview shows its write refused or done: the service refuses it and the
        run reads it back; see ``actions.cost``); ``frame.attrs["cost"]`` holds their sum, the
        budget as the client read it after the preview's reads, and
        ``frame.attrs["summary"]`` its line: calls needed, remaining this window, reset
        (set against ``budget_share`` of it, as ``execute`` sets it). The reads
        (``preview_reads``: one an item, or what the plan counts) keep to that share too: a
        preview needing more is refused before any read (``BudgetExceededError``).

        ``preview(log)``, the log given first as in 0.1.0, is deprecated (a
        ``FutureWarning``; removed in 0.5.0): write ``preview(log=log)``.
        """
        if isinstance(client, ActionLog | str | os.PathLike):
            warn(deprecation("lyt_toolkit.actions.ActionPlan.preview(log)"))
            if log is not None:
                raise TypeError("preview() got the log twice: write preview(client, log=log)")
            client, log = None, client
        share = checked_share(budget_share)
        state = self._log_state(log, client)
        done = state.succeeded
        standings: list[Standing | None] = [None] * len(self.items)
        if client is not None:
            todo = [i for i, item in enumerate(self.items) if item.error is None]
            todo = [i for i in todo if self.items[i].target not in done]
            observed = [self.items[i] for i in todo]
            needed = self.preview_reads(observed)
            reads = budgeted(lambda: PlanCost.for_client(needed, client, share), client)
            if not reads.fits:  # a preview spends the budget too
                least = "at least " if self._reads_at_least(observed) else ""
                what = f"the {self.action} preview ({least}{counted(needed, 'read')})"
                raise reads.refusal(what, partial=False)
            observe = _reporting_failures(self.observer(client), client.scrub)
            bar = ProgressBar(progress, desc=f"{self.action} preview", total=len(todo))
            with bar, StoppablePool(max(1, concurrency), "the preview was stopped") as pool:
                seen = pool.map(observe, (self.items[i] for i in todo))
                for index, standing in zip(todo, seen, strict=True):
                    standings[index] = standing
                    bar.advance(1)
        calls = [
            0 if item.error else self._calls_seen(item_calls(item.target, state), standing)
            for item, standing in zip(self.items, standings, strict=True)
        ]
        frame = preview_frame(
            self.items, done, standings, self.preview_columns, calls, self.item_columns
        )
        cost = PlanCost.for_client(sum(calls), client, share)
        frame.attrs["cost"] = cost
        frame.attrs["summary"] = str(cost)
        return frame

    def _log_state(
        self, log: LogSource | None, client: LoyaltyClient | None = None, *, ask: bool = True
    ) -> LogState:
        """What ``log`` knows of the plan's action (see ``log_state``): of an unsaved plan's
        log, the refusals for good of its own items' very writes only."""
        return log_state(log, self.action, client, ask=ask, items=self.items)

    @property
    def valid_items(self) -> list[PlanItem[P]]:
        """The items that passed local validation: the ones ``execute`` may send."""
        return [i for i in self.items if i.error is None]

    @property
    def invalid_items(self) -> list[PlanItem[P]]:
        """The items local validation rejected; they are reported, never sent."""
        return [i for i in self.items if i.error is not None]

    def cost(
        self,
        client: LoyaltyClient | None = None,
        *,
        log: LogSource | None = None,
        budget_share: float = DEFAULT_SHARE,
    ) -> PlanCost:
        """Calls ``execute`` will send (one write per valid item not done; see ``actions.cost``)
        and, with ``client``, the budget it knows: ``fits`` (within ``budget_share`` of the
        calls left), ``shortfall``, a summary as ``str``.

        Nothing is sent: the budget is what the client last read from an answer.
        """
        share = checked_share(budget_share)
        return plan_cost(self, self._log_state(log, client, ask=False), client, share)

    # -- execution ----------------------------------------------------------------------

    def execute(
        self,
        client: LoyaltyClient,
        *,
        concurrency: int = 8,
        log: LogSource | None = None,
        progress: Progress = True,
        allow_partial: bool = False,
        cancel: threading.Event | None = None,
        budget_share: float = DEFAULT_SHARE,
        paced: bool = False,
    ) -> pd.DataFrame:
        """Run every valid item not already done; one result row per item, in plan order.

        ``concurrency`` bounds the requests in flight. Item failures are rows,
        never exceptions; only an interruption (KeyboardInterrupt, a crash)
        stops the batch, and the log then lets the next run resume it. A log belongs to the
        service and project of the first run that wrote it: another's is refused with
        ``ForeignLogError`` before anything is sent, as is a sandbox's log on that sandbox
        started again with other state (its writes gone: see ``actions.log``).

        Setting ``cancel`` (from another thread, e.g. a Cancel button) stops the batch
        after the requests in flight: the items never sent are ``cancelled`` and are not
        logged, so running again with the same log sends exactly them. An item waiting to be
        sent again (a 429's ``Retry-After``) is not: ``cancelled`` too, its log left at the
        attempt, so the next run checks it first.

        The call budget: a client that has sent nothing yet fetches its token first, whose
        answer tells the budget (``learn_budget``); a plan needing more than ``budget_share``
        of the calls left this window (``cost(client, log=log)``; by default half, the rest
        staying for the project's other traffic, as a pull's) is refused before any write is
        sent with ``BudgetExceededError``, unless ``allow_partial``: then the items that fit
        the share are sent and the others are ``cancelled`` (not logged: running again with
        the log after the reset sends them); with ``budget_share=1.0`` it runs until the
        service refuses a call. Below 1.0 the share also holds while it runs: an item the
        service refuses is read back (already done?), a call the cost does not count, and
        once the share is spent no further item is sent (each ``cancelled``, as above) and
        a refusal it cannot read back stays ``failed``. A run the budget stops (a reset beyond
        the client's ``max_wait``) sends nothing more and raises the client's
        ``QuotaExhaustedError``; every item sent is in the log, and running again with the
        same log after the reset sends only the rest.

        ``paced=True`` (with a ``log``: ``ValueError`` naming it otherwise, before anything is
        sent) runs a plan of any size over as many windows as it takes: ``budget_share`` of
        every window, then a wait for its reset (however long; ``max_wait`` does not bound
        it), then on; it is never refused for the window's budget, and no item is
        ``cancelled`` for it (``allow_partial`` has nothing to do). A bar shows the calls
        done and to do, the next window and the expected end. Ctrl-C, ``cancel`` or the
        client closed end a wait at once; running again with the same log sends only the
        rest, the calls its earlier runs sent in the window counted against the same share
        (run paced again: an unpaced run takes ``budget_share`` of what the window has left).
        Like a paced pull it keeps to ``budget_share`` of the project's billing cycle: a plan
        needing more is refused before any write (``CycleBudgetError``). See
        ``actions.paced``.
        """
        if client is None or isinstance(client, ActionLog | str | os.PathLike):
            raise TypeError(f"client: expected a LoyaltyClient, not {type(client).__name__}")
        checked_concurrency(concurrency)
        share = checked_share(budget_share)
        if paced:
            refuse_unlogged(log)
        # its token request and writes one run's: a bar says none of it sent earlier
        with opened_log(log) as action_log, paced_run():
            # a spent window's 429 waits, paced
            with hearing(
                client, share, paced, cancel, what=self.action, progress=progress, log=action_log
            ) as heard:
                state = self._log_state(action_log, client)
                cost = budgeted(lambda: plan_cost(self, state, client, share), client)
            if action_log is not None:  # the token fetched: the owner as its answer names it
                action_log.claim(LogOwner.of(client))
                action_log.begin_plan()  # an unsaved run's lines: no saved plan's
            what = f"the {self.action} plan ({counted(len(self.valid_items), 'item')})"
            held: contextlib.AbstractContextManager[object]
            at_most = None
            if paced and action_log is not None:  # its share of every window, however many
                refuse_past_cycle(cost.needed, client, share, what, heard)
                held = pacing(client, action_log, share, lambda: cost.needed, progress, self.action)
            else:
                if not cost.fits and not allow_partial:
                    raise cost.refusal(what, paced=True)
                # Partial within a share: the items that fit it are sent, the others cancelled.
                # With the whole window (share 1), it runs until the service refuses a call.
                if not cost.fits and cost.share < 1:
                    at_most = items_within(self, state, cost)
                # The cost counts the writes; a refusal read back (already done?) is a call
                # more. Held to the share while it runs: a call beyond it is not sent, and the
                # items not sent then come back cancelled (run again with the log after the
                # reset).
                held = client.quota.allowance(share) if share < 1 else contextlib.nullcontext()
            try:
                with held:
                    results = run_items(
                        self,
                        client,
                        concurrency=concurrency,
                        log=action_log,
                        state=state,
                        progress=progress,
                        cancel=cancel,
                        at_most=at_most,
                    )
            except QuotaExhaustedError as exc:
                exc.add_note(_resume_note(action_log))
                raise
        return results_frame(self.items, results, self.extra_result_columns, self.item_columns)

    def _not_sent(self, client: LoyaltyClient, log: LogSource | None) -> pd.DataFrame:
        """The results of a run stopped at its share before it sent an item (a change plan's
        allowance spent by the parts before, or by its re-read): each valid item the ``log``
        did not see done ``cancelled`` as beyond the share (not logged: a re-run with the log
        sends it), the others as ``execute`` reports them. Nothing is sent."""
        state = self._log_state(log, ask=False)
        results = run_items(
            self, client, concurrency=1, log=None, state=state, progress=False, at_most=0
        )
        return results_frame(self.items, results, self.extra_result_columns, self.item_columns)

    def rehearse(
        self,
        snapshot: ProgramSnapshot | str | Path,
        *,
        concurrency: int = 8,
        log: LogSource | None = None,
        progress: Progress = True,
    ) -> Rehearsal:
        """Execute this plan on a sandbox started from ``snapshot`` with the same options,
        and keep its ``results``, ``diff`` and ``calls``; after the real run,
        ``rehearsal.verify(after_snapshot)`` says whether production did the same.

        See ``lyt_toolkit.actions.rehearsal``; the sandbox stops before this returns.
        """
        return rehearse(self, snapshot, concurrency=concurrency, log=log, progress=progress)


def _resume_note(log: ActionLog | None) -> str:
    """How to finish a plan the call budget stopped."""
    if log is None:
        return (
            "The plan stopped on the call budget; without a log, what was sent is not "
            "recorded: pass log= next time so a re-run after the reset sends only the rest"
        )
    return (
        f"The plan stopped on the call budget; every item sent is in the log {log.path}: "
        "run execute again with the same log after the reset to send the rest"
    )


def _reporting_failures(observe: Observer[P], scrub: Callable[[str], str]) -> Observer[P]:
    """``observe`` with the service's refusal to read an item as that item's "fails" row."""

    def observed(item: PlanItem[P]) -> Standing:
        try:
            return observe(item)
        except APIError as exc:
            return Standing(scrub(f"fails: {exc.message} ({exc.status})"))

    return observed
