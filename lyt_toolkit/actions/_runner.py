"""Running a plan: items sent on a bounded thread pool, each answer turned into a result.

A failed item never stops the batch: it becomes a result with the service's
status, error key and message (credentials scrubbed). An item the log shows in
doubt (an earlier run was interrupted sending it) is read first with the plan's
``check_done``: when the service shows it in its target state it is ``succeeded`` and
``recovered`` without a write, otherwise it is sent. Before an error of the service
stands for an item not in doubt, the plan's ``recover`` checks (read-only) whether
the item is already in its target state: then it is ``already_done``.
With an action log each request of an item is logged ``attempted`` just before it goes out,
and the item's outcome after its answer (a token request its call waits for is the client's:
a token line, ``log.TOKEN_SENT``). A refusal for good (``REFUSED_FOR_GOOD``, not found
done by its read back) is logged final, an unsaved plan's with the key of the write refused
(``_write_key``): a re-run of that saved plan, or of an unsaved plan holding that same write,
with the log does not send it again, and its result is that refusal again (``failed``, its
status, error key and request ID, the message saying when and why it is not sent, and what
sends it again: see ``actions.log``).

A spent call budget (``QuotaExhaustedError``: the window resets beyond the client's
``max_wait``) stops the batch: the item it met is logged failed with status 429 (the
service did no work for it), no further item is sent, the items in flight finish and are
logged, and the error is raised; a re-run with the log after the reset sends the rest.

A ``cancel`` event stops a batch the same way without an error: once it is set no
further item is sent, the items in flight finish and are logged, and every item never
sent is ``cancelled`` (and not logged, so a re-run with the log sends exactly those).
An item in flight that is waiting to be sent again (a retry's back-off, the call budget's
reset) stops waiting at once and is not sent again: it too is ``cancelled``, its log left
at the attempt, so a re-run with the log checks it first as any item in doubt (``_stop``).
A Ctrl-C stops such waits the same way, the answers of the writes in flight logged first.
An item stopped before any request of it went out (waiting for a paced plan's next window,
say: ``_outgoing`` tells) is not in doubt: it is logged ``cancelled``, and a re-run sends it.

Held to a share of the budget (``execute``'s allowance), a call beyond it is not sent: the
item it met and every item not yet sent are ``cancelled`` as beyond the share (the item met
logged so, unless it was in doubt), the items in flight finish and are logged. A paced run
(``execute(paced=True)``) waits for the next window instead, in the client; only the
project's billing cycle, once the service says it is spent, stops it so (``CycleSpent``), or
a share the service's plan, changed as it ran, made too small to pace
(``PacedShareTooSmall``: its message names the new budget and the share that paces it).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import TYPE_CHECKING, Any, Generic

from .._outgoing import telling_before_sending
from .._progress import Progress, ProgressBar
from .._stop import Stop, StoppablePool, stopping
from ..client.allowance import AllowanceSpent, CycleSpent, PacingEnded
from ..client.paced_floor import PacedShareTooSmall
from ..errors import (
    APIError,
    LytError,
    QuotaExhaustedError,
    RequestValidationError,
    StoppedError,
)
from ..fill.pace_work import items_progress
from ._write_key import write_key
from .items import ItemResult, Outcome, P, PlanItem, Runnable
from .log import ATTEMPTED, WRITE, ActionLog, LogState

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["run_items"]


def run_items(
    plan: Runnable[P],
    client: LoyaltyClient,
    *,
    concurrency: int,
    log: ActionLog | None,
    state: LogState,
    progress: Progress,
    cancel: threading.Event | None = None,
    at_most: int | None = None,
) -> list[ItemResult]:
    """One result per item of ``plan``, in plan order; invalid and done items are not sent,
    nor any item once ``cancel`` is set, nor those after the first ``at_most`` to send (each
    ``cancelled``, not logged: running again with the log sends them)."""
    results: list[ItemResult | None] = [None] * len(plan.items)
    todo: list[int] = []
    for index, item in enumerate(plan.items):
        if item.error is not None:
            results[index] = ItemResult(
                Outcome.INVALID, message=item.error, field=item.field, columns=item.columns
            )
        elif item.target in state.succeeded:
            results[index] = _skipped(item, state.succeeded[item.target])
        elif item.target in state.refused:
            results[index] = _refused(item, state.refused[item.target])
        else:
            todo.append(index)
    if at_most is not None:
        for index in todo[at_most:]:
            results[index] = ItemResult(Outcome.CANCELLED, message=BEYOND_SHARE)
        todo = todo[:at_most]
    spent = threading.Event()  # set when a call would go beyond execute's allowance
    send = _Sender(plan, client, log, state, spent)
    shown = items_progress(progress)  # a chunk of a paced apply: its calls' bar alone
    with ProgressBar(shown, desc=plan.action, unit="item", total=len(plan.items)) as bar:
        bar.advance(len(plan.items) - len(todo))
        stopped = cancel if cancel is not None else Stop()

        def halted() -> bool:
            return stopped.is_set() or spent.is_set()

        with stopping(stopped, CANCELLED, sends=False):
            if concurrency == 1:
                for index in todo:
                    if halted():
                        break
                    results[index] = send(plan.items[index])
                    bar.advance(1)
            else:
                _run_pool(send, plan.items, todo, results, concurrency, bar, halted)
    return [_settled(result, stopped, spent, send.beyond) for result in results]


REFUSED_FOR_GOOD = frozenset({404, 409, 423})
"""Statuses of a write the service refused for the state of what it addresses, which sending
it again does not change (the spec's errors): 404, a resource that does not exist; 409, a
name taken or a state that does not allow the change; 423, a precondition that does not hold
(a card definition not ACTIVE, a pending bucket's activation date reached). Not 401 or 402
(credentials, the project's plan: put right, the same write goes through), nor 429 or 5xx."""

CANCELLED = "the batch was cancelled"
"""Why a call of a batch waiting when its ``cancel`` was set is not sent."""
STOPPED = "a re-run with the same log checks it first, then sends it if need be"
"""Said of an item stopped while it waited to be sent (again): its log is left in doubt."""

BEYOND_SHARE = (
    "not sent: beyond the plan's share of the call budget (budget_share); run again with the"
    " same log after the reset"
)
UNPACED = "run again with the same log to send it (the items done are logged: none is sent twice)"
"""Said of an item a paced run did not send once its share could no longer pace it (the
service's plan changed while it ran: ``PacedShareTooSmall``)."""
BEYOND_CYCLE = (
    "not sent: the service's answers say the project's billing-cycle budget is spent (past it"
    " each call adds to what the project overdraws); run again with the same log once the"
    " cycle renews"
)


def _settled(
    result: ItemResult | None, cancel: threading.Event, spent: threading.Event, beyond: str
) -> ItemResult:
    if result is not None:
        return result
    if spent.is_set():
        return ItemResult(Outcome.CANCELLED, message=beyond)
    if cancel.is_set():
        return ItemResult(Outcome.CANCELLED, message="not sent: the batch was cancelled")
    raise RuntimeError("an item of the plan was never run")  # only an interruption does this


class _Sender(Generic[P]):
    """Sends one item and turns every answer into an ``ItemResult``, logging both ends."""

    def __init__(
        self,
        plan: Runnable[P],
        client: LoyaltyClient,
        log: ActionLog | None,
        state: LogState,
        spent: threading.Event,
    ) -> None:
        self.plan = plan
        self.client = client
        self.log = log
        self.state = state
        self.spent = spent
        self.beyond = BEYOND_SHARE
        """Why the items not sent once ``spent`` is set were not: the share, or the cycle."""

    def scrub(self, text: str) -> str:
        """``text`` without any credential of the client (a server may echo them)."""
        return self.client.scrub(text)

    def __call__(self, item: PlanItem[P]) -> ItemResult:
        in_doubt = self.state.in_doubt(item.target)
        stop: QuotaExhaustedError | None = None
        went_out = threading.Event()  # set before a request of the item goes out

        def going_out() -> None:
            """Each request of the item (a read back, the write, a retry) is logged
            ``attempted`` once its call is counted and before it goes out: in doubt from
            then on, and one call of the window for a paced run resumed after a kill."""
            if self.log is not None:
                self.log.record(self.plan.action, item.target, ATTEMPTED)
            went_out.set()

        def token_going_out() -> None:
            """A token request the item's call waits for is the client's: a token line (a
            call of the window), the item neither attempted nor in doubt by it."""
            if self.log is not None:
                self.log._record_token()

        try:
            with telling_before_sending(going_out, shared=token_going_out):
                result = self._send(item, in_doubt)
        except (StoppedError, PacingEnded) as exc:
            if went_out.is_set() or in_doubt:  # not sent again: its log stays in doubt
                return ItemResult(Outcome.CANCELLED, message=self.scrub(f"{exc}; {STOPPED}"))
            result = ItemResult(Outcome.CANCELLED, message=self.scrub(str(exc)))  # not sent
        except QuotaExhaustedError as exc:
            stop = exc
            result = ItemResult(
                Outcome.FAILED,
                status=exc.status,
                error_key=exc.key or "quota_exhausted",
                message=self.scrub(str(exc)),
            )
        except (AllowanceSpent, PacedShareTooSmall) as exc:  # not sent: no share, or none left
            if isinstance(exc, CycleSpent):
                self.beyond = BEYOND_CYCLE
            elif isinstance(exc, PacedShareTooSmall):
                self.beyond = self.scrub(f"not sent: {exc}; {UNPACED}")
            self.spent.set()
            result = ItemResult(Outcome.CANCELLED, message=self.beyond)
            if in_doubt:  # left in doubt: the next run reads it first, as this one would have
                return result
        if self.log is not None:
            final = _for_good(result)
            unsaved = final and self.log.plan is None  # no plan file: the write is its key
            self.log.record(
                self.plan.action,
                item.target,
                result.outcome.value,
                status=result.status,
                error_key=result.error_key,
                message=result.message,
                request_id=result.request_id,
                resource_id=result.resource_id,
                final=final,
                write=write_key(self.plan.action, item) if unsaved else None,
            )
        if stop is not None:
            raise stop
        return result

    def _send(self, item: PlanItem[P], in_doubt: bool) -> ItemResult:
        try:
            if in_doubt:
                done = self._found_done(item)
                if done is not None:
                    return done
            result = self.plan.perform(self.client, item)
        except (
            QuotaExhaustedError,
            AllowanceSpent,
            PacedShareTooSmall,
            StoppedError,
            PacingEnded,
        ):
            raise  # stops the batch, or the item (see the module's notes)
        except APIError as exc:
            settled = None if in_doubt else self._settled(item, exc)
            if settled is not None:
                return settled
            return ItemResult(
                Outcome.FAILED,
                status=exc.status,
                error_key=exc.key,
                message=self.scrub(_api_message(exc)),
                field=self.plan.field_for(item, exc),
                request_id=exc.request_id,
            )
        except RequestValidationError as exc:
            return ItemResult(Outcome.INVALID, message=self.scrub(exc.message), field=exc.field)
        except LytError as exc:
            return ItemResult(
                Outcome.FAILED, error_key=_snake(type(exc).__name__), message=self.scrub(str(exc))
            )
        except Exception as exc:  # one bad item must not stop the batch
            return ItemResult(
                Outcome.FAILED,
                error_key="unexpected_error",
                message=self.scrub(f"{type(exc).__name__}: {exc}"),
            )
        if result.message:
            result.message = self.scrub(result.message)
        return result

    def _found_done(self, item: PlanItem[P]) -> ItemResult | None:
        """The result of an item in doubt that the service shows done (one read), else None."""
        try:
            standing = self.plan.check_done(self.client, item)
        except QuotaExhaustedError:
            raise  # stops the batch (see the module's notes)
        except Exception:  # a failed read leaves the write to send
            return None
        if standing.done is None:
            return None
        return ItemResult(
            Outcome.SUCCEEDED,
            message=f"done by an interrupted earlier run: {self.scrub(standing.done)}",
            resource_id=standing.resource_id,
            recovered=True,
        )

    def _settled(self, item: PlanItem[P], error: APIError) -> ItemResult | None:
        """The result of an item the service refused because it is already done, else None."""
        try:
            standing = self.plan.recover(self.client, item, error)
        except Exception:  # a failed check leaves the original error standing
            return None
        if standing is None or standing.done is None:
            return None
        done = self.scrub(standing.done)
        return ItemResult(
            Outcome.ALREADY_DONE,
            message=f"{done} (the service answered {error.status} {error.key})",
            resource_id=standing.resource_id,
        )


def _run_pool(
    send: _Sender[P],
    items: Sequence[PlanItem[P]],
    todo: list[int],
    results: list[ItemResult | None],
    concurrency: int,
    bar: ProgressBar,
    halted: Callable[[], bool],
) -> None:
    """Keep at most ``concurrency`` items in flight; stop submitting on a crash, a cancel or
    a spent allowance (``halted``), the items in flight finishing. Interrupted (Ctrl-C), those
    waiting to be sent again stop waiting, and those awaiting their answer are answered and
    logged."""
    pending: dict[Future[ItemResult], int] = {}
    queue = iter(todo)
    pool = StoppablePool(
        concurrency, "the batch was interrupted", thread_name_prefix=f"lyt-{send.plan.action}"
    )
    try:
        for index in queue:
            if halted():
                break
            pending[pool.submit(send, items[index])] = index
            if len(pending) >= concurrency:
                break
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                index = pending.pop(future)
                results[index] = future.result()  # re-raises a crash of the worker
                bar.advance(1)
                following = None if halted() else next(queue, None)
                if following is not None:
                    pending[pool.submit(send, items[following])] = following
    except BaseException as exc:
        if not isinstance(exc, Exception):  # interrupted: not a crash, nor the budget spent
            pool.stop.set()  # the items waiting to be sent again stop waiting
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _skipped(item: PlanItem[Any], entry: dict[str, Any]) -> ItemResult:
    seen = "found done" if entry.get("outcome") == Outcome.ALREADY_DONE else "succeeded"
    return ItemResult(
        Outcome.SKIPPED,
        status=entry.get("status"),
        message=f"already {seen} at {entry.get('time')}",
        request_id=entry.get("request_id"),
        resource_id=entry.get("resource_id"),
        columns=dict(item.columns),
    )


def _for_good(result: ItemResult) -> bool:
    """Whether ``result`` is a refusal of the service for good (``REFUSED_FOR_GOOD``)."""
    return result.outcome is Outcome.FAILED and result.status in REFUSED_FOR_GOOD


def _refused(item: PlanItem[Any], entry: dict[str, Any]) -> ItemResult:
    """The result of an item its log shows refused for good: that refusal, not sent again,
    and what reconsiders it (an unsaved plan's: the log's ``reconsider``)."""
    again = (
        "plan again, or apply with refresh, to reconsider it"
        if WRITE not in entry
        else "put right what refused it, then reconsider() the log to send it again"
    )
    return ItemResult(
        Outcome.FAILED,
        status=entry.get("status"),
        error_key=entry.get("error_key"),
        message=(
            f"not sent again: refused for good at {entry.get('time')} ({entry.get('message')});"
            f" {again}"
        ),
        request_id=entry.get("request_id"),
        resource_id=entry.get("resource_id"),
        columns=dict(item.columns),
    )


def _api_message(exc: APIError) -> str:
    return f"{exc.message} ({exc.details})" if exc.details else exc.message


def _snake(name: str) -> str:
    """``APITimeoutError`` -> ``api_timeout_error``: an error key for errors without one."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
