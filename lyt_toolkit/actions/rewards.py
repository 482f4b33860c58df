"""Move rewards back to draft in bulk (only ACTIVE rewards can move; others answer 409)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import APIError, ConflictError
from ..models.enums import RewardStatus
from ..models.ids import IdPrefix
from ._targets import id_items
from .items import ItemResult, Outcome, PlanItem
from .plan import ActionPlan

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["MoveRewardsToDraft", "move_rewards_to_draft"]


class MoveRewardsToDraft(ActionPlan[str]):
    """POST the draft endpoint of each reward; the target key (and payload) is the reward ID."""

    action = "move_reward_to_draft"

    def perform(self, client: LoyaltyClient, item: PlanItem[str]) -> ItemResult:
        reward = client.rewards.draft(item.to_send)
        return ItemResult(
            Outcome.SUCCEEDED, resource_id=reward.id, message=f"now {reward.status.value}"
        )

    def recover(
        self, client: LoyaltyClient, item: PlanItem[str], error: APIError
    ) -> ItemResult | None:
        """A conflict after an interrupted attempt: done if the reward is now DRAFT."""
        if not isinstance(error, ConflictError):
            return None
        reward = client.rewards.get(item.to_send)
        if reward.status == RewardStatus.DRAFT:
            return ItemResult(
                Outcome.SUCCEEDED,
                resource_id=reward.id,
                message="moved to DRAFT by an interrupted earlier run",
            )
        return None


def _summary(record: Mapping[str, Any]) -> str:
    status = record.get("status")
    if status in (None, RewardStatus.ACTIVE):
        return "move to DRAFT"
    return f"move to DRAFT (now {status}: expect 409)"


def move_rewards_to_draft(rewards: Any) -> MoveRewardsToDraft:
    """Plan moving rewards to draft: IDs, ``Reward`` models, dicts or a DataFrame with ``id``."""
    return MoveRewardsToDraft(id_items(rewards, IdPrefix.REWARD, "reward_id", "reward", _summary))
