"""The least share of a window a paced work can run on: a token request and the call it serves.

A token lasts no longer than a window (the sandbox's an hour, as its window), so each window
a paced work goes on in may begin with a token request (``TOKEN_CALLS``). A share of a whole
window that holds no call beside it never ends the work: each window would spend it on a new
token, and the call that token serves would wait for the next window, where the token has
lapsed again. Such a share is refused before the work sends a call of its own
(``PacedShareTooSmall``, naming ``budget_share`` and ``least_share``, the smallest that works
on the plan); with the budget not known yet, once the first answer tells it.
"""

from __future__ import annotations

import math
from decimal import Decimal

from .._text import counted
from ..errors import LytError, share_of

__all__ = ["TOKEN_CALLS", "PacedShareTooSmall", "check_paced_share", "least_share"]

TOKEN_CALLS = 1
"""The token request a window of a paced work may begin with: a token lasts no longer than a
window."""

PACED_CALLS = TOKEN_CALLS + 1
"""The calls a paced work's share of a whole window must hold: a token request and the call
it serves."""


def least_share(limit: int) -> float | None:
    """The smallest share, to two significant digits, whose part of a window of ``limit``
    calls holds ``PACED_CALLS``; None when no share does (fewer calls a window)."""
    if limit < PACED_CALLS:
        return None
    digits = 1 - math.floor(math.log10(PACED_CALLS / limit))
    scale = 10**digits
    units = -(-PACED_CALLS * scale // limit)  # rounded up
    while share_of(limit, units / scale) < PACED_CALLS:  # a float a hair low
        units += 1
    return min(1.0, units / scale)


def check_paced_share(share: float, limit: int | None) -> None:
    """``PacedShareTooSmall`` when ``share`` of a window of ``limit`` calls (None: not known,
    nothing refused) cannot hold a token request and the call it serves."""
    if limit is not None and share_of(limit, share) < PACED_CALLS:
        raise PacedShareTooSmall(share, limit)


class PacedShareTooSmall(LytError, ValueError):
    """A paced work refused before its calls: ``share`` of a window of ``limit`` calls cannot
    hold a token request and the call it serves, so it would never end (see the module).
    ``least`` is the smallest share that works on the plan (None: none does)."""

    def __init__(self, share: float, limit: int) -> None:
        self.share = share
        self.limit = limit
        self.least = least_share(limit)
        calls = share_of(limit, share)
        way = (
            f"use at least budget_share={_plain(self.least)} to pace this work"
            if self.least is not None
            else f"no share of a window of {counted(limit, 'call')} can pace a work"
        )
        super().__init__(
            f"budget_share={_plain(share)} of a window's {counted(limit, 'call')} is"
            f" {counted(calls, 'call')}, which cannot hold a token request and the call it"
            f" serves (a token lasts no longer than a window): {way}"
        )


def _plain(share: float) -> str:
    """``share`` as a plain decimal (``0.00002``, never ``2e-05``: a command line turns
    ``budget_share=0.2`` into its option, ``cli_words``)."""
    return format(Decimal(repr(share)), "f")
