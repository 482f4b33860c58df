"""A ``frame()`` read's share of the call budget, written once for every resource.

A frame walks a whole list (or, program-wide, a program's member tree) in one call of the
user's, so unlike ``iter``/``pages`` (driven page by page by the caller) it holds a share
of the calls left in the window (``Quota.allowance``): a stage it cannot hold is refused
before any of it is sent, and a stop partway through one (the list longer than the share,
or the share shrunk as other traffic spent the window) is worded as a pull's. Both are a
``PullBudgetError`` naming the paced pull that reads the same frame across windows.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ...errors import PullBudgetError, WayForward
from ..allowance import AllowanceSpent

if TYPE_CHECKING:
    from ..allowance import Allowance
    from ..quota import Quota

__all__ = ["FrameShare", "frame_share"]


class FrameShare:
    """A frame's share of the call budget (``allowance``) while it reads the ``kind`` frame
    (``of``: the rows it keeps of a snapshot's frame, e.g. one program's, for the way
    forward). ``begin`` names each stage and refuses one the share cannot hold."""

    def __init__(self, allowance: Allowance, quota: Quota, kind: str, of: str) -> None:
        self.allowance = allowance
        self.quota = quota
        self.kind = kind
        self.of = of
        self.stage = "lists"
        self.planned: int | None = None
        """The calls sent so far and those the stage under way needs, once it started."""

    def begin(self, stage: str, needed: int) -> None:
        """Start ``stage``, which needs ``needed`` calls at least: refused, nothing of it
        sent, when the share does not hold them."""
        left = self.allowance.left
        self.stage, self.planned = stage, self.allowance.spent + needed
        if left is not None and needed > left:
            raise self.refusal(needed)

    def refusal(self, needed: int, *, during: bool = False) -> PullBudgetError:
        """The stop before the stage under way (or ``during`` it), the rest needing
        ``needed`` calls at least."""
        return self.allowance.refusal(
            self.stage,
            needed,
            (self.way(self.allowance.spent + needed),),
            limit=self.quota.limit,
            resets_at=self.quota.resets_at,
            during=during,
        )

    def way(self, calls: int) -> WayForward:
        """How to read the whole frame, ``calls`` at least: the paced pull of a snapshot's
        frame, else the frame again once the window resets (a whole window's share then)."""
        from ...frames.registry import FRAME_NAMES

        if self.kind not in FRAME_NAMES:
            return WayForward(
                f"the {self.kind} frame again once the window resets, its share then of a"
                " whole window",
                calls,
                f"client.{self.kind}.frame(...) after the reset",
                at_least=True,
            )
        return WayForward(
            f"the {self.kind} frame pulled paced, over as many windows as it takes at this"
            " share and resumable (what it reads is kept in the checkpoint folder)",
            calls,
            f"ProgramSnapshot.pull(client, kinds=[{self.kind!r}],"
            f" checkpoint='pull-checkpoint'), then {self.of}",
            at_least=True,
        )

    def stopped(self) -> PullBudgetError:
        """The stop partway through the stage under way, the share spent."""
        return self.refusal(self.allowance.rest(self.planned), during=True)


@contextmanager
def frame_share(quota: Quota, share: float, kind: str, of: str) -> Iterator[FrameShare]:
    """``share`` of the window held while a frame reads (see ``FrameShare``): a call its
    allowance refuses partway (``AllowanceSpent``) becomes the frame's stop. A ``ValueError``
    names ``budget_share`` when ``share`` is not above 0 and at most 1, nothing sent."""
    with quota.allowance(share) as allowance:
        held = FrameShare(allowance, quota, kind, of)
        try:
            yield held
        except AllowanceSpent:
            raise held.stopped() from None
