"""Which member trees a run's requests could have changed, from the requests themselves.

A write to a member's tree (its cards, their pending buckets) names the member in its path:
``.../programs/{programId}/members/{memberId}/...``. The other writes of the interface (a
token, a reward, a benefit, a tier structure, a webhook, a promotion tier's validation)
change no member's tree. A write of any other path might: then every tree counts as
written (``members`` is None). Reads (GET, HEAD, OPTIONS) write nothing.
"""

from __future__ import annotations

import re
import threading

import httpx

__all__ = ["READS", "TREELESS_WRITES", "WrittenMembers"]

READS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that change nothing."""

_MEMBER = re.compile(r"/programs/[^/]+/members/([^/]+)(?:/|$)")

TREELESS_WRITES = re.compile(
    r"/(?:v1/)?oauth/token$"
    r"|/v2/loyalties/(?:rewards|benefits|tier-structures)(?:/|$)"
    r"|/management/v1/projects/[^/]+/webhooks/"
    r"|/v1/promotions/tiers/[^/]+/validation$"
)
"""The paths of the writes that change no member's tree."""


class WrittenMembers:
    """An httpx request hook noting the members whose trees the requests sent (from any
    thread) could have changed."""

    def __init__(self) -> None:
        self._members: set[str] = set()
        self._any = False
        self._lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> None:
        if request.method.upper() in READS:
            return
        path = request.url.path
        member = _MEMBER.search(path)
        with self._lock:
            if member is not None:
                self._members.add(member.group(1))
            elif TREELESS_WRITES.search(path) is None:
                self._any = True

    @property
    def members(self) -> frozenset[str] | None:
        """The members written to; None when a write may have changed any member's tree."""
        with self._lock:
            return None if self._any else frozenset(self._members)
