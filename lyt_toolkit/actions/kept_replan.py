"""The plan a refresh makes again from the rows kept beside its log (``kept_reads``), made once
for those rows: a ``refresh=True`` cost re-plans from them to count the writes it drops
(``kept_dropped``), and the apply that follows on the same rows takes that plan up rather
than typing the rows and re-planning again (``SavedPlan._refreshed``). Before, ``lyt apply
--refresh`` after a stale refusal re-planned 800 kept cards three times: its check's cost, the
apply's own check, then the apply.

The plan is taken up only while all it was made from holds (``KeptKey``): the kept rows (their
file's sha256 and the keys they answer, those read too long ago let go first), the objects
left to read, every one answered by those rows (no call), the log's state for each part (its
writes done and refused for good; none in doubt, which a read back settles), and the service's
date the buckets are judged by. Anything else changed, and the plan is made again. Taken up,
it is let go: an apply runs it.

A client holding no token yet knows no service's date and judges by this machine's: a
service's date, not a sandbox's (its clock is its own). A refresh's check on a sandbox learns
its date first (``learn_date``), so its cost makes the plan once, by that date, not by this
machine's and then again by the sandbox's once the cost's budget read brought the token.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .log import LogOwner, LogSource, log_state
from .reread import ReadKeys, doubtful

if TYPE_CHECKING:
    import pandas as pd

    from ..client import LoyaltyClient
    from ..snapshot import ProgramSnapshot
    from .change_planner import Planned
    from .kept_reads import KeptReads
    from .plan import ActionPlan
    from .touched import Touched

__all__ = ["KeptKey", "KeptReplan", "Made", "kept_key", "learn_date"]

Made = tuple["ProgramSnapshot", "Planned"]
"""A plan made again: its base of the rows and the plan (``replan.replanned``'s)."""


@dataclass(frozen=True)
class KeptKey:
    """What a plan made again from kept rows was made from (see the module)."""

    kept: str
    """The sha256 of the kept rows' file ("" when there is none)."""
    held: frozenset[tuple[str, ...]]
    """The reads the kept rows answer (``ReadKeys``' keys), once those too old are let go."""
    left: tuple[tuple[str, str], ...]
    """Kind and key of each object left to read, in order."""
    log: tuple[tuple[str, frozenset[str], frozenset[str]], ...]
    """Each part's call, and the targets the log shows it made and refused for good."""
    today: dt.date
    """The service's date, by which the buckets are judged."""


def kept_key(
    parts: Sequence[ActionPlan[Any]],
    inputs: Any,
    log: LogSource | None,
    left: Sequence[Touched],
    kept: KeptReads,
    now: pd.Timestamp,
) -> KeptKey | None:
    """The key of a plan of ``parts`` (built from ``inputs``) made again from the rows
    ``kept`` holds of the objects ``left`` to read, the ``log`` as it is and the service's
    clock ``now``; None when it cannot be made from those rows alone: an object left that
    they do not answer (it is read), or a write the log holds in doubt (read back)."""
    kept.expire()  # in memory only: a row too old is read again
    read_key = ReadKeys(inputs)
    if not left or any(read_key(entry) not in kept.held for entry in left):
        return None
    states = [(part, log_state(log, part.action)) for part in parts]
    if any(doubtful(part, state) for part, state in states):
        return None
    return KeptKey(
        hashlib.sha256(kept.path.read_bytes()).hexdigest() if kept.path.is_file() else "",
        frozenset(kept.held),
        tuple((entry["kind"], entry["key"]) for entry in left),
        tuple(
            (part.action, frozenset(state.succeeded), frozenset(state.refused))
            for part, state in states
        ),
        now.date(),
    )


def learn_date(client: LoyaltyClient) -> None:
    """The date of ``client``'s sandbox known before a plan is made again by it: a client
    holding no token fetches it (the call its first call would send), whose answer tells the
    sandbox's clock (``reread.service_now``). Of a service, nothing is sent."""
    if not client.holds_token and LogOwner.of(client).instance is not None:
        client.fetch_token()


class KeptReplan:
    """The last plan made again from kept rows, held with its ``KeptKey``."""

    def __init__(self) -> None:
        self._made: tuple[KeptKey, Made] | None = None

    def made(self, key: KeptKey | None, replan: Callable[[], Made]) -> Made:
        """The plan held for ``key``, else ``replan()``'s, held for it (None: not held)."""
        if key is not None and self._made is not None and self._made[0] == key:
            return self._made[1]
        made = replan()
        self._made = None if key is None else (key, made)
        return made

    def taken(self, key: KeptKey | None) -> Made | None:
        """The plan held for ``key``, let go (None: none held for it)."""
        made, self._made = self._made, None
        if key is None or made is None or made[0] != key:
            return None
        return made[1]
