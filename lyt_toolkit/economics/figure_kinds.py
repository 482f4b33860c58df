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

__all__ = ["FIGURE_KINDS", "OBSERVED_FROM", "not_pulled", "not_pulled_reason"]

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


OBSERVED_FROM = ("rewards", "reward_costs")
"""The kinds a point's value is observed from, which an override stands in for."""


def not_pulled_reason(counted: Collection[str], kinds: Collection[str]) -> str | None:
    """``"rewards, reward_costs not pulled"``: the kinds of ``counted`` not among ``kinds``,
    in the snapshot's order; None when every one is held."""
    missing = [kind for kind in FRAME_NAMES if kind in counted and kind not in kinds]
    return f"{', '.join(missing)} not pulled" if missing else None


def not_pulled(kinds: Collection[str], overridden: Collection[str] = ()) -> dict[str, str]:
    """Headline figure -> why a snapshot holding only ``kinds`` cannot give it (``"rewards,
    reward_costs not pulled"``, the kinds in the snapshot's order), for each figure counting
    a kind not among them; empty when every kind a figure counts is held. A figure
    ``overridden`` (its card definitions all valued by the user's override:
    ``unobserved.overridden``) counts no rewards nor reward costs."""
    out = {}
    for figure, counted in FIGURE_KINDS.items():
        if figure in overridden:
            counted = tuple(kind for kind in counted if kind not in OBSERVED_FROM)
        reason = not_pulled_reason(counted, kinds)
        if reason is not None:
            out[figure] = reason
    return out
