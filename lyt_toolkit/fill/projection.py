"""A pull's bucket lists projected from the members it has read so far.

Which cards hold pending points is known only once their members are read, so before the
member reads a pull cannot count its bucket lists. It reads its members in parts
(``next_part``): first ``PROBE`` of them, then each time as many as it has read, each part
drawn at random (seeded) from those still to read, so that what was read stands for the
rest. Before each part its budget projects the rest from what was read (``PendingRate``):
the pull stops when even a low bound of the bucket lists to come (``STOP_Z``) does not fit,
and a smaller sample it offers is counted at a high bound (``OFFER_Z``), so that, taken, it
fits and is not stopped in turn.

A sample's members still to read whose strata are known (those of the round under way) are
projected stratum by stratum (``StrataRate``): pending points are far from even over the
strata (on a generated program of 20,000 members, none of the inactive members' cards and
8 % to 61 % of the active members' by join date), and an adaptive sample's second round goes
where the points are, to the older members, who hold pending points less often than its
pilot (13 % against 20 %): projected at the pilot's rate, a sample that fits was stopped.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["OFFER_Z", "PROBE", "STOP_Z", "PendingRate", "StrataRate", "next_part"]

PROBE = 100
"""The members read before the first projection."""

STOP_Z = 2.0
"""The pull stops when the bucket lists' lower bound at this many standard errors (about 39
in 40 one-sided) does not fit: a pull that would fit is rarely stopped (an adaptive
sample's pilot holds pending points more often than its second round)."""

OFFER_Z = 2.5
"""A sample offered counts the bucket lists' upper bound at this many standard errors."""

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


@dataclass(frozen=True)
class StrataRate:
    """What the members read hold, stratum by stratum (``read``: a ``PendingRate`` each),
    and the members still to read in each stratum (``rest``); ``most``: the most cards
    holding pending points one member read holds (1 at least)."""

    read: Mapping[Hashable, PendingRate]
    rest: Mapping[Hashable, int]
    most: int = 1

    @classmethod
    def of(
        cls, read: Iterable[Hashable], holders: Iterable[Hashable], rest: Iterable[Hashable]
    ) -> StrataRate:
        """The stratum of each member ``read``, of the member of each card holding pending
        points (``holders``) and of each member still to read (``rest``)."""
        members, held, left = Counter(read), Counter(holders), Counter(rest)
        rates = {h: PendingRate(n, held[h]) for h, n in members.items()}
        return cls(rates, dict(left), max(held.values(), default=1))

    def lists_of(self, z: float) -> int:
        """The bucket lists of the members still to read, ``z`` standard errors above (below,
        for a negative ``z``) the sum of each stratum's rest at its own rate (rounded away
        from it). A stratum's spread is a proportion's (the rate read, and the members to come
        drawn at it), its share taken ``z**2 / 2`` holders nearer a half (Agresti-Coull), so
        that a stratum of few members all alike is not counted as certain; a stratum none
        of whose members was read counts ``most`` a member above and none below."""
        most, value, spread, unread = self.most, 0.0, 0.0, 0
        for stratum, left in self.rest.items():
            rate = self.read.get(stratum)
            if rate is None or rate.members == 0:
                unread += left
                continue
            n = rate.members
            value += left * rate.lists / n
            near = (rate.lists / most + z * z / 2) / (n + z * z)
            # the rate's spread, and that of the draw of the ``left`` to come at it
            spread += left * most**2 * near * (1 - near) * (left / n + 1)
        bound = value + z * math.sqrt(spread)
        if z > 0:
            return math.ceil(min(bound + unread * most, most * self.members) - 1e-9)
        return max(0, math.floor(bound + 1e-9))

    @property
    def members(self) -> int:
        """The members still to read."""
        return sum(self.rest.values())


def next_part(left: Sequence[T], read: int) -> list[T]:
    """The members to read next of those ``left``, ``read`` read so far: as many again
    (``PROBE`` at least), drawn at random, the draw seeded by ``read``; all when no more."""
    size = max(PROBE, read)
    if len(left) <= size:
        return list(left)
    picked = sorted(random.Random(read).sample(range(len(left)), size))
    return [left[i] for i in picked]
