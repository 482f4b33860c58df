"""What a pull costs in calls: counted before it starts, and reported after.

The interface gives no totals: a list's length is known only by walking it, one call per
page of ``MAX_LIMIT`` (100) items, and one call even for an empty list. A pull costs:

- one token request for the client it builds (none for an async client holding a token);
- rewards, benefits, card definitions, tier structures and programs: one call per page of
  100 (at least one each);
- members: one call per page of 100 of each program's members (at least one per program);
- cards: one call per member, the member read that brings its cards (the member list does
  not carry them, and the interface has no other way to them);
- pending buckets: one call per page of 100 of each card's buckets (at least one per card);
- one call per card definition referenced but not returned by the list (read by ID).

``estimate`` walks the lists (their calls are counted as its own), so every figure but two
is exact: the cards of each member are known only by reading the member, so the bucket
lists are bounded by the member count times the most cards a member can hold (one per card
definition listed) unless the caller states a smaller ``cards_per_member`` or asks
``read_members`` (the estimate then reads each member, one call each, to count its cards);
and a card's buckets are taken to fit one page. That bound is far above what a pull meets
(few cards hold pending points), so ``read_sample`` reads that many members, drawn at
random, and projects the bucket lists from what they hold (``ProjectedLists``): the expected
figure with its 95 % interval, beside the bounds. Card definitions referenced only by cards
or buckets and not listed are not foreseen (one call each when the pull meets them).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from .._plans import Cycle
from .._text import about, figure
from ..frames.registry import FRAME_NAMES

__all__ = [
    "TREE",
    "ProjectedLists",
    "PullCalls",
    "PullEstimate",
    "budget_text",
    "pages",
    "wanted_kinds",
]

TREE = ("programs", "members", "cards", "pending_buckets")
"""The member tree's kinds, each needing the ones before it."""

LOW_BOUNDS = frozenset({"card_definitions_by_id"})
"""The parts that, when a bound, are a lower one: the pull reads every card definition the
lists reference but do not hold, and those only its cards and buckets reference besides."""


def wanted_kinds(kinds: Iterable[str] | None) -> frozenset[str]:
    """The frame names asked for: every one for None, one for a text (``"rewards"``), else
    those listed; ``ValueError`` naming an unknown one, or none at all."""
    if kinds is None:
        return frozenset(FRAME_NAMES)
    if isinstance(kinds, str) and kinds not in FRAME_NAMES:
        raise ValueError(
            f"kinds: unknown {kinds!r}; give one frame name as text or several as a list"
            f" (kinds=['rewards', 'benefits']); known: {', '.join(FRAME_NAMES)}"
        )
    asked = [kinds] if isinstance(kinds, str) else list(kinds)
    if not asked:  # a pull of nothing would still spend a call on its token
        raise ValueError(
            f"kinds: name at least one (None reads every one): {', '.join(FRAME_NAMES)}"
        )
    unknown = sorted(set(asked) - set(FRAME_NAMES))
    if unknown:
        raise ValueError(f"kinds: unknown {unknown}; known: {', '.join(FRAME_NAMES)}")
    return frozenset(asked)


def tree_depth(kinds: frozenset[str]) -> int:
    """How far down the member tree a pull of ``kinds`` must go (0: not at all)."""
    return max((TREE.index(k) + 1 for k in kinds if k in TREE), default=0)


def pages(items: int, per_page: int) -> int:
    """Calls to walk a list of ``items``: one per page, one for an empty list."""
    return max(1, -(-items // per_page))


def budget_text(remaining: int | None, limit: int | None, resets_at: datetime | None) -> str:
    """``remaining this window: R of L; resets at T`` (``4,689 of 5,000``: ``figure``), or
    that the budget is unknown."""
    if remaining is None:
        return "budget unknown (no limit headers seen yet)"
    when = "unknown" if resets_at is None else f"{resets_at:%Y-%m-%d %H:%M:%S} UTC"
    of = "" if limit is None else f" of {figure(limit)}"
    return f"remaining this window: {figure(remaining)}{of}; resets at {when}"


@dataclass(frozen=True)
class PullCalls:
    """Calls a pull sent, and the budget its client read from the last answer."""

    used: int
    remaining: int | None = None
    limit: int | None = None
    resets_at: datetime | None = None
    windows: tuple[int, ...] = ()
    """A paced pull: the calls it sent in each budget window, in order (empty otherwise)."""
    recalled: int = 0
    """A checkpointed pull: the answers its checkpoint gave back instead of a call."""

    def __str__(self) -> str:
        text = f"calls used: {figure(self.used)}"
        if len(self.windows) > 1:
            text += f" over {figure(len(self.windows))} windows"
        if self.recalled:
            text += f" (and {self.recalled:,} answers from the checkpoint)"
        return f"{text}; {budget_text(self.remaining, self.limit, self.resets_at)}"


@dataclass(frozen=True)
class ProjectedLists:
    """The bucket lists a pull will walk, projected from ``members`` read of those listed,
    drawn at random: ``expected`` and its 95 % interval ``low`` to ``high`` (the lists of the
    cards read are counted as they are, the rest at the rate those members showed)."""

    expected: int
    low: int
    high: int
    members: int


@dataclass(frozen=True)
class PullEstimate:
    """Calls a pull of ``kinds`` will make, per part, and the calls counting them took.

    ``parts`` maps a part (``token``, ``rewards``, ..., ``pending_buckets``) to its calls;
    ``bounds`` names the parts that are not exact: the bucket lists, an upper bound, and the
    card definitions read by ID once cards are read, a lower bound (cards and buckets may
    reference more; see the module's notes); ``exact`` is True when none is a bound.
    ``complete`` is False when even the lists did not fit in the estimate's share of the
    budget: it stopped there and ``parts`` holds what it counted. ``spent`` is what the
    estimate itself sent; ``remaining``/``limit``/``resets_at`` the budget the client read
    after it; ``share`` the share of the window a pull keeps to and ``allowed`` the calls
    that share held at the estimate's end (None while the budget is unknown), of what the
    window held for it: the calls it had when the estimate began less ``others``, those the
    project's other traffic spent meanwhile (at least).
    """

    kinds: frozenset[str]
    parts: dict[str, int] = field(default_factory=dict)
    exact: bool = True
    spent: int = 0
    remaining: int | None = None
    limit: int | None = None
    resets_at: datetime | None = None
    bounds: frozenset[str] = frozenset()
    complete: bool = True
    share: float = 1.0
    allowed: int | None = None
    others: int = 0
    cycle: Cycle | None = None
    """The project's billing cycle, when known (``Quota.cycle``): the text says what share
    of it the pull takes at least (a pull paced over many windows may take much of it)."""
    projected: ProjectedLists | None = None
    """The bucket lists projected from a random sample of members read (``read_sample``),
    None when none was read: ``expected`` and ``interval`` then give the whole pull's."""

    @property
    def expected(self) -> int | None:
        """The calls the pull is expected to make, its bucket lists projected from the members
        read (``projected``); None without them."""
        projected = self.projected
        return None if projected is None else self._beside_lists() + projected.expected

    @property
    def interval(self) -> tuple[int, int] | None:
        """The 95 % interval of ``expected``: its low and high ends (None without it)."""
        projected = self.projected
        if projected is None:
            return None
        rest = self._beside_lists()
        return rest + projected.low, rest + projected.high

    def _beside_lists(self) -> int:
        """The calls of every part but the bucket lists, bounds as counted."""
        return sum(n for part, n in self.parts.items() if part != "pending_buckets")

    @property
    def calls(self) -> int:
        """The parts summed: the calls the pull will make when ``exact``; else at most when
        every bound is an upper one (the bucket lists), at least when every bound is a lower
        one (the card definitions read by ID), and neither when both are (``at_least`` is
        then the least); at least, when not ``complete``."""
        return sum(self.parts.values())

    @property
    def at_least(self) -> int:
        """Calls the pull will make at least: the parts that are exact or a lower bound."""
        return sum(
            n for part, n in self.parts.items() if part not in self.bounds or part in LOW_BOUNDS
        )

    @property
    def fits(self) -> bool | None:
        """Whether a pull's share of the window's remaining budget holds the pull: True when
        ``calls`` does (unless cards or buckets reference card definitions the lists do not
        hold, one call each, when those are a bound), False when ``at_least`` does not (or the lists
        alone did not); None while the budget is unknown or only part of ``calls`` fits."""
        if self.remaining is None:
            return None
        allowed = math.floor(self.share * self.remaining)
        if not self.complete or self.at_least > allowed:
            return False
        return True if self.calls <= allowed else None

    def __str__(self) -> str:
        """Every figure with thousands separators (``at least 20,215``)."""
        budget = budget_text(self.remaining, self.limit, self.resets_at)
        if not self.complete:
            others = (
                f" (other traffic spent at least {self.others:,} calls of the window meanwhile)"
                if self.others
                else ""
            )
            allowed = "an unknown number of" if self.allowed is None else f"{self.allowed:,}"
            return (
                f"calls needed: more than {self.spent:,}: the lists alone do not fit in the "
                f"share ({self.share:g}) of the budget the estimate keeps to, "
                f"{allowed} calls{others}; {budget}; it does not fit"
            )
        share = f"a pull's share ({self.share:g})"
        fits = {
            None: "; whether it fits is unknown"
            if self.remaining is None
            else f"; {self.at_least:,} fits in {share}, {self.calls:,} does not",
            False: f"; it does not fit in {share}",
            True: f"; it fits in {share} unless cards or buckets reference more card"
            " definitions (one call each)"
            if self._low_bounded
            else "",
        }[self.fits]
        cycle = f"; at least {self.cycle.share_of(self.at_least)}" if self.cycle else ""
        return (
            f"calls needed: {self._needed()} (estimate used {self.spent:,}); {budget}{fits}{cycle}"
        )

    @property
    def _low_bounded(self) -> bool:
        """Whether a part is a lower bound (the card definitions read by ID, once cards are
        read): ``calls`` is then no upper bound."""
        return bool(self.bounds & LOW_BOUNDS)

    def _needed(self) -> str:
        """The calls needed, each figure saying what it is: exact, at most (upper bounds
        only), at least (lower bounds only), or the least and the bounds summed, which bound
        neither way; then each bound part."""
        if self.exact:
            return f"{self.calls:,}"
        parts = ", ".join(
            f"{part} {'at least' if part in LOW_BOUNDS else 'at most'} {self.parts.get(part, 0):,}"
            for part in sorted(self.bounds)
        )
        if not self._low_bounded:
            total = f"at most {self.calls:,}, at least {self.at_least:,}"
        elif self.bounds <= LOW_BOUNDS:
            total = f"at least {self.calls:,}"
        else:
            total = (
                f"at least {self.at_least:,}; {self.calls:,} with each bound counted, which"
                " bounds the pull neither way"
            )
        return f"{self._expected_text()}{total} (bounds: {parts})"

    def _expected_text(self) -> str:
        """``about E (95 % L to H, from N members read); `` with bucket lists projected, the
        figures to three significant figures (the interval's ends rounded outwards)."""
        projected, expected, interval = self.projected, self.expected, self.interval
        if projected is None or expected is None or interval is None:
            return ""
        low, high = interval
        read = projected.members
        return (
            f"about {about(expected)} (95 % {about(low, math.floor)} to"
            f" {about(high, math.ceil)}, from {read:,} member{'s' * (read != 1)} read); "
        )
