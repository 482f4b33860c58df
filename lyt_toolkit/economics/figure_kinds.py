"""The snapshot kinds each headline figure counts, and so which figures a snapshot pulled
without some kinds (``ProgramSnapshot.pull(kinds=...)``, ``lyt export --kinds``) cannot give.

A figure that counts a kind not pulled is no finding: no pending bucket read is not none
pending, card definitions known by ID from the cards are not all of them, no reward pulled
is none mispriced, and a point valued without the rewards its costs buy (the exchange
ratio alone, or nothing) is not what it is worth. ``Economics.headline`` gives such a
figure as None and ``Economics.not_pulled`` says why.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..frames.registry import FRAME_NAMES

__all__ = ["FIGURE_KINDS", "not_pulled"]

_VALUES = ("rewards", "reward_costs", "card_definitions")  # what a point is worth
_OWED = (*_VALUES, "cards", "pending_buckets")  # the points owed, valued

FIGURE_KINDS: Mapping[str, tuple[str, ...]] = {
    "card_definitions": ("card_definitions",),
    "outstanding_points": ("cards",),
    "pending_points": ("pending_buckets",),
    "liability_low": _OWED,
    "liability_median": _OWED,
    "liability_high": _OWED,
    "unvalued_points": _OWED,
    "highest_effective_return": ("benefits", *_VALUES),
    "mispriced_rewards": _VALUES,
}
"""Headline figure -> the kinds it counts. A point's value is observed per card definition
(none has a value without them) from what the ACTIVE rewards' costs buy (``point_values``:
without the rewards and their costs only the exchange ratio is left); the points owed are
valued by it, the return is the earning benefits' rate times it, and a reward cost is
mispriced against its card definition's median value."""


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
