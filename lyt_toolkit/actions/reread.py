"""The re-read of what a saved plan touches, before its apply: the calls it takes, the live
rows it finds, and what the plan's own writes made (an interrupted apply's log).

A resumed apply re-reads only what it still writes to (``left_to_read``): an object whose
every write the log shows done was checked before the first run wrote it, and read now it
would show that write (a deleted one, nothing). A paced re-read stopped part way reads only
what it had not read (``kept_reads``: what it read alone is kept beside its log).

One call per 99 rewards (listed by ID), one per tier structure and card definition; one per
100 pending buckets a card
holding touched ones held in the base (``card_buckets``), and one more when they fill their
last page (``bucket_pages``); one per 10 names of created benefits. A card is read in no
more pages than that: one listing more pending buckets is refused (``StalePlanError``)
before its next page, so the re-read never sends more calls than it was counted (and
budgeted) for, whatever a plan file says its card held.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._text import counted
from ..errors import APIError, NotFoundError, QuotaExhaustedError
from ..frames.pending import bucket_date
from ..frames.registry import BUILDERS
from ..snapshot.clock import utc_now
from ._listed import (
    IDS_PER_READ,
    NAMES_PER_READ,
    benefits_named,
    listings,
    rewards_by_id,
)
from .items import PlanItem, Standing
from .log import LogSource, LogState, log_state
from .plan import ActionPlan
from .touched import TOUCHES, StalePlanError, Touched, creates_needing, is_name

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from .kept_reads import KeptReads

__all__ = [
    "BUCKETS_PER_PAGE",
    "GETTERS",
    "IDS_PER_READ",
    "NAMES_PER_READ",
    "UNLISTED_BUCKET",
    "LiveRows",
    "ReadKeys",
    "bucket_models",
    "bucket_pages",
    "card_buckets",
    "deleted_words",
    "done_in_log",
    "doubtful",
    "gone_words",
    "got",
    "id_positions",
    "left_to_read",
    "live_rows",
    "member_read",
    "needed_by",
    "own_work",
    "read_keys",
    "reread_calls",
    "service_now",
    "touched_read_by",
]

BUCKETS_PER_PAGE = 100
"""Pending buckets one page of a card's re-read holds (the service's largest page)."""

LiveRows = dict[tuple[str, str], pd.DataFrame | None]
"""(kind, key) -> a touched object's live row (``None``: gone; a pending bucket, no longer
on its card's list: ``UNLISTED_BUCKET``); for a created benefit's name, the live benefits
holding it (``id``, ``name``)."""

UNLISTED_BUCKET = "no longer PENDING: activated or canceled (not on its card's list)"
"""What a touched pending bucket its card's list no longer holds is: the service lists a
card's PENDING buckets only, and the base held it, so it is there, not PENDING."""


def service_now(client: LoyaltyClient) -> pd.Timestamp:
    """The service's clock now (its held token's, read as the re-read went), else this
    machine's: what a touched pending bucket's date is held against (a sandbox's clock
    is its own)."""
    now = client.service_time()
    return utc_now() if now is None else pd.Timestamp(now, unit="s", tz="UTC")


def gone_words(kind: str, gone: str) -> str:
    """Why the live program lacks a touched object of ``kind``: ``gone`` (the object no
    longer exists), or for a pending bucket ``UNLISTED_BUCKET``."""
    return UNLISTED_BUCKET if kind == "pending_buckets" else gone


_KEPT_DELETED = frozenset({"tier_structures", "rewards", "card_definitions"})
"""The kinds a get or listing answers in status DELETED once deleted."""


def deleted_words(kind: str, row: pd.DataFrame, call: str) -> str | None:
    """Why a touched object of ``kind`` the service still answers is gone all the same: its
    live ``row`` is in status DELETED (the service keeps a deleted tier structure, reward or
    card definition so), ``"already DELETED"`` when ``call`` deletes it (its delete is done),
    else ``"DELETED"``; None when it is not (a pending bucket never is: not looked at)."""
    if kind not in _KEPT_DELETED or "status" not in row or not len(row):
        return None
    status = row["status"].iloc[0]  # one value: a plan touches thousands of rows
    if not (isinstance(status, str) and status == "DELETED"):
        return None
    return "already DELETED" if call.startswith("delete_") else "DELETED"


def date_reached(row: pd.DataFrame, today: dt.date) -> str | None:
    """Why the service refuses to activate the pending bucket of the live ``row``: its date
    is not after the service's ``today`` (a date the clock has reached stays reached, so the
    refusal is for good: a 423); None while it is after, or not known."""
    date = bucket_date(row["date"].iloc[0]) if "date" in row and len(row) else None
    if date is None or date > today:
        return None
    return (
        f"its date {date:%Y-%m-%d} is no longer after the service's today,"
        f" {today:%Y-%m-%d}: the service refuses to activate it"
    )


class ReadKeys:
    """What one re-read call fetches for each touched entry of a plan built from ``inputs``
    (``ReadKeys(inputs)(entry)``): the object, or for a pending bucket its card, each
    activated bucket's card found once (a scan of the plan's rows per bucket took seconds
    on 5,000 activations)."""

    def __init__(self, inputs: Mapping[str, pd.DataFrame]) -> None:
        self._inputs = inputs
        self._cards: dict[str, tuple[str, ...]] | None = None

    def __call__(self, entry: Mapping[str, Any]) -> tuple[str, ...]:
        if entry["kind"] != "pending_buckets":
            return (entry["kind"], entry["key"])
        if self._cards is None:
            rows = self._inputs["activate_pending_bucket"]
            columns = (rows[c].astype(str) for c in ("program_id", "member_id", "card_id"))
            cards = (("card", *where) for where in zip(*columns, strict=True))
            self._cards = {}
            for bucket_id, card in zip(rows["bucket_id"], cards, strict=True):
                self._cards.setdefault(bucket_id, card)  # the first row, as the scan took
        return self._cards[entry["key"]]


def done_in_log(
    parts: Iterable[ActionPlan[Any]],
    log: LogSource | None,
    client: LoyaltyClient | None = None,
    *,
    refused: bool = True,
) -> dict[str, set[str]]:
    """Call -> the targets the ``log`` saw done and, with ``refused``, those it shows refused
    for good (``LogState.refused``: a run does not send them again, so nothing of theirs is
    re-read; a refresh reconsiders them); with ``client``, ``ForeignLogError`` for a log of
    another service or project."""
    states = {part.action: log_state(log, part.action, client) for part in parts}
    return {
        call: {*state.succeeded, *(state.refused if refused else ())}
        for call, state in states.items()
    }


def left_to_read(
    touched: Iterable[Touched],
    inputs: Mapping[str, pd.DataFrame],
    done: Mapping[str, Collection[str]],
) -> list[Touched]:
    """The ``touched`` objects still to re-read: all but those whose every write is ``done``
    (call -> targets; a card definition's writes are the creates needing it, a pending
    bucket's its activation: its card is read while one of its touched buckets is not)."""
    creates = inputs.get("create_benefit", pd.DataFrame())
    left = []
    for entry in touched:
        call = entry["call"]
        writes = creates_needing(entry, creates) if call == "create_benefit" else {entry["key"]}
        made = done.get(call, ())
        if not writes or not all(target in made for target in writes):
            left.append(entry)
    return left


def reread_calls(
    touched: Iterable[Touched],
    inputs: Mapping[str, pd.DataFrame],
    *,
    listed: bool = True,
    kept: Collection[tuple[str, ...]] = (),
) -> int:
    """The calls of the re-read, without a token's, nor those of the reads ``kept`` answers
    (``ReadKeys``' keys of a kept re-read, ``kept_reads``) (``listed=False``: as a toolkit
    that read each reward on its own counted them, one a reward)."""
    touched = list(touched)
    names = sum(1 for entry in touched if is_name(entry))
    rewards = sum(1 for entry in touched if entry["kind"] == "rewards") if listed else 0
    read = listings(rewards, IDS_PER_READ) + listings(names, NAMES_PER_READ)
    pages = _pages(touched, inputs)
    return sum(calls for key, calls in pages.items() if key not in kept) - rewards + read


def read_keys(
    touched: Iterable[Touched], inputs: Mapping[str, pd.DataFrame]
) -> set[tuple[str, ...]]:
    """What the re-read of ``touched`` fetches one object at a time (``ReadKeys``: what a
    kept re-read keeps; listings of names and rewards aside)."""
    return set(_pages(touched, inputs))


def touched_read_by(
    touched: Iterable[Touched],
    inputs: Mapping[str, pd.DataFrame],
    keys: Collection[tuple[str, ...]],
) -> list[Touched]:
    """The ``touched`` entries whose re-read is one of ``keys`` (``ReadKeys``'; a name's is
    a listing, none of them)."""
    read_key = ReadKeys(inputs)
    return [entry for entry in touched if not is_name(entry) and read_key(entry) in keys]


def needed_by(
    touched: Iterable[Touched], inputs: Mapping[str, pd.DataFrame], call: str, targets: set[str]
) -> list[Touched]:
    """The ``touched`` objects the writes of ``call`` to ``targets`` need checked: each
    target's own, and a create's card definition and name."""
    creates = inputs.get("create_benefit", pd.DataFrame())
    return [
        entry
        for entry in touched
        if entry["call"] == call
        and (creates_needing(entry, creates) if call == "create_benefit" else {entry["key"]})
        & targets
    ]


def _pages(touched: Iterable[Touched], inputs: Mapping[str, pd.DataFrame]) -> dict[Any, int]:
    """What one re-read call fetches (``ReadKeys``; names aside) -> its calls: one, or
    for a card the pages of the buckets it held in the base (``card_buckets``)."""
    pages: dict[tuple[str, ...], int] = {}
    read_key = ReadKeys(inputs)
    for entry in touched:
        if not is_name(entry):
            key = read_key(entry)
            pages[key] = max(pages.get(key, 1), bucket_pages(entry.get("card_buckets", 1)))
    return pages


def bucket_pages(held: int) -> int:
    """The pages a card's re-read reads for the ``held`` pending buckets it held in the base:
    one per 100, and one more when they fill the last (the interface does not say whether a
    full last page carries a cursor to an empty one; the sandbox's does not, so there the
    count is one call over)."""
    return held // BUCKETS_PER_PAGE + 1


def live_rows(
    client: LoyaltyClient,
    touched: Iterable[Touched],
    inputs: Mapping[str, pd.DataFrame],
    kept: KeptReads | None = None,
) -> LiveRows:
    """Every touched object's live row, read with ``client`` (see ``LiveRows``); a card's
    buckets and a get as ``kept`` holds them, if it does (then kept as read)."""
    reads: KeptReads | _Unkept = kept or _NOT_KEPT
    touched = list(touched)
    pages = _pages(touched, inputs)
    buckets: dict[tuple[str, ...], pd.DataFrame] = {}
    at: dict[tuple[str, ...], dict[str, list[int]]] = {}  # a card's bucket IDs' positions
    rows: LiveRows = {}
    named = _benefits_named(client, [t["key"] for t in touched if is_name(t)])
    rewards = _rewards_by_id(client, [t["key"] for t in touched if t["kind"] == "rewards"])
    read_key = ReadKeys(inputs)
    for entry in touched:
        kind, key = entry["kind"], entry["key"]
        if is_name(entry):
            rows[kind, key] = named[named["name"] == key].reset_index(drop=True)
        elif kind == "rewards":
            rows[kind, key] = rewards.get(key)
        elif kind == "pending_buckets":
            card = read_key(entry)
            if card not in buckets:
                read = reads.read(card, functools.partial(bucket_models, client, card, pages[card]))
                buckets[card] = BUILDERS["pending_buckets"](read)
                at[card] = id_positions(buckets[card]["id"])
            found = at[card].get(key)
            rows[kind, key] = rows_at(buckets[card], found) if found else None
        else:
            got_now = reads.read((kind, key), functools.partial(_got_one, client, kind, key))
            rows[kind, key] = BUILDERS[kind](got_now) if got_now else None
    return rows


def rows_at(frame: pd.DataFrame, positions: list[int]) -> pd.DataFrame:
    """The rows of ``frame`` at ``positions``, a frame of their own indexed from 0; one row
    is sliced, not taken (a slice shares ``frame``'s data until written to: a take copied a
    card's every column for each of its thousands of buckets, 1 ms a row)."""
    if len(positions) != 1:
        return frame.iloc[positions].reset_index(drop=True)
    row = frame.iloc[positions[0] : positions[0] + 1]
    row.index = pd.RangeIndex(1)
    return row


def id_positions(ids: pd.Series) -> dict[str, list[int]]:
    """Each ID's positions in ``ids``: a row found by ID without comparing every row."""
    positions: dict[str, list[int]] = {}
    for position, item_id in enumerate(ids):
        if isinstance(item_id, str):
            positions.setdefault(item_id, []).append(position)
    return positions


def _got_one(client: LoyaltyClient, kind: str, key: str) -> list[Any]:
    """``got``'s object as a list: none for an object gone."""
    model = got(client, kind, key)
    return [] if model is None else [model]


class _Unkept:
    """Reads kept nowhere: each read as asked."""

    def read(self, key: tuple[str, ...], read: Callable[[], list[Any]]) -> list[Any]:
        return read()


_NOT_KEPT = _Unkept()


_GREW = (
    "(its buckets in the base, the plan file's card_buckets): the card grew since the pull,"
    " or the file understates it; nothing was sent but that re-read: plan again from a"
    " fresh pull"
)
"""Why a saved plan's re-read found a card listing more buckets than counted, and what next."""


def card_buckets(
    client: LoyaltyClient, card: tuple[str, ...], pages: int, *, grew: str = _GREW
) -> pd.DataFrame:
    """The pending buckets of ``card`` (``ReadKeys``'), read in at most ``pages`` pages
    of 100; a card listing more is refused (``StalePlanError``, ``grew`` saying why and what
    next) before another page is asked for."""
    return BUILDERS["pending_buckets"](bucket_models(client, card, pages, grew=grew))


def bucket_models(
    client: LoyaltyClient, card: tuple[str, ...], pages: int, *, grew: str = _GREW
) -> list[Any]:
    """What ``card_buckets`` reads, as the service sent it (its models)."""
    walk = client.pending_buckets.pages(*card[1:], limit=BUCKETS_PER_PAGE)
    read = list(itertools.islice(walk, pages))
    if read and read[-1].next_cursor and not read[-1].empty:
        held = counted(pages * BUCKETS_PER_PAGE, "pending bucket")
        raise StalePlanError(
            f"card {card[-1]} lists more than the {held} its re-read was counted for {grew}",
            [f"pending_buckets card {card[-1]} (over {held})"],
        )
    return [bucket for page in read for bucket in page.data]


def own_work(
    parts: Iterable[ActionPlan[Any]], client: LoyaltyClient, log: LogSource | None
) -> dict[str, set[str]]:
    """Call -> the targets the plan's own writes made: done in the ``log``, or in doubt
    there (an apply stopped while sending them) and read back done, one read each (a
    benefit's name is unique: one holding it with the plan's settings is the plan's)."""
    own: dict[str, set[str]] = {call: set() for call in TOUCHES}
    for part in parts:
        state = log_state(log, part.action, client)
        own[part.action] = set(state.succeeded)
        in_doubt = doubtful(part, state)
        if in_doubt:
            observe = part.observer(client)
            own[part.action] |= {i.target for i in in_doubt if _read_done(observe, i)}
    return own


def doubtful(part: ActionPlan[Any], state: LogState) -> list[Any]:
    """The items of ``part`` the log holds in doubt: sent, perhaps done, never answered."""
    return [
        i
        for i in part.items
        if i.error is None and i.target not in state.succeeded and state.in_doubt(i.target)
    ]


def _read_done(observe: Callable[[PlanItem[Any]], Standing], item: PlanItem[Any]) -> bool:
    """Whether the service shows ``item`` done (a failed read: not known to be; a spent
    budget is raised, not taken for an answer)."""
    try:
        return observe(item).done is not None
    except QuotaExhaustedError:
        raise
    except APIError:
        return False


def _benefits_named(client: LoyaltyClient, names: list[str]) -> pd.DataFrame:
    """``id`` and ``name`` of every live benefit holding one of ``names`` (10 a listing)."""
    found = [(benefit.id, benefit.name) for benefit in benefits_named(client, names)]
    return pd.DataFrame(found, columns=["id", "name"], dtype="str")


def _rewards_by_id(client: LoyaltyClient, ids: list[str]) -> dict[str, pd.DataFrame]:
    """ID -> the live row of each reward of ``ids`` the service holds (99 a listing)."""
    return {
        key: BUILDERS["rewards"]([reward]) for key, reward in rewards_by_id(client, ids).items()
    }


GETTERS: dict[str, Callable[[LoyaltyClient, str], Any]] = {
    "tier_structures": lambda client, key: client.tier_structures.get(key),
    "card_definitions": lambda client, key: client.card_definitions.get(key),
    "programs": lambda client, key: client.programs.get(key),
}
"""Kind -> the one read of an object of it by ID."""


def got(client: LoyaltyClient, kind: str, key: str) -> Any | None:
    """The live object of ``kind`` (of ``GETTERS``) ``key``, read with one get; ``None``
    when the service has none."""
    try:
        return GETTERS[kind](client, key)
    except NotFoundError:
        return None


def member_read(client: LoyaltyClient, program: str, member: str) -> Any | None:
    """The live member with its cards, one read; ``None`` when the service has none."""
    try:
        return client.members.get(program, member)
    except NotFoundError:
        return None
