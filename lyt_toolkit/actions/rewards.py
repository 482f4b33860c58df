"""Move rewards back to draft in bulk (only ACTIVE rewards can move; others answer 409)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError
from ..models.enums import RewardStatus
from ..models.ids import IdPrefix
from ._listed import IDS_PER_READ, rewards_by_id
from ._read_once import ReadInChunks, chunk_reads
from ._targets import id_items
from .items import ItemResult, Outcome, PlanItem, Standing
from .plan import ActionPlan, Observer

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["MoveRewardsToDraft", "move_rewards_to_draft"]


class MoveRewardsToDraft(ActionPlan[str]):
    """POST the draft endpoint of each reward; the target key (and payload) is the reward ID."""

    action = "move_reward_to_draft"
    item_columns = {"name": "string"}
    rehearsal_kinds = frozenset({"rewards", "reward_costs"})
    settled_by = (ConflictError,)

    def perform(self, client: LoyaltyClient, item: PlanItem[str]) -> ItemResult:
        reward = client.rewards.draft(item.to_send)
        return ItemResult(
            Outcome.SUCCEEDED, resource_id=reward.id, message=f"now {reward.status.value}"
        )

    def observer(self, client: LoyaltyClient) -> Observer[str]:
        """Reads each reward's status: DRAFT is done, only ACTIVE can move. The plan's rewards
        are listed by ID, 99 a call, each listing once for all the items."""
        listed = ReadInChunks(self._reward_ids(), IDS_PER_READ, partial(rewards_by_id, client))

        def observe(item: PlanItem[str]) -> Standing:
            reward = listed.get(item.to_send).get(item.to_send)
            if reward is None:
                return Standing("fails: no such reward (404)")  # listed by ID, none held
            return _standing(reward.status, reward.id)

        return observe

    def preview_reads(self, items: list[PlanItem[str]]) -> int:
        """The listings ``observer`` sends for ``items``: one per 99 of the plan's rewards
        holding one of theirs (``IDS_PER_READ``)."""
        return chunk_reads(self._reward_ids(), IDS_PER_READ, (i.to_send for i in items))

    def _reward_ids(self) -> list[str]:
        return [item.to_send for item in self.valid_items]


def _standing(status: Any, reward_id: str | None = None) -> Standing:
    """What moving a reward in ``status`` to DRAFT does (``None``: status not known)."""
    if status in (None, RewardStatus.ACTIVE):
        return Standing("move to DRAFT")
    if status == RewardStatus.DRAFT:
        return Standing.already("already DRAFT", resource_id=reward_id)
    return Standing(
        f"fails: the reward is {status}; only ACTIVE rewards move to DRAFT (409)", refused=True
    )


def _summary(record: Mapping[str, Any]) -> str:
    return _standing(record.get("status")).will


def move_rewards_to_draft(rewards: Any) -> MoveRewardsToDraft:
    """Plan moving rewards to draft: IDs, ``Reward`` models, dicts or a DataFrame with ``id``.

    The preview tells from a ``status`` given with the input (or, with a client,
    from the service) which rewards are already DRAFT and which cannot move.
    """
    return MoveRewardsToDraft(id_items(rewards, IdPrefix.REWARD, "reward_id", "reward", _summary))
