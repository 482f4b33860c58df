"""A paced apply of a saved plan, checked as it writes: a chunk of writes at a time, the
objects they need re-read and found not stale just before the chunk is sent.

Re-read whole before its first write, a paced apply at scale read most of its objects
windows before it wrote them, and each resume in a new window read every object still to
write again: at 20,000 members a plan activating 5,000 buckets re-read about 9,600 objects
where it announced 7,864, one window spending 1,606 re-reads on 884 writes. Checked a chunk
at a time, each object is re-read once, just before its writes, in the window they are sent
in: a chunk holds as many writes as what is left of this window's share holds with their
reads (``chunk_size``, from the calls they take: a card's bucket list may take pages), and
its reads wait for the next window rather than take the room
its writes need (``Allowance.holding_back``). The window a chunk goes in holds the token
request it brings too (``TOKEN_CALLS``): one in a new window (a token lasts no longer than a
window: the sandbox's an hour), or now when the client holds none. Before, a chunk sized to a
whole window's share left no room for the new window's token: its last write waited a window
more, sent an hour after its read.

The first stale chunk stops the apply before any of its writes: the error names what is
stale and what the log holds of the plan's writes (each checked just before it went), and
the rows just read are kept beside the log (``kept_reads``) for ``refresh=True`` to re-plan
the rest from. When they are every object left to read, all read by this run, the plan made
again from them is saved for review as an unpaced refusal saves it (``NAME.refreshed.json``:
the plan's own writes made left out); else the error says why not and what
each way on costs in calls (``staleness.ChunkStop``). A chunk's rows are kept as read until
it is found not stale, so a re-read stopped part way (Ctrl-C, a Cancel while it waits for the
next window) is taken up by the next run within ``KEPT_FOR``; once its writes start they are
not kept, and a run resumed then reads the rest afresh.

An object several chunks need (the card definition many creates point at, a listing of names
or rewards a chunk boundary cuts) is re-read for each of them, just before its writes, so no
write is checked against a read older than its chunk; the cost counts it so
(``reads_as_chunked``: the chunks cut as the apply will cut them from the window's share left
now), and the cost is what the apply sends. A write the plan knows the service refuses
(``known_refused``) takes its read back in its chunk's window beside it, in the cost's cuts
and the apply's alike; before, the cost cut as if each write were one call, the apply's
window held the reads back too, and the two cut apart (at 20,000 members a resumed paced
refresh said 298 re-reads and sent 301).

A paced ``refresh=True`` goes a chunk at a time too: each chunk's writes are re-planned from
the rows just read, as a refresh plans them (``replan``; ``planned_part``), and sent, so it
writes in each window its share holds a chunk's reads and writes in. Before, it re-read every
object left before its first write and kept none of those reads once that re-read ended: a
run stopped and run again in each window (a scheduled job) re-read the same objects each time
and never wrote. The rows a refusal kept answer each chunk (each chunk's used up as it is
re-planned, ``KeptReads.drop``) while the service shows no call of the project but the
apply's since its first chunk's read, up to the moment the chunk is re-planned (asked
before its reads and after them: another's call heard as they went, the kept rows it took
up are read afresh); a later chunk that waits for the next window reads its own there, as
nothing heard across a window's end can be told. Before, they answered the first chunk only.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Mapping, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._shares import share_of
from ..client.paced_floor import TOKEN_CALLS
from .change_rows import refused_keys
from .items import Outcome
from .log import LogState
from .plan import ActionPlan
from .reread import needed_by, read_keys, reread_calls

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from .log import LogSource
    from .touched import Touched

__all__ = [
    "CHUNK_MOST",
    "TOKEN_CALLS",
    "ChunkAhead",
    "chunk_size",
    "in_order",
    "known_refused",
    "not_reached",
    "part_of",
    "planned_part",
    "reads_as_chunked",
    "share_of_window",
    "to_send",
    "waits_for_window",
]

CHUNK_MOST = 99
"""The writes a chunk holds at most: as many rewards as one listing re-reads. Beside them,
the window a chunk goes in holds the token request it brings (``TOKEN_CALLS``): in a new
window, and now when the client holds no token."""


def _room_now(left: int | None, token_held: bool) -> int | None:
    """The calls a chunk may take of the ``left`` calls of this window's share, the token
    request taken off when no token is held (``token_held``); None when unknown."""
    return None if left is None else left - (0 if token_held else TOKEN_CALLS)


def chunk_size(
    calls: Callable[[int], int], left: int | None, share: int | None, *, token_held: bool = True
) -> int:
    """The writes of the next chunk, ``calls(n)`` the calls of its first ``n`` writes and
    their reads: as many as the ``left`` calls of this window's share hold (``_room_now``),
    else (not one's left, or unknown) as many as a window's ``share`` holds beside the new
    window's token request; at least one, at most ``CHUNK_MOST`` (budget unknown: that)."""
    now = _room_now(left, token_held)
    waits = now is None or waits_for_window(calls, left, token_held)
    room = _next_window(share) if waits else now
    if room is None:
        return CHUNK_MOST
    low, high = 1, CHUNK_MOST  # calls(n) grows with n: the largest n it holds
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if calls(middle) <= room else (low, middle - 1)
    return low


def _next_window(share: int | None) -> int | None:
    """The calls a chunk may take of a window's ``share``, beside that window's token
    request."""
    return None if share is None else share - TOKEN_CALLS


def share_of_window(client: LoyaltyClient, share: float) -> int | None:
    """The calls ``share`` of a whole window of ``client``'s budget holds (None: unknown)."""
    limit = client.quota.limit
    return None if limit is None else share_of(limit, share)


def waits_for_window(
    calls: Callable[[int], int], left: int | None, token_held: bool = True
) -> bool:
    """Whether the next chunk (``calls(n)``: the calls of its first ``n`` writes and their
    reads) waits for the next window: the ``left`` calls of this window's share (``_room_now``)
    do not hold its first write and its reads (None, the budget unknown: it does not wait)."""
    now = _room_now(left, token_held)
    return now is not None and now < calls(1)


class ChunkAhead:
    """What the next chunk of ``todo`` (indices of ``part``'s items) may hold: its first
    ``n`` writes' objects (``needed``, of the ``touched`` of a plan built from ``inputs``),
    the calls of their re-read (``reads``, the reads ``kept``, ``ReadKeys``' keys, answers
    left out) and of those writes and their re-read (``calls``): a write to one of the
    ``refused`` targets (``known_refused``) is read back once refused, a call more."""

    def __init__(
        self,
        touched: Sequence[Touched],
        inputs: Mapping[str, pd.DataFrame],
        part: ActionPlan[Any],
        todo: Sequence[int],
        kept: Collection[tuple[str, ...]] = (),
        refused: Collection[str] = (),
    ) -> None:
        self._inputs, self._action, self._kept = inputs, part.action, kept
        self._targets = [str(part.items[index].target) for index in todo[:CHUNK_MOST]]
        self._near = needed_by(touched, inputs, part.action, set(self._targets))
        self._backs = list(accumulate((target in refused for target in self._targets), initial=0))

    def needed(self, writes: int) -> list[Touched]:
        """The objects the first ``writes`` writes need re-read."""
        return needed_by(self._near, self._inputs, self._action, set(self._targets[:writes]))

    def reads(self, writes: int) -> int:
        """The calls of the re-read of the first ``writes`` writes' objects."""
        return reread_calls(self.needed(writes), self._inputs, kept=self._kept)

    def calls(self, writes: int) -> int:
        """The calls of the first ``writes`` writes, their reads back once refused (those
        ``refused``) and their re-read."""
        return self.reads(writes) + self.sent(writes)

    def sent(self, writes: int) -> int:
        """The calls of the first ``writes`` writes themselves: each write, and the read back
        of each one ``refused``."""
        return writes + self._backs[min(writes, len(self._targets))]


def reads_as_chunked(
    touched: Sequence[Touched],
    inputs: Mapping[str, pd.DataFrame],
    todos: Sequence[tuple[ActionPlan[Any], list[int]]],
    kept: Collection[tuple[str, ...]],
    left: int | None,
    share: int | None,
    *,
    carried: bool = False,
    token_held: bool = True,
    refused: Mapping[str, Collection[str]] | None = None,
) -> int:
    """The re-read calls of a paced apply sending the items at each part's indices of
    ``todos``, a chunk at a time: each chunk's objects read for it (one several need, once
    for each), its chunks cut as ``chunk_size`` cuts them, from ``left`` calls of this
    window's share (less a token request unless ``token_held``), then a window's ``share``
    less its token request once a chunk does not fit what is left (its reads wait for the
    next window), the rows ``kept`` answering the first chunk's reads
    (a check clears them once found not stale); ``carried`` (a refresh), the next chunks'
    too, each chunk's own used up (``read_keys``), while the service shows no call of the
    project but the apply's since the first chunk's read: none waits for the next window
    after it (nor the first's writes, when it read nothing), and a later chunk that waits
    reads its own afresh there (no call of another's across the wait can be told). A write
    to one of the targets ``refused`` holds for its call (``known_refused``) takes its read
    back beside it, in its chunk's window, as the apply sends it."""
    reads, first = 0, True
    for part, todo in todos:
        backs = (refused or {}).get(part.action, ())
        while todo:
            ahead = ChunkAhead(touched, inputs, part, todo, kept, backs)
            waits = waits_for_window(ahead.calls, left, token_held)
            if waits and kept and not first:  # its rows read in the window it waits for
                kept, ahead = (), ChunkAhead(touched, inputs, part, todo, refused=backs)
            size = chunk_size(ahead.calls, left, share, token_held=token_held)
            calls, read = ahead.calls(size), ahead.reads(size)
            reads += read
            now = _room_now(left, token_held)
            if now is not None and not waits:
                left = now - calls
            elif share is not None:  # sent in the next window, beside its token request
                left = max(0, share - TOKEN_CALLS - calls)
            token_held = True
            # a window waited for after the first chunk's read: the next chunks read afresh
            kept_on = carried and not (waits and read == 0)
            kept = set(kept) - read_keys(ahead.needed(size), inputs) if kept_on else ()
            todo, first = todo[size:], False
    return reads


def known_refused(
    changes: pd.DataFrame,
    states: Mapping[str, LogState],
    *,
    reconsidered: bool = False,
) -> dict[str, set[str]]:
    """Call -> the targets whose write a run sends knowing the service refuses it, each read
    back once refused (a call more): those the plan's base shows blocked
    (``change_rows.refused_keys``) and, ``reconsidered`` (a refresh sends them again), those
    the log's ``states`` show refused for good."""
    known = {call: set(keys) for call, keys in refused_keys(changes).items()}
    if reconsidered:
        for call, state in states.items():
            known.setdefault(call, set()).update(state.refused)
    return known


def to_send(part: ActionPlan[Any], state: LogState, *, reconsidered: bool = False) -> list[int]:
    """The indices of the items of ``part`` a run sends: valid, neither done in the log nor
    refused for good there (``LogState.refused``: its result is that refusal, nothing of it
    re-read), unless ``reconsidered`` (a refresh sends those again)."""
    settled = state.succeeded.keys() | (set() if reconsidered else state.refused.keys())
    return [
        index
        for index, item in enumerate(part.items)
        if item.error is None and item.target not in settled
    ]


def part_of(part: ActionPlan[Any], indices: Sequence[int]) -> ActionPlan[Any]:
    """``part`` holding only its items at ``indices``, in their order."""
    chunk = copy.copy(part)
    chunk.items = [part.items[index] for index in indices]
    return chunk


def planned_part(
    parts: Sequence[ActionPlan[Any]], part: ActionPlan[Any], indices: Sequence[int]
) -> tuple[ActionPlan[Any], list[int]]:
    """Of the ``parts`` of a plan made again, the one sending ``part``'s action holding only
    its items of the targets of ``part``'s items at ``indices`` (a chunk re-planned), and the
    indices in ``part`` of those (a target no longer planned has none)."""
    at = {str(part.items[index].target): index for index in indices}
    again = next((made for made in parts if made.action == part.action), part_of(part, []))
    chunk = copy.copy(again)
    chunk.items = [item for item in again.items if str(item.target) in at]
    return chunk, [at[str(item.target)] for item in chunk.items]


def not_reached(
    part: ActionPlan[Any], indices: Sequence[int], client: LoyaltyClient, log: LogSource, why: str
) -> pd.DataFrame:
    """The results of the items of ``part`` at ``indices`` no chunk sent: as the ``log``
    shows them (done, invalid), else ``cancelled`` saying ``why``. Nothing is sent."""
    frame = part_of(part, indices)._not_sent(client, log)
    frame.loc[frame["outcome"].eq(Outcome.CANCELLED), "message"] = why
    return frame


def in_order(frames: Sequence[tuple[Sequence[int], pd.DataFrame]]) -> pd.DataFrame:
    """The results of a part's chunks (each with the indices of its items) as one frame, in
    plan order."""
    placed = [frame.set_axis(list(indices)) for indices, frame in frames if len(indices)]
    return pd.concat(placed).sort_index().reset_index(drop=True)
