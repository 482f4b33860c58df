"""A paced work's share refused when a whole window's part of it cannot hold a token request
and the call it serves (``_shares``: such a work never ends). It is refused before the work
sends a call of its own (``PacedShareTooSmall``, naming ``budget_share`` and ``least_share``,
the smallest that works on the plan); with the budget not known yet, once the first answer
tells it.
"""

from __future__ import annotations

from .._shares import TOKEN_CALLS, least_share, paces, plain_share, share_of
from .._text import counted
from ..errors import LytError

__all__ = ["TOKEN_CALLS", "PacedShareTooSmall", "check_paced_share", "least_share"]


def check_paced_share(share: float, limit: int | None, was: int | None = None) -> None:
    """``PacedShareTooSmall`` when ``share`` of a window of ``limit`` calls (None: not known,
    nothing refused) cannot hold a token request and the call it serves; ``was``, the budget
    the work's share paced under before (None: none yet), named when it differs."""
    if limit is not None and not paces(share, limit):
        raise PacedShareTooSmall(share, limit, was=None if was == limit else was)


class PacedShareTooSmall(LytError, ValueError):
    """A paced work refused before its calls: ``share`` of a window of ``limit`` calls cannot
    hold a token request and the call it serves, so it would never end (see the module).
    ``least`` is the smallest share that works on the plan (None: none does); ``was``, the
    budget the work paced under until the service's plan changed while it ran (None: it was
    refused before it paced): its calls sent stand, a logged work resumes from its log."""

    def __init__(self, share: float, limit: int, *, was: int | None = None) -> None:
        self.share = share
        self.limit = limit
        self.was = was
        self.least = least_share(limit)
        calls = share_of(limit, share)
        way = (
            f"use at least budget_share={plain_share(self.least)} to pace this work"
            if self.least is not None
            else f"no share of a window of {counted(limit, 'call')} can pace a work"
        )
        fell = (
            ""
            if was is None
            else f"the service's budget changed from {counted(was, 'call')} a window to"
            f" {limit:,} while this paced work ran (its calls sent before stand): "
        )
        super().__init__(
            f"{fell}budget_share={plain_share(share)} of a window's {counted(limit, 'call')} is"
            f" {counted(calls, 'call')}, which cannot hold a token request and the call it"
            f" serves (a token lasts no longer than a window): {way}"
        )
