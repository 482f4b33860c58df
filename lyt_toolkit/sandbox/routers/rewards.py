"""Rewards: list, read, and move an ACTIVE reward back to DRAFT."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Request, Response

from ...models import Page, Reward
from ...models.ids import IdPrefix
from ...models.listing import REWARDS
from ..deps import StateDep
from ..services import rewards
from ..services.lookup import require
from .common import PAGING, id_path, list_answer, loyalty_router

router = loyalty_router("/rewards")

RewardId = Annotated[str, id_path(IdPrefix.REWARD, "rewardId", "reward ID")]


@router.get("", dependencies=[PAGING], response_model=Page[Reward])
def list_rewards(request: Request, state: StateDep) -> Response:
    return list_answer(request, state, "rewards", REWARDS)


@router.get("/{rewardId}", response_model=Reward)
def get_reward(reward_id: RewardId, state: StateDep) -> dict[str, Any]:
    return require(state, "rewards", reward_id, "reward")


@router.post("/{rewardId}/draft", response_model=Reward)
def draft_reward(reward_id: RewardId, state: StateDep) -> dict[str, Any]:
    """ACTIVE -> DRAFT; from any other status the reward is left alone and 409 answered."""
    return rewards.draft_reward(state, reward_id)
