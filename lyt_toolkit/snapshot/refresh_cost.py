"""What refreshing a snapshot costs, for each choice of members, shown before it runs.

A refresh (``ProgramSnapshot.refresh``) sends, whatever it is asked for: one token request;
the short lists re-read whole (card definitions, tier structures, programs, and benefits
while they are short), one call per page of 100 each; the rewards created since the old
snapshot's newest (one call per page of those, at least one); the card definitions read by
ID (as the old snapshot needed). Then, by ``members``:

- ``"none"``: each program's new members, listed (one call per page, at least one per
  program); none read;
- ``"new"``: the same, and each new member read (one call each) and the buckets of its
  cards holding pending points listed;
- ``"all"``: every program's members listed whole, every member read and the buckets of
  each card holding pending points listed;
- a ``Sample``: the new members listed, the sample's members (of old and new) read, and
  their buckets listed.

The list sizes come from the old snapshot (a short list whose size changed since costs a
page more or less), the new rewards and members from a probe that lists them (its calls
are ``spent``). The bucket lists are known only once the members are read: they are
counted as the old snapshot saw them (its share of cards holding pending points), so
``bucket_lists`` is an expectation (new members may hold pending points more often than the
old ones did), and ``at_most`` counts one per card a member can hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from .._text import counted
from .cost import budget_text

__all__ = ["RefreshChoice", "RefreshCost"]


@dataclass(frozen=True)
class RefreshChoice:
    """The calls of one choice of ``members``: ``lists`` (the token, every list page and the
    card definitions read by ID) and ``reads`` (one per member read) exactly, about
    ``bucket_lists`` and at most ``bucket_bound`` (one per card a member read can hold, one
    per card definition)."""

    members: str
    lists: int
    reads: int
    bucket_lists: int
    bucket_bound: int = 0

    @property
    def at_most(self) -> int:
        """Every call the choice sends at most (each of a card's buckets in one page)."""
        return self.lists + self.reads + max(self.bucket_lists, self.bucket_bound)

    @property
    def calls(self) -> int:
        """Every call the choice sends, the bucket lists as expected."""
        return self.lists + self.reads + self.bucket_lists


@dataclass(frozen=True)
class RefreshCost:
    """Each choice's calls (``choices``, by the ``members`` value that asks for it), what the
    probe found (``new_members``, ``new_rewards``) and ``spent``, and the budget: ``allowed``
    is the refresh's share of the calls left in the window (None: no limit)."""

    choices: Mapping[str, RefreshChoice]
    new_members: int
    new_rewards: int
    spent: int
    remaining: int | None = None
    limit: int | None = None
    resets_at: datetime | None = None
    share: float = 0.5
    allowed: int | None = field(default=None)

    def fits(self, members: str) -> bool | None:
        """Whether the choice ``members`` fits in the refresh's share (None: no limit known)."""
        if self.allowed is None:
            return None
        return self.choices[members].calls <= self.allowed

    def __str__(self) -> str:
        lines = [
            f"Refresh: {counted(self.new_members, 'new member')} and "
            f"{counted(self.new_rewards, 'new reward')} found ({counted(self.spent, 'call')} "
            "spent finding them)"
        ]
        for name, choice in self.choices.items():
            fits = self.fits(name)
            verdict = "" if fits is None else ("; fits" if fits else "; over the share")
            lines.append(
                f"  members={name:<12} {choice.calls:>7,} calls ({choice.lists:,} lists, "
                f"{choice.reads:,} member reads, about {choice.bucket_lists:,} bucket lists; "
                f"at most {choice.at_most:,}){verdict}"
            )
        share = f"{self.share:.0%} share: " if self.allowed is not None else ""
        allowed = "" if self.allowed is None else f"{self.allowed:,} calls; "
        lines.append(
            f"  budget: {share}{allowed}{budget_text(self.remaining, self.limit, self.resets_at)}"
        )
        return "\n".join(lines)
