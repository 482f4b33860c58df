"""A pull's share of the call budget, checked before each stage that reads one call per object.

A pull walks the lists first (one call per page of 100: rewards, benefits, card
definitions, tier structures, programs and each program's members). Their pages are the
cheap part, and once they are walked the rest is counted exactly: one read per member (the
read that brings its cards), then one bucket list per card holding pending points. Before
each of those stages the pull asks ``PullBudget.check`` whether the stage fits in what is
left of its share (``budget_share`` of the calls the window had left when it started); when
it does not, nothing of the stage is sent and ``PullBudgetError`` says what it needed, what
was left, when the window resets and each way forward with its cost. The ``Allowance`` the
budget holds refuses any call beyond the share in any case (a list longer than the share,
a bucket list of several pages, a share that shrank as other traffic spent the window), so
a pull never spends more than its share: stopped partway through a stage, it raises the
same error for the rest of the pull (``stopped``). The bucket lists are counted only once
the members are read, so between the parts of its member reads (``fill.projection``) the
pull projects them from the members read so far (``project``): when the rest plainly does
not fit, it stops there instead of spending its reads first, and a smaller sample it offers
is counted at what those members showed; stopped partway through its member reads, the pull
projects the calls it needs in all from the members read before (``stopped``: those of the
part under way answered before the stop included, ``QUOTED_FROM`` of them at least; with
fewer, it says why it gives no figure), at no call.
A pull of every member refused for its member reads names the estimate that tells its cost
first (``cost_first``: ``ProgramSnapshot.estimate(client, read_sample=100)``).

A paced pull waits for the windows it needs instead, but keeps to ``budget_share`` of the
project's billing cycle (``Quota.cycle``, when known): one needing more in all, its runs
together, is refused before its member reads (``CycleBudgetError``), and one under way stops
once the service's answers say the cycle's budget is spent (``cycle_stopped``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import replace

from .._shares import paces, share_of
from .._text import counted
from ..client.allowance import Allowance
from ..client.quota import Quota
from ..errors import CycleBudgetError, PullBudgetError, WayForward
from ..frames.registry import FRAME_NAMES
from ..frames.sample import Sample
from ..pull.member_tree import READ_STAGES
from ..snapshot.cost import TREE, wanted_kinds
from ..snapshot.defaults import DEFAULT_SHARE
from .projection import OFFER_Z, QUOTED_FROM, STOP_Z, PendingRate, projected_lists

__all__ = ["DEFAULT_SAMPLE", "ESTIMATE_READS", "READ_SAMPLE", "PullBudget"]

DEFAULT_SAMPLE = 1000
"""The sample size a refusal suggests at most (members read one by one)."""

READ_SAMPLE = 100
"""The members the estimate a refusal names reads (``read_sample``)."""

ESTIMATE_READS = (
    f"walks the lists again and reads {READ_SAMPLE} members drawn at random, one call each: the"
    " calls expected, with a 95 % interval; nothing is pulled"
)
"""What that estimate does, as a refusal says it (``cost_first``)."""


class PullBudget:
    """The allowance of one pull and what it needs to word a refusal; ``kinds`` as a pull
    takes them (``wanted_kinds``: one frame name as text, or several)."""

    def __init__(
        self,
        allowance: Allowance,
        quota: Quota,
        kinds: Iterable[str],
        asked: Sample | None = None,
    ) -> None:
        self.allowance = allowance
        self.quota = quota
        self.kinds = wanted_kinds(kinds)
        self.asked = asked
        """The sample a sampled pull asked for: a smaller one offered keeps its design."""
        self.stage = "lists"
        """The stage under way (named in a refusal)."""
        self.lists_calls = 0
        """Calls the lists took (token included), once they are all walked."""
        self.recalled = 0
        """List pages a checkpoint gave back instead of a call (a paced pull's earlier runs
        sent them)."""
        self.by_id = 0
        """Card definitions the lists reference but do not hold: one read each."""
        self.planned: int | None = None
        """The calls the whole pull needs at least, once the lists are walked: its member
        reads and, once those are read, its bucket lists, whoever answers them, but not the
        ``recalled`` list pages."""
        self._buckets_planned = False
        """Whether ``planned`` counts the bucket lists."""
        self.listed: int | None = None
        """Members listed, once the lists are walked; ``sample_size``: the sample size of a
        sampled pull."""
        self.sample_size: int | None = None
        self.drawn: Callable[[Sample], int] | None = None
        """The members a sample design reads of those listed (a stratum of two or more
        members gets two, so a small sample reads more than its ``n``); None: its ``n``."""
        self.reads = 0
        """The member reads the pull needs in all, once its first are checked."""
        self.rate: PendingRate | None = None
        """What the members read so far hold (None: none read yet): a sample offered is
        counted at it."""

    @property
    def buckets_planned(self) -> bool:
        """Whether ``planned`` counts the bucket lists (known once every member is read)."""
        return self._buckets_planned

    def lists_walked(self, by_id: int, recalled: int = 0) -> None:
        """Every list is walked: their calls are what has been spent so far, and the
        ``recalled`` pages a checkpoint gave back; ``by_id`` card definitions they reference
        are still to be read. Told again before a later stage (the bucket lists, a sample's
        second round), it changes nothing: the calls spent since are no list's."""
        if self.stage != "lists":
            return
        self.lists_calls = self.allowance.spent
        self.recalled = recalled
        self.by_id = by_id

    def check(self, level: str, needed: int, *, members: int, sampled: int | None) -> None:
        """Before the tree ``level`` (``cards`` or ``pending_buckets``) sends ``needed``
        calls at least: ``PullBudgetError`` when what is left of the share cannot hold them.
        ``members`` were listed; ``sampled`` is the sample size of a sampled pull."""
        self.stage = READ_STAGES[level]
        self.listed, self.sample_size = members, sampled
        if level == "cards":
            self.reads = needed
        elif not self._buckets_planned:  # known now: a paced pull's bar and a stop count them
            self._buckets_planned = True
            if self.planned is not None:
                self.planned += needed
        if self.planned is None:
            self.planned = self.allowance.spent + needed + self.by_id
        if self.allowance.paced:  # it waits for the windows it needs, within the cycle
            rest = needed + self.by_id
            if not self._within_cycle(self.lists_calls + self.recalled + rest):
                raise self._cycle_refusal(rest, members, sampled)
            return
        left = self.allowance.left
        if left is None or needed + self.by_id <= left:
            return
        raise self.refusal(needed + self.by_id, members=members, sampled=sampled)

    def project(self, rate: PendingRate, reads: int) -> None:
        """Before more member reads, ``reads`` of them still to send, ``rate`` what the
        members read hold: ``PullBudgetError`` (stopped during the member reads) when those
        reads, the bucket lists of the cards read and a low bound of those to come
        (``STOP_Z``) cannot fit in what is left of the share."""
        self.rate = rate
        left = self.allowance.left
        if self.allowance.paced or left is None:
            return
        needed = reads + rate.lists + rate.lists_of(reads, -STOP_Z) + self.by_id
        if needed <= left:
            return
        raise self.refusal(
            needed, members=self.listed, sampled=self.sample_size, projected=rate, unread=reads
        )

    def smaller_design(self, size: int) -> Sample | None:
        """A sample of ``size`` members of the design the pull asked for, or None when that
        is the default design (``sample=size`` says it)."""
        smaller = None if self.asked is None else replace(self.asked, n=size)
        return None if smaller == Sample(size) else smaller

    def _cycle_share(self) -> int | None:
        """The calls the pull's share of the billing cycle holds (None: the cycle unknown)."""
        cycle = self.quota.cycle
        return None if cycle is None else math.floor(self.allowance.share * cycle.calls)

    def _within_cycle(self, calls: int) -> bool:
        """Whether ``calls`` fit in the pull's share of the billing cycle (or it is unknown)."""
        share = self._cycle_share()
        return share is None or calls <= share

    def _cycle_refusal(self, rest: int, members: int, sampled: int | None) -> CycleBudgetError:
        """The refusal of a paced pull whose ``rest`` and what its runs walked before are
        more than its share of the billing cycle."""
        cycle = self.quota.cycle
        assert cycle is not None
        return CycleBudgetError(
            self.stage,
            needed=self.lists_calls + self.recalled + rest,
            share=self.allowance.share,
            cycle=cycle,
            sent=self.allowance.spent,
            ways=tuple(_elsewhere(way) for way in self._ways(rest, members, sampled)),
        )

    def cycle_stopped(self) -> CycleBudgetError:
        """The error for a paced pull stopped partway through ``stage`` because the service
        said the billing cycle's budget is spent (``CycleSpent``)."""
        return CycleBudgetError(
            self.stage,
            needed=self.allowance.rest(self.planned),
            share=self.allowance.share,
            cycle=self.quota.cycle,
            sent=self.allowance.spent,
            reached=True,
        )

    def refusal(
        self,
        needed: int,
        *,
        members: int | None = None,
        sampled: int | None = None,
        projected: PendingRate | None = None,
        unread: int = 0,
    ) -> PullBudgetError:
        """The error for a stop before ``stage``, which needs ``needed`` calls at least; or
        during it, the bucket lists ``projected`` from what the members read hold, ``unread``
        members still to read: the calls the pull needs in all are then expected, with a 95 %
        interval, its bucket lists projected as an estimate reading a sample projects them."""
        expected, interval = None, None
        if projected is not None:  # sent, and the reads still to send
            sure = self.allowance.spent + unread + self.by_id
            expected, interval = _in_all(projected, projected.members + unread, sure)
        return self.allowance.refusal(
            self.stage,
            needed,
            tuple(self._ways(needed, members, sampled)),
            limit=self.quota.limit,
            resets_at=self.quota.resets_at,
            during=projected is not None,
            projected=None if projected is None else (projected.members, projected.lists),
            expected=expected,
            interval=interval,
            cost_first=self.cost_first(sampled),
            census=self._census(members),
        )

    def stopped(self, read: PendingRate | None = None) -> PullBudgetError:
        """The error for a stop partway through ``stage``, the allowance spent: the rest of
        the pull needs what was planned less what was sent (one call at least). Stopped
        during the member reads of a pull of bucket lists, ``read`` what the members read
        hold (those of the part under way answered before the stop included, drawn at
        random), the calls it needs in all are projected from them when ``QUOTED_FROM`` or
        more were read, as a stop between its reads projects them (``refusal``): what was
        planned (the lists, every member read, the definitions by ID) and the bucket lists
        of every member at the rate those read showed; with fewer, the error says why it
        gives no figure (``not_projected``)."""
        rest = self.allowance.rest(self.planned)
        expected, interval, why = None, None, None
        if self.stage == READ_STAGES["cards"] and read is not None:
            if read.members >= QUOTED_FROM:
                self.rate = read  # a sample offered is counted at it too
                reads = max(self.reads, read.members)
                expected, interval = _in_all(read, reads, self.allowance.spent + rest)
            else:
                why = _too_few(read.members)
        return self.allowance.refusal(
            self.stage,
            rest,
            tuple(self._ways(rest, self.listed, self.sample_size)),
            limit=self.quota.limit,
            resets_at=self.quota.resets_at,
            during=True,
            expected=expected,
            interval=interval,
            not_projected=why,
            cost_first=self.cost_first(self.sample_size),
            census=self._census(self.listed),
        )

    def _census(self, members: int | None) -> tuple[int, int] | None:
        """``(asked, members)`` when the sample asked holds at least the ``members`` listed
        (it reads every one: a whole pull, ``PullBudgetError.census``); None otherwise."""
        asked = self.asked
        if asked is None or members is None or asked.n < members:
            return None
        return asked.n, members

    def cost_first(self, sampled: int | None) -> str | None:
        """The line naming the estimate that counts this pull's calls before it is tried
        again (``PullBudgetError.cost_first``), for a pull of every member (``sampled``
        None), not paced, refused for its member reads; None otherwise: the estimate counts
        no sample, and stopped during its lists or bucket lists a pull has nothing an
        estimate would tell first."""
        if self.stage != READ_STAGES["cards"] or sampled is not None or self.allowance.paced:
            return None
        named = [] if self.kinds == set(FRAME_NAMES) else [f"kinds={sorted(self.kinds)}"]
        share = self.allowance.share
        named += [] if share == DEFAULT_SHARE else [f"budget_share={share:g}"]
        arguments = ", ".join(["client", *named, f"read_sample={READ_SAMPLE}"])
        return f"To know the cost first: ProgramSnapshot.estimate({arguments}) ({ESTIMATE_READS})"

    def _ways(self, needed: int, members: int | None, sampled: int | None) -> Iterable[WayForward]:
        allowance = self.allowance
        lists = self.lists_calls
        if "card_definitions" in self.kinds:
            lists += self.by_id
        listed_only = sorted(self.kinds - set(TREE[2:]))
        if members is not None and listed_only and self.stage != "lists":
            yield WayForward(
                "the lists only, without cards and pending buckets",
                lists,
                f"kinds={listed_only}",
                argument=("kinds", listed_only),
            )
        held = self._next_share()
        if members is not None and held is not None and self.stage != "lists":
            size = self._offered(held - self.recalled - lists, members, sampled)
            if size >= 2:
                reads = self._reads(size)
                yield WayForward(
                    f"a sample of {counted(size, 'member')} (totals with 95 % intervals; "
                    f"at most, {self._counting()})",
                    lists + reads + self._lists_of(reads),
                    f"sample={self.smaller_design(size) or size!r}",
                    argument=("sample", size),
                )
        total = allowance.spent + needed
        known = self.stage != "lists"  # stopped during the lists, the rest is not counted yet
        pull = "the whole pull" if sampled is None else f"this pull of {counted(sampled, 'member')}"
        cycle = self.quota.cycle
        paceable = paces(allowance.share, self.quota.limit)  # else refused as too small
        if allowance.calls and paceable and self._within_cycle(total):
            windows = counted(self._windows(total, allowance.calls), "window")
            pace = (
                f"over at least {windows} at this share"
                if known
                else "over as many windows as it takes at this share (its cost is not known"
                " until its lists are walked; ProgramSnapshot.estimate counts it)"
            )
            of_cycle = f", taking {cycle.share_of(total)} or more" if known and cycle else ""
            yield WayForward(
                f"{pull}, paced {pace} and resumable (what it reads is kept in the"
                f" checkpoint folder){of_cycle}",
                total,
                "checkpoint='pull-checkpoint' (lyt export --checkpoint DIR)",
                at_least=True,
                argument=("checkpoint", "pull-checkpoint"),
            )
        available = allowance.available
        # Taken, the way sends the whole pull again, the calls this one spent included, from
        # what the window has left after them (and after the other traffic's since).
        if (
            known
            and allowance.share < 1
            and available is not None
            and total <= available - allowance.spent
        ):
            yield WayForward(
                f"{pull} now, with the whole window's budget (the project's other "
                "traffic is refused until the window resets)",
                total,
                "budget_share=1.0",
                at_least=True,
                argument=("budget_share", 1.0),
            )

    def _offered(self, room: int, members: int, sampled: int | None) -> int:
        """The sample offered: the largest whose reads and bucket lists (``_lists_of``) fit
        in ``room`` calls, below the sample asked; without members read, at most
        ``DEFAULT_SAMPLE``."""
        rate = self.rate
        per_read = 2.0 if rate is None else 1 + rate.per_member(OFFER_Z)
        cap = DEFAULT_SAMPLE if rate is None or sampled is None else sampled - 1
        size = self._fitting(min(cap, members, math.floor(room / per_read)))
        while size >= 2 and (reads := self._reads(size)) + self._lists_of(reads) > room:
            size -= 1  # the bound rounded up
        return size

    def _lists_of(self, reads: int) -> int:
        """The bucket lists of ``reads`` members, at most: one each without members read,
        else the high bound of what those read hold."""
        return reads if self.rate is None else self.rate.lists_of(reads, OFFER_Z)

    def _counting(self) -> str:
        """How a sample offered counts its bucket lists."""
        rate = self.rate
        if rate is None:
            return "with one card holding pending points a member"
        per = math.ceil(100 * rate.per_member(OFFER_Z))
        return (
            f"counting {per:,} bucket lists per 100 members where the {rate.members:,} members"
            f" read had {rate.lists:,} cards holding pending points"
        )

    def _reads(self, size: int) -> int:
        """The members a sample of ``size`` offered reads (``drawn``)."""
        if self.drawn is None:
            return size
        return self.drawn(self.smaller_design(size) or Sample(size))

    def _fitting(self, size: int) -> int:
        """The largest sample of at most ``size`` members whose reads are at most ``size``
        (1 when none of two or more is): a draw reads at least two a stratum."""
        if size < 2 or self._reads(size) <= size:
            return size
        low, high = 1, size  # low fits (or is the floor), high does not
        while high - low > 1:
            middle = (low + high) // 2
            if self._reads(middle) <= size:
                low = middle
            else:
                high = middle
        return low

    def _next_share(self) -> int | None:
        """The calls a pull taken next, in this window, holds (None: unknown): its share of
        what the window has left once this pull's calls are spent. A paced sample waits for
        windows too: only its share of the cycle bounds it."""
        allowance = self.allowance
        if allowance.paced:
            return self._cycle_share()
        available = allowance.available
        return None if available is None else share_of(available - allowance.spent, allowance.share)

    def _windows(self, total: int, first: int) -> int:
        """The fewest windows ``total`` calls take at this share: ``first`` in this one, then
        the share of each whole window after it (of ``first`` each when the limit is unknown)."""
        limit = self.quota.limit
        later = share_of(limit, self.allowance.share) if limit else first
        return 1 + math.ceil(max(0, total - first) / max(later, 1))


def _in_all(rate: PendingRate, members: int, sure: int) -> tuple[int, tuple[int, int]]:
    """The calls a pull needs in all and their 95 % interval: the ``sure`` ones (sent, and
    every call but the bucket lists still to send) and the bucket lists of its ``members``,
    projected from those read (``rate``) as an estimate reading a sample projects them."""
    lists = projected_lists(rate, members)
    return sure + lists.expected, (sure + lists.low, sure + lists.high)


def _too_few(read: int) -> str:
    """Why a pull stopped after ``read`` member reads (fewer than ``QUOTED_FROM``) quotes no
    figure for the calls it needs in all."""
    some = "no member was" if read == 0 else f"only {counted(read, 'member was', 'members were')}"
    return (
        f"{some} read before it stopped, and a 95 % interval of its bucket lists is projected"
        f" from {QUOTED_FROM} at least"
    )


def _elsewhere(way: WayForward) -> WayForward:
    """A paced pull's way forward as another pull: its checkpoint folder holds this one."""
    if way.argument is None:
        return way
    return replace(
        way, what=f"{way.what}, paced in another checkpoint folder (this one holds this pull)"
    )
