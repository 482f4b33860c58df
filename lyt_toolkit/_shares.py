"""A work's share of a call budget in calls, and the least share a paced work can run on.

A token lasts no longer than a window (the sandbox's an hour, as its window), so each window
a paced work goes on in may begin with a token request (``TOKEN_CALLS``). A share of a whole
window that holds no call beside it (``PACED_CALLS``) never ends the work: each window would
spend it on a new token, and the call that token serves would wait for the next window, where
the token has lapsed again (``client.paced_floor`` refuses such a share).
"""

from __future__ import annotations

import math
from decimal import Decimal

TOKEN_CALLS = 1
"""The token request a window of a paced work may begin with: a token lasts no longer than a
window."""

PACED_CALLS = TOKEN_CALLS + 1
"""The calls a paced work's share of a whole window must hold: a token request and the call
it serves."""


def share_of(remaining: int, share: float) -> int:
    """The calls ``share`` of ``remaining`` allows (rounded down, never below 0): a pull's
    allowance and a plan's cost take it alike."""
    return max(0, math.floor(share * remaining))


def paces(share: float, limit: int | None) -> bool:
    """Whether ``share`` of a window of ``limit`` calls (None: not known) can pace a work."""
    return limit is None or share_of(limit, share) >= PACED_CALLS


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


def plain_share(share: float) -> str:
    """``share`` as a plain decimal (``0.00002``, never ``2e-05``: a command line turns
    ``budget_share=0.2`` into its option, ``cli_words``)."""
    return format(Decimal(repr(share)), "f")
