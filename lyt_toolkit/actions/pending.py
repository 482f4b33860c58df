"""Activate pending point buckets in bulk (each becomes a PENDING_POINTS_ACTIVATED transaction).

A bucket whose date is not in the future, or whose program, member or card
definition does not allow activation, answers 423; that is a result row, not
an error of the batch. ``preview(client)`` reads each bucket, its program,
member and card definition and the service's today, and shows ``activatable``
and ``blocked_reason`` per row: the same reasons the audit rule
``pending-bucket-not-activatable`` gives (``lyt_toolkit.frames.pending``).
The service lists a card's PENDING buckets only, so a bucket its card's list no longer
holds is done: activated, or canceled (which no call could undo), or never there; its
activation answers 423 (not PENDING) or 404 (no such bucket). A run's log, or
``Rehearsal.verify`` with the card's count of canceled pending points, tells which.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import APIError, ConflictError, NotFoundError, ResourceLockedError
from ..frames.pending import blocked_reasons
from ..models.enums import PendingBucketStatus
from ..models.ids import IdPrefix
from ..snapshot.clock import service_instant
from ._read_once import ReadOnce
from ._targets import as_records, first_seen, id_error
from .items import ItemResult, Outcome, PlanItem, Standing
from .plan import ActionPlan, Observer
from .reread import UNLISTED_BUCKET

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import PendingBucket

__all__ = ["ActivatePendingBuckets", "BucketPath", "activate_pending_buckets"]

BucketPath = tuple[str, str, str, str]
"""Where a bucket lives: program, member, card and bucket IDs."""

_UNLISTED = "no longer PENDING: not on its card's list (activated or canceled, or never there)"
"""What activating a bucket its card's list does not hold will do (``Standing.done``)."""

_NOT_LISTED = "not among the card's PENDING buckets"
"""The ``blocked_reason`` of such a bucket."""

_DEFINITION = "card_definition_id"
"""The column of a bucket's row naming its card definition, which its preview reads."""
_PATH = ("program_id", "member_id", "card_id", "bucket_id")
_PREFIXES = (IdPrefix.PROGRAM, IdPrefix.MEMBER, IdPrefix.CARD, IdPrefix.PENDING_BUCKET)
_RESOURCE_FIELD = {
    "program": "program_id",
    "member": "member_id",
    "card": "card_id",
    "pending_points_bucket": "bucket_id",
    "bucket": "bucket_id",
}


class ActivatePendingBuckets(ActionPlan[BucketPath]):
    """POST the activate endpoint of each bucket; the target key is the bucket ID."""

    action = "activate_pending_bucket"
    item_columns = {
        "program_id": "string",
        "member_id": "string",
        "card_id": "string",
        "points": "Int64",
        "date": "string",
    }
    extra_result_columns = ("transaction_id", "activation_status")
    rehearsal_kinds = frozenset(
        {"programs", "members", "cards", "pending_buckets", "card_definitions"}
    )
    preview_columns = {"activatable": "boolean", "blocked_reason": "string"}
    settled_by = (ResourceLockedError, ConflictError)

    def perform(self, client: LoyaltyClient, item: PlanItem[BucketPath]) -> ItemResult:
        result = client.pending_buckets.activate(*item.to_send)
        transaction = result.transaction.id if result.transaction is not None else None
        status = getattr(result.status, "value", result.status)
        return ItemResult(
            Outcome.SUCCEEDED,
            resource_id=transaction,
            message=result.message,
            columns={"transaction_id": transaction, "activation_status": status},
        )

    def preview_reads(self, items: list[PlanItem[BucketPath]]) -> int:
        """The reads of ``_BucketReader``, each once for all the items: every card's bucket
        list (a page of 100 at least), every member and every program, and every card
        definition the buckets name (built from rows giving ``card_definition_id``, as a
        plan from a snapshot's are), else one at least (``_reads_at_least``)."""
        paths = [item.to_send for item in items]
        lists = len({path[:3] for path in paths})
        members = len({path[:2] for path in paths})
        programs = len({path[0] for path in paths})
        named = {_definition_of(item) for item in items} - {None}
        definitions = max(len(named), 1) if paths else 0
        return lists + members + programs + definitions

    def _reads_at_least(self, items: list[PlanItem[BucketPath]]) -> bool:
        """Whether ``preview_reads`` counts the card definitions at least: a bucket whose
        row did not name its own may read another."""
        return any(_definition_of(item) is None for item in items)

    def observer(self, client: LoyaltyClient) -> Observer[BucketPath]:
        return _BucketReader(client)

    def check_done(self, client: LoyaltyClient, item: PlanItem[BucketPath]) -> Standing:
        """Done or not by the card's bucket list alone (one read a page of 100): a bucket
        it no longer holds, or holds ACTIVATED, is done. The program, member and card
        definition the preview reads tell only why a PENDING bucket is refused."""
        bucket = _BucketReader(client).bucket(item)
        if bucket is None:
            return _unlisted()
        if bucket.status == PendingBucketStatus.ACTIVATED:
            return Standing.already("already ACTIVATED")
        return Standing(item.summary)

    def recover(
        self, client: LoyaltyClient, item: PlanItem[BucketPath], error: APIError
    ) -> Standing | None:
        standing = super().recover(client, item, error)
        if standing is not None and standing.done == _UNLISTED:  # refused, not 404: it exists
            return Standing.already(UNLISTED_BUCKET, columns=standing.columns)
        return standing

    def field_for(self, item: PlanItem[BucketPath], error: APIError) -> str | None:
        if error.resource_type in _RESOURCE_FIELD:
            return _RESOURCE_FIELD[error.resource_type]
        return "bucket_id" if error.status in (404, 423) else None


class _BucketReader:
    """Reads what activating a bucket depends on, each program, member, card's buckets and
    card definition once for all the items of a preview."""

    def __init__(self, client: LoyaltyClient) -> None:
        self.client = client
        self._today: dt.date | None = None
        self.programs: ReadOnce[str, str | None] = ReadOnce()
        self.members: ReadOnce[tuple[str, str], str | None] = ReadOnce()
        self.cards: ReadOnce[tuple[str, str, str], dict[str, PendingBucket]] = ReadOnce()
        self.definitions: ReadOnce[str, dict[str, Any] | None] = ReadOnce()

    def bucket(self, item: PlanItem[BucketPath]) -> PendingBucket | None:
        """``item``'s bucket as its card's list holds it (``None``: not listed); the list is
        read once for all the items on the card."""
        program_id, member_id, card_id, bucket_id = item.to_send
        return self._buckets(program_id, member_id, card_id).get(bucket_id)

    def __call__(self, item: PlanItem[BucketPath]) -> Standing:
        program_id, member_id, _, _ = item.to_send
        bucket = self.bucket(item)
        if bucket is None:
            return _unlisted()
        reasons = blocked_reasons(
            bucket.model_dump(),
            today=self.today(),
            program_status=self._program_status(program_id),
            member_status=self._member_status(program_id, member_id),
            definition=self._definition(bucket.card_definition_id),
        )
        columns = {"activatable": not reasons, "blocked_reason": "; ".join(reasons) or None}
        if bucket.status == PendingBucketStatus.ACTIVATED:
            return Standing.already("already ACTIVATED", columns=columns)
        if reasons:
            return Standing(f"fails: {'; '.join(reasons)} (423)", columns=columns, refused=True)
        return Standing(item.summary, columns=columns)

    def today(self) -> dt.date:
        """The service's date, read once the first answer brought the client its token."""
        if self._today is None:
            self._today = service_today(self.client)
        return self._today

    def _buckets(self, program_id: str, member_id: str, card_id: str) -> dict[str, PendingBucket]:
        def listed() -> dict[str, PendingBucket]:
            pages = self.client.pending_buckets.iter(program_id, member_id, card_id, limit=100)
            return {b.id: b for b in pages}

        return self.cards.get((program_id, member_id, card_id), listed)

    def _program_status(self, program_id: str) -> str | None:
        return self.programs.get(
            program_id, lambda: _status(lambda: self.client.programs.get(program_id))
        )

    def _member_status(self, program_id: str, member_id: str) -> str | None:
        return self.members.get(
            (program_id, member_id),
            lambda: _status(lambda: self.client.members.get(program_id, member_id)),
        )

    def _definition(self, definition_id: str) -> dict[str, Any] | None:
        def read() -> dict[str, Any] | None:
            try:
                found = self.client.card_definitions.get(definition_id)
            except NotFoundError:
                return None
            return {"id": found.id, "pending_points_type": found.pending_points.type}

        return self.definitions.get(definition_id, read)


def _unlisted() -> Standing:
    """The standing of a bucket its card's list does not hold: the service lists a card's
    PENDING buckets only, so it is done (or was never there)."""
    return Standing.already(
        _UNLISTED, columns={"activatable": False, "blocked_reason": _NOT_LISTED}
    )


def _definition_of(item: PlanItem[BucketPath]) -> str | None:
    """The card definition the row of ``item``'s bucket named (``None``: not given)."""
    definition = item.columns.get(_DEFINITION)
    return None if definition is None else str(definition)


def _status(read: Callable[[], Any]) -> str | None:
    """The status of what ``read()`` returns, ``None`` when the service does not know it."""
    try:
        return str(read().status)
    except NotFoundError:
        return None


def service_today(client: LoyaltyClient) -> dt.date:
    """The service's UTC date, from the bearer token the client holds (issued at
    ``expires_at - expires_in`` by the service's clock, plus the time since), so a sandbox on
    a fixed clock is read at that clock; this machine's date when it holds none."""
    seconds = client.service_time()
    issued = None if seconds is None else service_instant(seconds)
    return (issued if issued is not None else pd.Timestamp.now(tz="UTC")).date()


def _path(record: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    """The four IDs as given, unchecked (``id_error`` refuses what is not an ID)."""
    if "_tuple" in record and len(record["_tuple"]) == 4:
        program_id, member_id, card_id, bucket_id = record["_tuple"]
    else:
        program_id, member_id, card_id = (record.get(key) for key in _PATH[:3])
        bucket_id = record.get("bucket_id", record.get("id"))
    return program_id, member_id, card_id, bucket_id


def activate_pending_buckets(buckets: Any) -> ActivatePendingBuckets:
    """Plan activating buckets: ``PendingBucket`` models, dicts or DataFrame rows with
    program_id, member_id, card_id and bucket_id (or id), or 4-tuples in that order."""
    records = as_records(buckets, "bucket_id")
    paths = [_path(r) for r in records]
    targets = [str(p[3]) for p in paths]
    items: list[PlanItem[BucketPath]] = []
    for position, (record, path, first) in enumerate(
        zip(records, paths, first_seen(targets), strict=True), start=1
    ):
        error = field = None
        for name, prefix, value in zip(_PATH, _PREFIXES, path, strict=True):
            error = id_error(prefix, value, name)
            if error:
                field = name
                break
        if error is None and first is not None:
            error, field = f"same bucket as row {first} of this batch", "bucket_id"
        points = record.get("points")
        columns: dict[str, Any] = dict(zip(_PATH[:3], path[:3], strict=True))
        if isinstance(points, dict) and "total" in points:
            columns["points"] = points["total"]
        if "date" in record:
            columns["date"] = str(record["date"])
        if record.get(_DEFINITION) is not None:
            columns[_DEFINITION] = str(record[_DEFINITION])
        items.append(
            PlanItem(
                target=str(path[3]),
                summary="activate pending points now",
                payload=path if error is None else None,
                error=error,
                field=field,
                row=position,
                columns=columns,
            )
        )
    return ActivatePendingBuckets(items)
