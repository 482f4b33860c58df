"""Rewards: the one status change the interface offers, ACTIVE back to DRAFT."""

from __future__ import annotations

from typing import Any

from ...models.enums import RewardStatus
from ..errors import conflict
from ..state import SandboxState
from .lookup import change_status, require


def draft_reward(state: SandboxState, reward_id: str) -> dict[str, Any]:
    """ACTIVE -> DRAFT; from any other status the reward is left alone and 409 answered."""
    with state.store.transaction():
        doc = require(state, "rewards", reward_id, "reward")
        if doc["status"] != RewardStatus.ACTIVE:
            raise conflict(
                f"Reward {reward_id} is {doc['status']}; only an ACTIVE reward can move to DRAFT",
                "invalid_status",
            )
        return change_status(state, "rewards", doc, RewardStatus.DRAFT.value)
