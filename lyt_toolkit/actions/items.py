"""What a plan is made of: items to send, and what became of each."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..errors import APIError

__all__ = ["ItemResult", "Observer", "Outcome", "P", "PlanItem", "Runnable", "Standing"]

P = TypeVar("P")
"""The payload of a plan's items: what one request needs beyond the target key."""


class Outcome(StrEnum):
    """What became of one item of a batch."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped_already_done"
    INVALID = "invalid"
    ALREADY_DONE = "already_done"
    """The service was already in the item's target state, so there was nothing to do."""
    CANCELLED = "cancelled"
    """Never sent: the batch was cancelled first. Not logged, so a re-run sends it."""


@dataclass(frozen=True)
class PlanItem(Generic[P]):
    """One unit of work: its target key (unique within the action) and what to send.

    ``payload`` may be missing only on an item local validation rejected
    (``error`` set); such an item is reported, never sent.
    """

    target: str
    summary: str
    payload: P | None = None
    error: str | None = None
    field: str | None = None
    row: int | None = None
    columns: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Descriptive columns shown in the preview and results (name, type, ...)."""

    @property
    def to_send(self) -> P:
        """The payload of a valid item; ``ValueError`` for one without a payload."""
        if self.payload is None:
            raise ValueError(f"item {self.target!r} has nothing to send: {self.error}")
        return self.payload


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


@dataclass(frozen=True)
class Standing:
    """What one item will do given the service's current state, as a preview row tells it.

    ``done`` says why the item is already in its target state (e.g. ``"already
    DRAFT"``), so nothing needs sending; ``resource_id`` names the resource that
    shows it. ``columns`` are the plan's own state columns (``preview_columns``).
    ``refused``: the service will refuse the write with an error of the plan's
    ``settled_by``, which is then read back (``check_done``), as is a done item's.
    """

    will: str
    done: str | None = None
    resource_id: str | None = None
    columns: dict[str, Any] = dataclasses.field(default_factory=dict)
    refused: bool = False

    @property
    def read_back(self) -> bool:
        """Whether executing the item sends a read after its write: the service refuses a
        write already done, or one ``refused``, and the runner checks it (``recover``)."""
        return self.refused or self.done is not None

    @classmethod
    def already(cls, done: str, **kwargs: Any) -> Standing:
        """An item with nothing to do: ``will`` reads ``nothing (<done>)``."""
        return cls(f"nothing ({done})", done=done, **kwargs)


Observer = Callable[[PlanItem[P]], Standing]
"""Reads the service (never writes) and tells what one item will do."""


class Runnable(Protocol[P]):
    """What running a plan (``_runner``) and costing it (``cost``) read of it: ``ActionPlan``
    is one. They take this, not ``ActionPlan``, whose module imports them."""

    @property
    def action(self) -> str: ...
    @property
    def items(self) -> Sequence[PlanItem[P]]: ...

    def perform(self, client: LoyaltyClient, item: PlanItem[P]) -> ItemResult: ...
    def observer(self, client: LoyaltyClient) -> Observer[P]: ...
    def check_done(self, client: LoyaltyClient, item: PlanItem[P]) -> Standing: ...
    def recover(
        self, client: LoyaltyClient, item: PlanItem[P], error: APIError
    ) -> Standing | None: ...
    def field_for(self, item: PlanItem[P], error: APIError) -> str | None: ...
