"""Bulk operations as data: a plan of items, previewed, then executed in parallel.

A plan is built from the user's input without touching the service, so the
preview shows every item and every local validation error first. Executing
sends one request per valid item on a bounded thread pool over the
(thread-safe) sync client. A failed item never stops the batch: it becomes a
row with the service's status, error key and message. With an ``ActionLog`` a
re-run skips what already succeeded and settles what was interrupted in flight.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import APIError, LytError, RequestValidationError
from .log import ATTEMPTED, ActionLog, LogState

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = [
    "RESULT_COLUMNS",
    "ActionPlan",
    "ItemResult",
    "Outcome",
    "PlanItem",
    "Progress",
]


class Outcome(StrEnum):
    """What became of one item of a batch."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped_already_done"
    INVALID = "invalid"


Progress = bool | Callable[[int, int], None] | None
"""``True`` for a ``tqdm.auto`` bar, a callable ``(done, total)`` for a custom one."""


@dataclass(frozen=True)
class PlanItem:
    """One unit of work: its target key (unique within the action) and what to send."""

    target: str
    summary: str
    payload: Any = None
    error: str | None = None
    field: str | None = None
    row: int | None = None
    columns: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Descriptive columns shown in the preview and results (name, type, ...)."""


@dataclass
class ItemResult:
    """The result row of one item."""

    outcome: Outcome
    status: int | None = None
    error_key: str | None = None
    message: str | None = None
    field: str | None = None
    request_id: str | None = None
    resource_id: str | None = None
    recovered: bool = False
    columns: dict[str, Any] = dataclasses.field(default_factory=dict)


RESULT_COLUMNS = (
    "item",
    "row",
    "target",
    "outcome",
    "status",
    "error_key",
    "message",
    "field",
    "request_id",
    "resource_id",
    "recovered",
)


class ActionPlan:
    """A planned batch. Subclasses define how one item is sent and recovered.

    ``preview()`` is pure; ``execute(client, ...)`` runs the valid items and
    returns one result row per item, in plan order.
    """

    action: str = "action"
    extra_result_columns: tuple[str, ...] = ()

    def __init__(self, items: Sequence[PlanItem]) -> None:
        self.items = list(items)

    def __repr__(self) -> str:
        invalid = sum(1 for i in self.items if i.error)
        return f"<{type(self).__name__} {len(self.items)} items, {invalid} invalid>"

    def __len__(self) -> int:
        return len(self.items)

    # -- what subclasses provide -----------------------------------------------------

    def perform(self, client: LoyaltyClient, item: PlanItem) -> ItemResult:
        """Send the one request for ``item`` and return its SUCCEEDED result.

        Implementations must: send exactly one write built from ``item.payload``
        (or the target), let the client's errors propagate instead of catching
        them (the runner turns an ``APIError`` into a FAILED row and a
        ``RequestValidationError`` into an INVALID one), put the created or
        changed resource's ID in ``resource_id``, and be safe to call from
        several threads at once, since items run on a pool over one client.
        """
        raise NotImplementedError

    def recover(self, client: LoyaltyClient, item: PlanItem, error: APIError) -> ItemResult | None:
        """Decide whether ``error`` only means an earlier, interrupted run already did the work.

        Called only for items the log shows as attempted but never settled, after
        :meth:`perform` failed with ``error``. An implementation checks the service
        (read-only) and returns a SUCCEEDED result when the work is confirmed done,
        otherwise ``None`` so the error stands. Anything it raises is ignored for
        the same reason: an unconfirmed guess must not hide a real failure. The
        default recovers nothing.
        """
        return None

    def field_for(self, item: PlanItem, error: APIError) -> str | None:
        """The input field ``error`` from the service is about, or ``None`` if it is not clear.

        Implementations map the error's status, key or resource type to the name
        of a field of the user's input (as used in ``PlanItem.field``), so forms
        and result tables can point at what to correct. It must not call the
        service. The default names no field.
        """
        return None

    # -- preview ------------------------------------------------------------------------

    def preview(self, log: ActionLog | str | os.PathLike[str] | None = None) -> pd.DataFrame:
        """One row per item: target, what will happen, and any local validation error.

        With ``log``, items that already succeeded show that they will be skipped.
        """
        state = _log(log).state(self.action) if log is not None else LogState()
        rows = []
        for index, item in enumerate(self.items):
            if item.error:
                plan = "nothing (invalid)"
            elif item.target in state.succeeded:
                plan = "skip (already done)"
            else:
                plan = item.summary
            rows.append(
                {
                    "item": index,
                    "row": item.row,
                    "target": item.target,
                    **item.columns,
                    "will": plan,
                    "valid": item.error is None,
                    "error": item.error,
                    "field": item.field,
                }
            )
        columns = ["item", "row", "target", *self._item_columns(), "will", "valid", "error"]
        frame = pd.DataFrame(rows, columns=[*columns, "field"])
        return _typed(frame)

    def _item_columns(self) -> list[str]:
        seen: dict[str, None] = {}
        for item in self.items:
            seen.update(dict.fromkeys(item.columns))
        return list(seen)

    @property
    def valid_items(self) -> list[PlanItem]:
        """The items that passed local validation: the ones ``execute`` may send."""
        return [i for i in self.items if i.error is None]

    @property
    def invalid_items(self) -> list[PlanItem]:
        """The items local validation rejected; they are reported, never sent."""
        return [i for i in self.items if i.error is not None]

    # -- execution ----------------------------------------------------------------------

    def execute(
        self,
        client: LoyaltyClient,
        *,
        concurrency: int = 8,
        log: ActionLog | str | os.PathLike[str] | None = None,
        progress: Progress = True,
    ) -> pd.DataFrame:
        """Run every valid item not already done; one result row per item, in plan order.

        ``concurrency`` bounds the requests in flight. Item failures are rows,
        never exceptions; only an interruption (KeyboardInterrupt, a crash)
        stops the batch, and the log then lets the next run resume it.
        """
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        action_log = _log(log) if log is not None else None
        state = action_log.state(self.action) if action_log is not None else LogState()
        results: list[ItemResult | None] = [None] * len(self.items)
        todo: list[int] = []
        for index, item in enumerate(self.items):
            if item.error is not None:
                results[index] = ItemResult(
                    Outcome.INVALID, message=item.error, field=item.field, columns=item.columns
                )
            elif item.target in state.succeeded:
                results[index] = _skipped(item, state.succeeded[item.target])
            else:
                todo.append(index)
        bar = _progress(progress, len(self.items), self.action)
        bar.advance(len(self.items) - len(todo))
        scrub = _scrubber(client)
        run = _Runner(self, client, action_log, state, scrub)
        try:
            if concurrency == 1:
                for index in todo:
                    results[index] = run(self.items[index])
                    bar.advance(1)
            else:
                _run_pool(run, self.items, todo, results, concurrency, bar)
        finally:
            bar.close()
            if action_log is not None and not isinstance(log, ActionLog):
                action_log.close()
        return self._frame(results)

    def _frame(self, results: Sequence[ItemResult | None]) -> pd.DataFrame:
        rows = []
        for index, (item, result) in enumerate(zip(self.items, results, strict=True)):
            assert result is not None
            rows.append(
                {
                    "item": index,
                    "row": item.row,
                    "target": item.target,
                    **item.columns,
                    "outcome": result.outcome.value,
                    "status": result.status,
                    "error_key": result.error_key,
                    "message": result.message,
                    "field": result.field,
                    "request_id": result.request_id,
                    "resource_id": result.resource_id,
                    "recovered": result.recovered,
                    **result.columns,
                }
            )
        columns = [
            "item",
            "row",
            "target",
            *self._item_columns(),
            *[c for c in RESULT_COLUMNS if c not in ("item", "row", "target")],
            *self.extra_result_columns,
        ]
        frame = _typed(pd.DataFrame(rows, columns=list(dict.fromkeys(columns))))
        for column in self.extra_result_columns:
            frame[column] = frame[column].astype("string")
        return frame


# -- running one item ------------------------------------------------------------------


class _Runner:
    """Sends one item and turns every answer into an ``ItemResult``, logging both ends."""

    def __init__(
        self,
        plan: ActionPlan,
        client: LoyaltyClient,
        log: ActionLog | None,
        state: LogState,
        scrub: Callable[[str], str],
    ) -> None:
        self.plan = plan
        self.client = client
        self.log = log
        self.state = state
        self.scrub = scrub

    def __call__(self, item: PlanItem) -> ItemResult:
        in_doubt = self.state.in_doubt(item.target)
        if self.log is not None:
            self.log.record(self.plan.action, item.target, ATTEMPTED)
        result = self._send(item, in_doubt)
        if self.log is not None:
            self.log.record(
                self.plan.action,
                item.target,
                result.outcome.value,
                status=result.status,
                error_key=result.error_key,
                message=result.message,
                request_id=result.request_id,
                resource_id=result.resource_id,
            )
        return result

    def _send(self, item: PlanItem, in_doubt: bool) -> ItemResult:
        try:
            result = self.plan.perform(self.client, item)
        except APIError as exc:
            recovered = self._recover(item, exc) if in_doubt else None
            if recovered is not None:
                return recovered
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

    def _recover(self, item: PlanItem, error: APIError) -> ItemResult | None:
        try:
            result = self.plan.recover(self.client, item, error)
        except Exception:  # a failed check leaves the original error standing
            return None
        if result is not None:
            result.recovered = True
        return result


def _run_pool(
    run: _Runner,
    items: list[PlanItem],
    todo: list[int],
    results: list[ItemResult | None],
    concurrency: int,
    bar: _Bar,
) -> None:
    """Keep at most ``concurrency`` items in flight; stop submitting on a crash."""
    pending: dict[Future[ItemResult], int] = {}
    queue = iter(todo)
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"lyt-{run.plan.action}")
    try:
        for index in queue:
            pending[pool.submit(run, items[index])] = index
            if len(pending) >= concurrency:
                break
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                index = pending.pop(future)
                results[index] = future.result()  # re-raises a crash of the worker
                bar.advance(1)
                following = next(queue, None)
                if following is not None:
                    pending[pool.submit(run, items[following])] = following
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# -- helpers ------------------------------------------------------------------------------


def _log(log: ActionLog | str | os.PathLike[str]) -> ActionLog:
    return log if isinstance(log, ActionLog) else ActionLog(log)


def _skipped(item: PlanItem, entry: dict[str, Any]) -> ItemResult:
    return ItemResult(
        Outcome.SKIPPED,
        status=entry.get("status"),
        message=f"already succeeded at {entry.get('time')}",
        request_id=entry.get("request_id"),
        resource_id=entry.get("resource_id"),
        columns=dict(item.columns),
    )


def _api_message(exc: APIError) -> str:
    return f"{exc.message} ({exc.details})" if exc.details else exc.message


def _snake(name: str) -> str:
    """``APITimeoutError`` -> ``api_timeout_error``: an error key for errors without one."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _scrubber(client: Any) -> Callable[[str], str]:
    """Replace any credential of the client that might appear in a message."""
    secrets: list[str] = []
    config = getattr(client, "config", None)
    for name in ("app_token", "management_token"):
        value = getattr(config, name, None)
        raw = value.get_secret_value() if hasattr(value, "get_secret_value") else value
        if isinstance(raw, str) and len(raw) >= 4:
            secrets.append(raw)

    def scrub(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, "***")
        return text

    return scrub


_STRING_COLUMNS = (
    "target",
    "will",
    "error",
    "field",
    "error_key",
    "message",
    "request_id",
    "resource_id",
)


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Honest dtypes that stay the same for zero rows."""
    for column in ("item", "row", "status"):
        if column in frame:
            frame[column] = pd.array(frame[column], dtype="Int64")
    for column in _STRING_COLUMNS:
        if column in frame:
            frame[column] = frame[column].astype("string")
    if "outcome" in frame:
        frame["outcome"] = pd.Categorical(frame["outcome"], categories=[o.value for o in Outcome])
    for column in ("valid", "recovered"):
        if column in frame:
            frame[column] = frame[column].astype(bool)
    return frame


class _Bar:
    """A progress bar over whatever the caller asked for (tqdm, a callback, or nothing)."""

    def __init__(self, progress: Progress, total: int, label: str) -> None:
        self.total = total
        self.done = 0
        self._lock = threading.Lock()
        self._callback: Callable[[int, int], None] | None = None
        self._tqdm: Any = None
        if callable(progress):
            self._callback = progress
        elif progress:
            from tqdm.auto import tqdm

            self._tqdm = tqdm(total=total, desc=label, unit="item")
        if self._callback is not None:
            self._callback(0, total)

    def advance(self, count: int) -> None:
        if count <= 0:
            return
        with self._lock:
            self.done += count
            if self._tqdm is not None:
                self._tqdm.update(count)
            if self._callback is not None:
                self._callback(self.done, self.total)

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()


def _progress(progress: Progress, total: int, label: str) -> _Bar:
    return _Bar(progress, total, label)
