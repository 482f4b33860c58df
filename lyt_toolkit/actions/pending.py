"""Activate pending point buckets in bulk (each becomes a PENDING_POINTS_ACTIVATED transaction).

A bucket whose date is not in the future, or whose program, member or card
definition does not allow activation, answers 423; that is a result row, not
an error of the batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import APIError, ConflictError, ResourceLockedError
from ..models.enums import PendingBucketStatus
from ..models.ids import IdPrefix
from ._targets import as_records, first_seen, id_error
from .items import ItemResult, Outcome, PlanItem
from .plan import ActionPlan

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["ActivatePendingBuckets", "BucketPath", "activate_pending_buckets"]

BucketPath = tuple[str, str, str, str]
"""Where a bucket lives: program, member, card and bucket IDs."""

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
    extra_result_columns = ("transaction_id", "activation_status")

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

    def recover(
        self, client: LoyaltyClient, item: PlanItem[BucketPath], error: APIError
    ) -> ItemResult | None:
        """Locked after an interrupted attempt: done if the bucket has left PENDING as ACTIVATED."""
        if not isinstance(error, ResourceLockedError | ConflictError):
            return None
        program_id, member_id, card_id, bucket_id = item.to_send
        for bucket in client.pending_buckets.iter(program_id, member_id, card_id, limit=100):
            if bucket.id == bucket_id and bucket.status == PendingBucketStatus.ACTIVATED:
                return ItemResult(
                    Outcome.SUCCEEDED, message="activated by an interrupted earlier run"
                )
        return None

    def field_for(self, item: PlanItem[BucketPath], error: APIError) -> str | None:
        if error.resource_type in _RESOURCE_FIELD:
            return _RESOURCE_FIELD[error.resource_type]
        return "bucket_id" if error.status in (404, 423) else None


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
