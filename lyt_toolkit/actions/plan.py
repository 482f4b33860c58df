"""Bulk operations as data: a plan of items, previewed, then executed in parallel.

A plan is built from the user's input without touching the service, so the
preview shows every item and every local validation error first. Executing
sends one request per valid item (see ``_runner``) and returns one result row
per item. With an ``ActionLog`` a re-run skips what already succeeded and
settles what was interrupted in flight.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Generic

import pandas as pd

from .._progress import Progress
from ._runner import run_items
from .items import ItemResult, Outcome, P, PlanItem
from .log import LogSource, log_state, opened_log
from .results import RESULT_COLUMNS, preview_frame, results_frame

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..errors import APIError

__all__ = [
    "RESULT_COLUMNS",
    "ActionPlan",
    "ItemResult",
    "Outcome",
    "PlanItem",
    "Progress",
]


class ActionPlan(Generic[P]):
    """A planned batch of items with payloads of type ``P``.

    Subclasses define how one item is sent and recovered. ``preview()`` is
    pure; ``execute(client, ...)`` runs the valid items and returns one result
    row per item, in plan order.
    """

    action: str = "action"
    extra_result_columns: tuple[str, ...] = ()

    def __init__(self, items: Sequence[PlanItem[P]]) -> None:
        self.items = list(items)

    def __repr__(self) -> str:
        invalid = sum(1 for i in self.items if i.error)
        return f"<{type(self).__name__} {len(self.items)} items, {invalid} invalid>"

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

    def recover(
        self, client: LoyaltyClient, item: PlanItem[P], error: APIError
    ) -> ItemResult | None:
        """Decide whether ``error`` only means an earlier, interrupted run already did the work.

        Called only for items the log shows as attempted but never settled, after
        :meth:`perform` failed with ``error``. An implementation checks the service
        (read-only) and returns a SUCCEEDED result when the work is confirmed done,
        otherwise ``None`` so the error stands. Anything it raises is ignored for
        the same reason: an unconfirmed guess must not hide a real failure. The
        default recovers nothing.
        """
        return None

    def field_for(self, item: PlanItem[P], error: APIError) -> str | None:
        """The input field ``error`` from the service is about, or ``None`` if it is not clear.

        Implementations map the error's status, key or resource type to the name
        of a field of the user's input (as used in ``PlanItem.field``), so forms
        and result tables can point at what to correct. It must not call the
        service. The default names no field.
        """
        return None

    # -- preview ------------------------------------------------------------------------

    def preview(self, log: LogSource | None = None) -> pd.DataFrame:
        """One row per item: target, what will happen, and any local validation error.

        With ``log``, items that already succeeded show that they will be skipped.
        """
        return preview_frame(self.items, log_state(log, self.action).succeeded)

    @property
    def valid_items(self) -> list[PlanItem[P]]:
        """The items that passed local validation: the ones ``execute`` may send."""
        return [i for i in self.items if i.error is None]

    @property
    def invalid_items(self) -> list[PlanItem[P]]:
        """The items local validation rejected; they are reported, never sent."""
        return [i for i in self.items if i.error is not None]

    # -- execution ----------------------------------------------------------------------

    def execute(
        self,
        client: LoyaltyClient,
        *,
        concurrency: int = 8,
        log: LogSource | None = None,
        progress: Progress = True,
    ) -> pd.DataFrame:
        """Run every valid item not already done; one result row per item, in plan order.

        ``concurrency`` bounds the requests in flight. Item failures are rows,
        never exceptions; only an interruption (KeyboardInterrupt, a crash)
        stops the batch, and the log then lets the next run resume it.
        """
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        with opened_log(log) as action_log:
            results = run_items(
                self,
                client,
                concurrency=concurrency,
                log=action_log,
                state=log_state(action_log, self.action),
                progress=progress,
            )
        return results_frame(self.items, results, self.extra_result_columns)
