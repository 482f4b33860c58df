"""The snapshot kinds each headline figure counts, and so which figures a snapshot pulled
without some kinds (``ProgramSnapshot.pull(kinds=...)``, ``lyt export --kinds``) cannot give.

A figure that counts a kind not pulled is no finding: no pending bucket read is not none
pending, card definitions known by ID from the cards are not all of them, no reward pulled
is none mispriced. ``Economics.headline`` gives such a figure as None and
``Economics.not_pulled`` says why.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..frames.registry import FRAME_NAMES

__all__ = ["FIGURE_KINDS", "not_pulled"]

_VALUED = ("card_definitions", "cards", "pending_buckets")  # points and what they are worth

FIGURE_KINDS: Mapping[str, tuple[str, ...]] = {
    "card_definitions": ("card_definitions",),
    "outstanding_points": ("cards",),
    "pending_points": ("pending_buckets",),
    "liability_low": _VALUED,
    "liability_median": _VALUED,
    "liability_high": _VALUED,
    "unvalued_points": _VALUED,
    "highest_effective_return": ("benefits", "card_definitions"),
    "mispriced_rewards": ("rewards", "reward_costs"),
}
"""Headline figure -> the kinds it counts: the points owed are valued per card definition
(none has a value without them), the return is the earning benefits' rate times that value,
the mispricing is of the rewards' costs."""


def not_pulled(kinds: Collection[str]) -> dict[str, str]:
    """Headline figure -> why a snapshot holding only ``kinds`` cannot give it (``"rewards,
    reward_costs not pulled"``, the kinds in the snapshot's order), for each figure counting
    a kind not among them; empty when every kind a figure counts is held."""
    out = {}
    for figure, counted in FIGURE_KINDS.items():
        missing = [kind for kind in FRAME_NAMES if kind in counted and kind not in kinds]
        if missing:
            out[figure] = f"{', '.join(missing)} not pulled"
    return out
