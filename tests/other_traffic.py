"""Another client of the project spending the window while the code under test runs: the
tests' request hooks call ``spend`` once the code has sent what they wait for (a member
read, ``member_read``; a write)."""

from __future__ import annotations

import httpx

from lyt_toolkit.client import LoyaltyClient


def spend(other: LoyaltyClient, calls: int) -> None:
    """``calls`` of the window spent by ``other``, another client of the project (reads)."""
    before = other.quota.calls_used
    while other.quota.calls_used - before < calls:
        other.programs.list(limit=1)
    assert other.quota.calls_used - before == calls


def member_read(request: httpx.Request) -> bool:
    """Whether ``request`` reads one member (``.../members/ID``)."""
    return request.url.path.split("/")[-2] == "members"
