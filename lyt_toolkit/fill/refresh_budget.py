"""A refresh's share of the call budget: the pull's checks, with the refresh's ways forward.

A refresh keeps to ``budget_share`` of the calls left in the window as a pull does
(``PullBudget``): its lists first, then, before the member reads and the bucket lists, a
check that they fit; when they do not, nothing of the stage is sent and
``PullBudgetError`` names the refresh's own ways forward, each with its cost: the new
members only, no member (definitions and new members listed), a sample of the members, or
the whole window's budget. A sampled old snapshot takes neither of the first two (its cards
would mix sampled and unsampled members), so they are not offered for it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..client.allowance import Allowance
from ..client.quota import Quota
from ..errors import WayForward
from ..frames.sample import Sample
from .budget import PullBudget

__all__ = ["RefreshBudget"]


class RefreshBudget(PullBudget):
    """``PullBudget`` whose ways forward are ``refresh``'s ``members`` choices (``sampled``:
    the old snapshot is a sample, refreshed only whole or with a sample)."""

    def __init__(
        self,
        allowance: Allowance,
        quota: Quota,
        kinds: Iterable[str],
        members: str | Sample,
        *,
        sampled: bool = False,
    ) -> None:
        super().__init__(allowance, quota, kinds, members if isinstance(members, Sample) else None)
        self.members = members
        self.sampled = sampled
        self.new = 0
        """New members listed (once the member lists are walked)."""

    def cost_first(self, sampled: int | None) -> str | None:
        """None: the estimate counts a whole pull, not a refresh's reads of what is new."""
        return None

    def _ways(self, needed: int, members: int | None, sampled: int | None) -> Iterable[WayForward]:
        lists = self.lists_calls + self.by_id
        if members is not None and self.stage != "lists" and not self.sampled:
            if self.members != "new" and self.new:
                yield WayForward(
                    "the definitions and the new members, read with their cards (bucket "
                    "lists as they hold pending points)",
                    lists + self.new,
                    'members="new"',
                    at_least=True,
                    argument=("members", "new"),
                )
            if self.members != "none":
                yield WayForward(
                    "the definitions and the new members listed, none read (the cards and "
                    "pending buckets as the old snapshot holds them)",
                    lists,
                    'members="none"',
                    argument=("members", "none"),
                )
        for way in super()._ways(needed, members, sampled):
            if way.argument is None or way.argument[0] == "budget_share":
                yield way
            elif way.argument[0] == "sample":
                size = int(way.argument[1])
                design = self.smaller_design(size)
                how = f"members={design!r}" if design else f"members=Sample({size})"
                yield WayForward(way.what, way.calls, how, argument=("sample", size))
