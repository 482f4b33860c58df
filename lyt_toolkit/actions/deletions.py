"""Delete tier structures and webhook configurations in bulk.

A deletion that answers 404 is checked: a tier structure the service shows as
DELETED, or a webhook no longer among its project's webhooks, is already done
(by an earlier run, or by anyone), so the item is not a failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import APIError, NotFoundError
from ..models.common import format_timestamp
from ..models.enums import TierStructureStatus
from ..models.ids import IdPrefix
from ._targets import as_records, first_seen, id_items, text_error
from .items import ItemResult, Outcome, PlanItem, Standing
from .plan import ActionPlan, Observer

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = [
    "DeleteTierStructures",
    "DeleteWebhooks",
    "delete_tier_structures",
    "delete_webhooks",
]


class _Deletion(ActionPlan[str]):
    """A deletion: a 404 is checked, since a resource already deleted answers it too."""

    settled_by = (NotFoundError,)


class DeleteTierStructures(_Deletion):
    """DELETE each tier structure; the target key (and payload) is its ID."""

    action = "delete_tier_structure"
    item_columns = {"name": "string"}
    rehearsal_kinds = frozenset({"tier_structures"})

    def perform(self, client: LoyaltyClient, item: PlanItem[str]) -> ItemResult:
        deleted = client.tier_structures.delete(item.to_send)
        return ItemResult(Outcome.SUCCEEDED, resource_id=deleted.id, message="deleted")

    def observer(self, client: LoyaltyClient) -> Observer[str]:
        """Reads each tier structure: the service keeps deleted ones, as DELETED."""

        def observe(item: PlanItem[str]) -> Standing:
            tiers = client.tier_structures.get(item.to_send)
            if tiers.status == TierStructureStatus.DELETED:
                return Standing.already("already DELETED", resource_id=tiers.id)
            return Standing(f"delete tier structure (now {tiers.status})")

        return observe


class DeleteWebhooks(_Deletion):
    """DELETE each webhook configuration; the target key is ``project_id/webhook_id``.

    The payload is the webhook ID; the project ID is the item's ``project_id`` column.
    """

    action = "delete_webhook"
    item_columns = {"project_id": "string", "webhook_id": "string"}
    rehearsal_kinds: frozenset[str] = frozenset()  # seed_rehearsal adds the webhooks

    def perform(self, client: LoyaltyClient, item: PlanItem[str]) -> ItemResult:
        webhook_id = item.to_send
        client.webhooks.delete(item.columns["project_id"], webhook_id)
        return ItemResult(Outcome.SUCCEEDED, resource_id=webhook_id, message="deleted")

    def observer(self, client: LoyaltyClient) -> Observer[str]:
        """Lists each project's webhooks once: one no longer listed is gone already.

        The service keeps no trace of a deleted webhook, so one that never
        existed reads the same way.
        """
        listed: dict[str, set[str]] = {}

        def observe(item: PlanItem[str]) -> Standing:
            project_id = item.columns["project_id"]
            if project_id not in listed:
                listed[project_id] = {w.id for w in client.webhooks.list(project_id)}
            if item.to_send in listed[project_id]:
                return Standing("delete webhook configuration")
            return Standing.already(
                "already gone: not among the project's webhooks (deleted, or never there)",
                resource_id=item.to_send,
            )

        return observe

    def seed_rehearsal(self, program: dict[str, Any], at: pd.Timestamp) -> None:
        """Each targeted webhook, in a project whose plan has webhooks (a snapshot holds none)."""
        created = format_timestamp(at.to_pydatetime())
        projects = {p["id"] for p in program.setdefault("projects", [])}
        hooks = program.setdefault("webhooks", [])
        for item in self.valid_items:
            project_id, webhook_id = item.columns["project_id"], item.to_send
            if project_id not in projects:
                projects.add(project_id)
                program["projects"].append(
                    {
                        "id": project_id,
                        "name": project_id,
                        "plan": {"webhooks": True},
                        "created_at": created,
                    }
                )
            hooks.append(
                {
                    "id": webhook_id,
                    "project_id": project_id,
                    "target_url": f"https://rehearsal.invalid/{webhook_id}",
                    "events": [],
                    "active": True,
                    "created_at": created,
                }
            )

    def field_for(self, item: PlanItem[str], error: APIError) -> str | None:
        if error.status == 402 or error.resource_type == "project":
            return "project_id"
        return "webhook_id" if error.status == 404 else None


def delete_tier_structures(tier_structures: Any) -> DeleteTierStructures:
    """Plan deleting tier structures: IDs, models, dicts or a DataFrame with ``id``."""
    items = id_items(
        tier_structures,
        IdPrefix.TIER_STRUCTURE,
        "tier_structure_id",
        "tier structure",
        lambda _: "delete tier structure",
    )
    return DeleteTierStructures(items)


def _webhook_pair(record: dict[str, Any]) -> tuple[Any, Any]:
    if "_tuple" in record and len(record["_tuple"]) == 2:
        return record["_tuple"]
    return record.get("project_id"), record.get("webhook_id", record.get("id"))


def delete_webhooks(webhooks: Any) -> DeleteWebhooks:
    """Plan deleting webhooks: ``(project_id, webhook_id)`` pairs, ``Webhook`` models
    (with ``project_id``), dicts or a DataFrame with ``project_id`` and ``webhook_id``/``id``."""
    records = as_records(webhooks, "webhook_id")
    pairs = [_webhook_pair(r) for r in records]
    targets = [f"{p}/{w}" for p, w in pairs]
    items: list[PlanItem[str]] = []
    for position, ((project_id, webhook_id), target, first) in enumerate(
        zip(pairs, targets, first_seen(targets), strict=True), start=1
    ):
        error, field = text_error(project_id, "project_id"), "project_id"
        if error is None:
            error, field = text_error(webhook_id, "webhook_id"), "webhook_id"
        if error is None and first is not None:
            error = f"same webhook as row {first} of this batch"
        items.append(
            PlanItem(
                target=target,
                summary="delete webhook configuration",
                payload=webhook_id,
                error=error,
                field=field if error else None,
                row=position,
                columns={"project_id": project_id, "webhook_id": webhook_id},
            )
        )
    return DeleteWebhooks(items)
