"""Rewards: list, read, and move an ACTIVE reward back to DRAFT."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request, Response

from ...models.enums import RewardStatus
from ...models.ids import IdPrefix
from ...models.listing import REWARDS
from ..errors import conflict
from ..loader import store_resource
from ..state import SandboxState, get_state
from .common import PAGING, id_path, list_answer, loyalty_router, require

router = loyalty_router("/rewards")

RewardPath = Annotated[str, id_path(IdPrefix.REWARD, "reward ID")]


@router.get("", dependencies=[PAGING])
def list_rewards(request: Request, state: SandboxState = Depends(get_state)) -> Response:
    return list_answer(request, state, "rewards", REWARDS)


@router.get("/{rewardId}")
def get_reward(rewardId: RewardPath, state: SandboxState = Depends(get_state)) -> dict[str, Any]:
    return require(state, "rewards", rewardId, "reward")


@router.post("/{rewardId}/draft")
def draft_reward(rewardId: RewardPath, state: SandboxState = Depends(get_state)) -> dict[str, Any]:
    """ACTIVE -> DRAFT; from any other status the reward is left alone and 409 answered."""
    with state.store.transaction():
        doc = require(state, "rewards", rewardId, "reward")
        if doc["status"] != RewardStatus.ACTIVE:
            raise conflict(
                f"Reward {rewardId} is {doc['status']}; only an ACTIVE reward can move to DRAFT",
                "invalid_status",
            )
        doc.update(status=RewardStatus.DRAFT.value, updated_at=state.now_iso())
        return store_resource(state.store, "rewards", doc)
