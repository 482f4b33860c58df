"""Running a plan so that it can be cancelled: in chunks, with a stop between chunks.

The plan runner has no cancel hook, so a widget executes its plan one chunk of
at most ``concurrency`` items at a time and checks its cancel flag between
chunks: a Cancel stops the batch after the requests already in flight, and the
items never sent are reported ``cancelled``. Each chunk is an ordinary
``execute`` (same log, same retries), so a cancelled batch resumes like an
interrupted one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..actions import ItemResult, Outcome
from ..actions.results import results_frame

if TYPE_CHECKING:
    from ..actions import ActionPlan
    from ..actions.log import LogSource
    from ..client import LoyaltyClient

__all__ = ["CANCELLED", "OUTCOMES", "execute_cancellable"]

CANCELLED = "cancelled"
"""The outcome of an item a Cancel kept from being sent."""

OUTCOMES = [o.value for o in Outcome] + [CANCELLED]


def execute_cancellable(
    plan: ActionPlan[Any],
    client: LoyaltyClient,
    *,
    cancel: threading.Event,
    concurrency: int = 8,
    log: LogSource | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """``plan.execute`` in chunks of ``concurrency`` items; once ``cancel`` is set no new
    chunk starts. One result row per item, in plan order (``item`` is the plan's index)."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    items, total = plan.items, len(plan.items)
    frames: list[pd.DataFrame] = []
    start = 0
    while start < total and not cancel.is_set():
        chunk = type(plan)(items[start : start + concurrency])
        offset = start
        frame = chunk.execute(
            client,
            concurrency=concurrency,
            log=log,
            progress=_shifted(progress, offset, total),
        )
        frame["item"] = frame["item"] + offset
        frames.append(frame)
        start += len(chunk)
    if start < total:
        frames.append(_not_sent(plan, start))
    if not frames:
        return _typed_outcome(results_frame([], [], plan.extra_result_columns))
    return _typed_outcome(pd.concat(frames, ignore_index=True))


def _shifted(
    progress: Callable[[int, int], None] | None, offset: int, total: int
) -> Callable[[int, int], None] | bool:
    if progress is None:
        return False
    return lambda done, _chunk_total: progress(offset + done, total)


def _not_sent(plan: ActionPlan[Any], start: int) -> pd.DataFrame:
    """Rows for the items from ``start`` on: ``invalid`` as ever, the others ``cancelled``."""
    rest = plan.items[start:]
    never = [
        ItemResult(Outcome.INVALID, message=i.error, field=i.field, columns=i.columns)
        if i.error is not None
        else ItemResult(Outcome.FAILED, message="not sent: the batch was cancelled")
        for i in rest
    ]
    frame = results_frame(rest, never, plan.extra_result_columns)
    frame["item"] = frame["item"] + start
    valid = pd.Series([i.error is None for i in rest], index=frame.index)
    frame["outcome"] = frame["outcome"].astype(str).where(~valid, CANCELLED)
    return frame


def _typed_outcome(frame: pd.DataFrame) -> pd.DataFrame:
    frame["outcome"] = pd.Categorical(frame["outcome"].astype(str), categories=OUTCOMES)
    return frame
