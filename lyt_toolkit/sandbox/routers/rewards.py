"""Rewards: list, read, and move an ACTIVE reward back to DRAFT."""

from __future__ import annotations

from typing import Annotated

from fastapi import Request, Response

from ...models import Page, Reward
from ...models.ids import IdPrefix
from ...models.listing import REWARDS
from ..deps import state_of
from ..services import rewards
from ..store_reads import write_store
from .common import document_response, get_route, id_path, list_route, loyalty_router

router = loyalty_router("/rewards")

RewardId = Annotated[str, id_path(IdPrefix.REWARD, "rewardId", "reward ID")]


list_route(router, "", REWARDS, Page[Reward])
get_route(router, "/{rewardId}", REWARDS, Reward, RewardId)


@router.post("/{rewardId}/draft", response_model=Reward)
async def draft_reward(reward_id: RewardId, request: Request) -> Response:
    """ACTIVE -> DRAFT; from any other status the reward is left alone and 409 answered."""
    state = state_of(request)
    return document_response(await write_store(state.store, rewards.draft_reward, state, reward_id))
