"""A pull's bucket lists projected from the members it has read so far.

Which cards hold pending points is known only once their members are read, so before the
member reads a pull cannot count its bucket lists. It reads its members in parts
(``next_part``): first ``PROBE`` of them, then each time as many as it has read, each part
drawn at random (seeded) from those still to read and read in the order drawn, so that what
was read stands for the rest, a part's answers before a stop partway through it included
(``QUOTED_FROM`` of them at least). Before each part its budget projects the rest from what
was read (``PendingRate``):
the pull stops when even a low bound of the bucket lists to come (``STOP_Z``) does not fit,
and a smaller sample it offers is counted at a high bound (``OFFER_Z``), so that, taken, it
fits and is not stopped in turn. An estimate reading a sample of members
(``ProgramSnapshot.estimate(read_sample=...)``) projects the pull's bucket lists the same way,
at a two-sided 95 % interval (``projected_lists``).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ..frames.sample import Z_95, Sample, draw_sample
from ..pull.member_tree import holds_pending
from ..snapshot.cost import ProjectedLists

if TYPE_CHECKING:
    import pandas as pd

    from ..models import MemberWithCards

__all__ = [
    "OFFER_Z",
    "PROBE",
    "QUOTED_FROM",
    "STOP_Z",
    "PendingRate",
    "drawn_members",
    "next_part",
    "pending_holders",
    "projected_lists",
]

PROBE = 100
"""The members read before the first projection."""

STOP_Z = 2.0
"""The pull stops when the bucket lists' lower bound at this many standard errors (about 39
in 40 one-sided) does not fit: a pull that would fit is rarely stopped (an adaptive
sample's pilot holds pending points more often than its second round)."""

OFFER_Z = 2.5
"""A sample offered counts the bucket lists' upper bound at this many standard errors."""

QUOTED_FROM = 30
"""The fewest members read a stop partway through the member reads projects the calls a
pull needs in all from (``PullBudgetError.expected``), with their 95 % interval. Of 30 read,
the interval (``projected_lists``) held the true count in 93.9 % to 99.7 % of 1,000 simple
random samples on each of ten made-up programs of 20,000 members (1 % to 90 % of them holding
pending points, on one card or on one to three) and in 96.2 % on the 20,000-member generated
program, as of 50 or 100 read (90.0 % to 99.9 %); of 20, in 92.0 % at worst, of 10 in 78.0 %
(``benchmarks/stop_projection.py``): too few members read bound too loosely what one may
hold. 30 is also well above the reads in flight at a stop (the pull's ``concurrency``, 8 by
default), whose answers are lost."""

T = TypeVar("T")


@dataclass(frozen=True)
class PendingRate:
    """What the members read hold: ``members`` read, ``lists`` of their cards holding pending
    points (one bucket list each, at least), ``most`` such cards held by one member (1 at
    least)."""

    members: int
    lists: int
    most: int = 1

    @classmethod
    def of(cls, members: int, holders: Iterable[Hashable]) -> PendingRate:
        """Of ``members`` read, ``holders`` naming the member of each card holding pending
        points."""
        held = Counter(holders)
        return cls(members, sum(held.values()), max(held.values(), default=1))

    def per_member(self, z: float) -> float:
        """Bucket lists per member, bounded ``z`` standard errors above (below, for a
        negative ``z``) what was read: the Wilson score bound of the share of ``most`` a
        member holds (a count within 0 and ``most`` spreads at most as a proportion does)."""
        n = self.members
        if n == 0:
            return float(self.most) if z > 0 else 0.0
        share = self.lists / (n * self.most)
        z2 = z * z
        spread = z * math.sqrt(share * (1 - share) / n + z2 / (4 * n * n))
        bound = (share + z2 / (2 * n) + spread) / (1 + z2 / n)
        return self.most * min(1.0, max(0.0, bound))

    def lists_of(self, members: int, z: float) -> int:
        """The bucket lists of ``members`` more at the bound ``z`` (rounded away from what
        was read: up above it, down below it)."""
        calls = members * self.per_member(z)
        return math.ceil(calls - 1e-9) if z > 0 else math.floor(calls + 1e-9)


def next_part(left: Sequence[T], read: int) -> list[T]:
    """The members to read next of those ``left``, ``read`` read so far: as many again
    (``PROBE`` at least; all when no more), drawn at random, the draw seeded by ``read``, in
    the order drawn: those answered before a stop partway through the part are a random
    sample too, not the first in the order listed (a program, the earliest to join)."""
    return random.Random(read).sample(list(left), min(len(left), max(PROBE, read)))


def drawn_members(members: pd.DataFrame, size: int, seed: int = 0) -> set[str]:
    """The IDs of ``size`` of the ``members`` listed (a ``members_frame``; all when fewer),
    drawn as a sampled pull draws a simple random sample (``Sample(size, seed, by=())``)."""
    if members.empty:
        return set()
    design = draw_sample(members, Sample(size, seed, by=(), allocation="proportional"))
    return set(design.units["member_id"].astype(str))


def pending_holders(read: list[MemberWithCards]) -> list[tuple[str, str]]:
    """The member (program and member ID) of each card holding pending points of those
    ``read``: one bucket list each (``PendingRate.of``'s ``holders``)."""
    return [
        (m.program_id, m.id)
        for m in read
        for c in m.cards
        if c.card is not None and holds_pending(c.card)
    ]


def projected_lists(rate: PendingRate, listed: int) -> ProjectedLists:
    """The bucket lists of ``listed`` members, ``rate`` what those read of them hold (drawn at
    random): theirs as read, the rest's at that rate, its 95 % interval at the bounds
    ``PendingRate.per_member`` gives 1.96 standard errors either side."""
    rest = max(0, listed - rate.members)
    return ProjectedLists(
        rate.lists + round(rest * rate.per_member(0.0)),
        rate.lists + rate.lists_of(rest, -Z_95),
        rate.lists + rate.lists_of(rest, Z_95),
        rate.members,
    )
