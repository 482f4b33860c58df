"""Move rewards back to draft in bulk (only ACTIVE rewards can move; others answer 409)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import APIError, ConflictError
from ..models.enums import RewardStatus
from ..models.ids import IdPrefix
from ._targets import as_records, checked_ids
from .plan import ActionPlan, ItemResult, Outcome, PlanItem

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["MoveRewardsToDraft", "move_rewards_to_draft"]


class MoveRewardsToDraft(ActionPlan):
    """POST the draft endpoint of each reward; the target key is the reward ID."""

    action = "move_reward_to_draft"

    def perform(self, client: LoyaltyClient, item: PlanItem) -> ItemResult:
        reward = client.rewards.draft(item.target)
        return ItemResult(
            Outcome.SUCCEEDED, resource_id=reward.id, message=f"now {reward.status.value}"
        )

    def recover(self, client: LoyaltyClient, item: PlanItem, error: APIError) -> ItemResult | None:
        """A conflict after an interrupted attempt: done if the reward is now DRAFT."""
        if not isinstance(error, ConflictError):
            return None
        reward = client.rewards.get(item.target)
        if reward.status == RewardStatus.DRAFT:
            return ItemResult(
                Outcome.SUCCEEDED,
                resource_id=reward.id,
                message="moved to DRAFT by an interrupted earlier run",
            )
        return None


def move_rewards_to_draft(rewards: Any) -> MoveRewardsToDraft:
    """Plan moving rewards to draft: IDs, ``Reward`` models, dicts or a DataFrame with ``id``."""
    records = as_records(rewards, "id")
    checked = checked_ids(records, IdPrefix.REWARD, "reward_id", "reward")
    items = []
    for position, (record, (reward_id, error)) in enumerate(
        zip(records, checked, strict=True), start=1
    ):
        status = record.get("status")
        items.append(
            PlanItem(
                target=reward_id,
                summary="move to DRAFT"
                if status in (None, RewardStatus.ACTIVE)
                else f"move to DRAFT (now {status}: expect 409)",
                error=error,
                field="reward_id" if error else None,
                row=position,
                columns={"name": record.get("name")} if "name" in record else {},
            )
        )
    return MoveRewardsToDraft(items)
