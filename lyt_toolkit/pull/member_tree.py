"""The member tree, declared once: programs, their members, each member read, each card's buckets.

The interface gives no way to a program's cards but reading each member, and no way to
their pending buckets but each card's list. So the walk down the tree is always the same
four levels (``TREE``), each needing the one before it, and it is written here once, as a
generator that does no I/O (like ``_flow`` for sends): it yields the requests of one level
at a time (``Lists``: walk each of these lists to its end; ``Reads``: read each of these
objects) and receives their results. ``walk_tree`` and ``awalk_tree`` carry the requests out
with a client (the async one can run a level's requests together); the snapshot pull,
``client.pending_buckets.frame(program_id)`` and the pull's cost estimate all walk this one
declaration, so a walk and its cost cannot disagree.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .._progress import Progress, ProgressBar
from ..models.listing import MAX_LIMIT
from .read_ahead import aread_ahead

if TYPE_CHECKING:
    from ..models import Card, Member, MemberWithCards, PendingBucket, Program

__all__ = [
    "READ_STAGES",
    "TREE",
    "Ahead",
    "InThreads",
    "ListAll",
    "Lists",
    "MemberTree",
    "OnPage",
    "OnRead",
    "Reads",
    "Request",
    "TreeWalk",
    "alist_all",
    "awalk_tree",
    "holds_pending",
    "member_tree",
    "page_query",
    "walk_tree",
]

Part = Literal["programs", "members", "cards", "pending_buckets"]

TREE: tuple[Part, ...] = ("programs", "members", "cards", "pending_buckets")
"""The tree's levels, each needing the ones before it; ``cards`` are read member by member."""

READ_STAGES: dict[str, str] = {"cards": "member reads", "pending_buckets": "bucket lists"}
"""The levels read one call per object (a member, a card's bucket list), by their stage's name
in a refusal (``PullBudgetError.stage``)."""


@dataclass(frozen=True)
class Request:
    """One list to walk or one object to read: the client's resource group and the IDs."""

    part: Part
    resource: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Lists:
    """Walk each list to its end (one call per page); the outcome: each list's items."""

    requests: list[Request]


@dataclass(frozen=True)
class Reads:
    """Read each object (one call each); the outcome: the objects, in order."""

    requests: list[Request]


@dataclass
class MemberTree:
    """What a walk found, level by level (empty below the depth it went to)."""

    programs: list[Program] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)
    cards: list[MemberWithCards] = field(default_factory=list)
    pending_buckets: list[PendingBucket] = field(default_factory=list)


TreeWalk = Generator[Lists | Reads, list[Any], MemberTree]
"""A walk: yields a level's requests, receives their results, returns the tree."""


def _no_page(request: Request, page: Any) -> None:
    return None


def _every(members: list[Member]) -> list[Member]:
    return members


def _no_more(read: list[MemberWithCards]) -> list[Member]:
    return []


def _all_at_once(left: list[Member], read: list[MemberWithCards]) -> list[Member]:
    return left


def member_tree(
    depth: int,
    program_id: str | None = None,
    *,
    read: Callable[[list[Member]], list[Member]] = _every,
    more: Callable[[list[MemberWithCards]], list[Member]] = _no_more,
    ahead: Ahead = _all_at_once,
    pending_only: bool = False,
) -> TreeWalk:
    """The walk down ``depth`` levels of ``TREE`` (0: none): every program, or the one
    ``program_id`` (read, not listed); each program's members; the members ``read`` picks
    from those listed (every one by default; a sample picks fewer) read for their cards,
    then the members ``more`` picks once it has seen those (a sample's second round; none by
    default); each card's pending buckets. Each round of reads goes in the parts ``ahead``
    picks (``Ahead``; the whole round at once by default), one level after the other, and
    its members' cards come back in the round's order.

    A card's balance carries its pending points, so a card holding none has no PENDING
    bucket: with ``pending_only`` its bucket list is not walked (one call saved per such
    card; its activated or canceled buckets, if any, are left unread)."""
    tree = MemberTree()
    if depth < 1:
        return tree
    if program_id is None:
        (tree.programs,) = yield Lists([Request("programs", "programs", ())])
    else:
        tree.programs = yield Reads([Request("programs", "programs", (program_id,))])
    if depth < 2:
        return tree
    found = yield Lists([Request("members", "members", (p.id,)) for p in tree.programs])
    tree.members = _joined(found)
    if depth < 3:
        return tree
    tree.cards = yield from _round(read(tree.members), [], ahead)
    second = more(tree.cards)
    if second:
        tree.cards = tree.cards + (yield from _round(second, tree.cards, ahead))
    if depth < 4:
        return tree
    cards = [
        (m, c.card)
        for m in tree.cards
        for c in m.cards
        if c.card is not None and (holds_pending(c.card) or not pending_only)
    ]
    lists = [
        Request("pending_buckets", "pending_buckets", (m.program_id, m.id, card.id))
        for m, card in cards
    ]
    tree.pending_buckets = _joined((yield Lists(lists)))
    return tree


Ahead = Callable[[list["Member"], list["MemberWithCards"]], list["Member"]]
"""Of the members of a round still to read and the cards read so far (every round), the
members to read next (all of them, or none, read the whole rest)."""


def _round(
    chosen: list[Member], done: list[MemberWithCards], ahead: Ahead
) -> Generator[Reads, list[Any], list[MemberWithCards]]:
    """The reads of the members ``chosen``, in the parts ``ahead`` picks (``done``: the
    cards read before this round); their cards in ``chosen``'s order."""
    found: dict[tuple[str, str], MemberWithCards] = {}
    left = chosen
    while left:
        part = ahead(left, done + list(found.values())) or left
        read = yield Reads([Request("cards", "members", _key(m)) for m in part])
        found.update(zip(map(_key, part), read, strict=True))
        left = [m for m in left if _key(m) not in found]
    return [found[_key(m)] for m in chosen]


def _key(member: Member) -> tuple[str, str]:
    return (member.program_id, member.id)


def holds_pending(card: Card) -> bool:
    """Whether a member's card holds pending points (its bucket list is worth a call)."""
    return card.balance.pending_points != 0


def _joined(groups: Iterable[list[Any]]) -> list[Any]:
    return [item for group in groups for item in group]


OnPage = Callable[[Request, Any], None]
"""Told of each page a walk reads (progress bars, call counts)."""

OnRead = Callable[[Request, Any], None]
"""Told of each object a walk reads one call each (a member, ``Reads``) as its answer lands,
before the others of its level: a pull stopped partway through a level has them."""

Tick = Callable[[], None]
"""Counts one request of a level done."""

LevelBar = Callable[["Lists | Reads"], AbstractContextManager[Tick]]
"""Opened around each level of a walk, with its requests: what it gives counts each one done."""


def _no_tick() -> None:
    return None


def no_level_bar(step: Lists | Reads) -> AbstractContextManager[Tick]:
    """No progress per level."""
    return nullcontext(_no_tick)


def level_bars(progress: Progress) -> LevelBar:
    """A progress bar per level of a walk (``programs lists``, ``cards reads``...), its total
    the level's requests, so it shows the time left: one read per member, one list per card."""

    @contextmanager
    def bar(step: Lists | Reads) -> Iterator[Tick]:
        if not step.requests:
            yield _no_tick
            return
        kind = "reads" if isinstance(step, Reads) else "lists"
        desc = f"{step.requests[0].part} {kind}"
        with ProgressBar(progress, desc=desc, unit="call", total=len(step.requests)) as calls:
            yield calls.advance

    return bar


def walk_tree(
    walk: TreeWalk,
    client: Any,
    *,
    query: dict[str, Any] | None = None,
    on_page: OnPage = _no_page,
    read_all: Callable[[Callable[[Request], Any], list[Request]], Iterable[Any]] = map,
    level_bar: LevelBar = no_level_bar,
) -> MemberTree:
    """Carry out ``walk`` with ``client`` (anything with ``programs``, ``members`` and
    ``pending_buckets`` groups), one list at a time; ``query`` applies to bucket lists.
    ``read_all`` reads a level's objects (one by one, unless it maps in threads);
    ``level_bar`` counts each level's requests done (``level_bars``)."""
    try:
        step = next(walk)
        while True:
            with level_bar(step) as tick:
                told_of = partial(_landed, tick, _no_page)
                carry_out = _carried_out(client, step, query, on_page, told_of)
                if isinstance(step, Lists):
                    found = [carry_out(request) for request in step.requests]
                else:
                    found = list(read_all(carry_out, step.requests))
            step = walk.send(found)
    except StopIteration as done:
        tree: MemberTree = done.value
        return tree


def _carried_out(
    client: Any,
    step: Lists | Reads,
    query: dict[str, Any] | None,
    on_page: OnPage,
    told_of: OnRead,
) -> Callable[[Request], Any]:
    """How the sync ``client`` carries out a request of ``step``, then tells ``told_of`` of
    its answer: its list walked to its end (one call per page), or its object read (one
    call)."""

    def carry_out(request: Request) -> Any:
        if isinstance(step, Lists):
            done = _list_all(client, request, query, on_page)
        else:
            done = _group(client, request).get(*request.ids)
        told_of(request, done)
        return done

    return carry_out


def _list_all(client: Any, request: Request, query: Any, on_page: OnPage) -> list[Any]:
    items: list[Any] = []
    for page in _group(client, request).pages(*request.ids, **page_query(request, query)):
        items.extend(page.data)
        on_page(request, page)
    return items


ListAll = Callable[[Any, Request, Any, OnPage], Awaitable[list[Any]]]
"""Walks one list of a tree to its end: ``(client, request, query, on_page)`` to its items."""


Run = Callable[[list[Callable[[], Awaitable[Any]]]], Awaitable[list[Any]]]
"""Runs a level's requests (each started by calling it) and gives their results in order."""


class InThreads(Protocol):
    """A sync ``client`` whose calls run in threads, a level's at once (``each``): a sync
    client seen as an async one (``pull.threaded.ThreadedClient``)."""

    @property
    def client(self) -> Any:
        """The sync client."""

    async def each(self, calls: Sequence[Callable[[], Any]]) -> list[Any]:
        """Each of ``calls`` in the threads, a few at once, in order; their results in it."""


async def _one_by_one(starts: list[Callable[[], Awaitable[Any]]]) -> list[Any]:
    return [await start() for start in starts]


async def _go(step: Lists | Reads) -> None:
    return None


async def awalk_tree(
    walk: TreeWalk,
    client: Any,
    *,
    run: Run = _one_by_one,
    query: dict[str, Any] | None = None,
    on_page: OnPage = _no_page,
    before: Callable[[Lists | Reads], Awaitable[None]] = _go,
    level_bar: LevelBar = no_level_bar,
    list_all: ListAll | None = None,
    in_threads: InThreads | None = None,
    on_read: OnRead = _no_page,
) -> MemberTree:
    """Async twin of ``walk_tree``: ``run`` carries out a level's requests (one by one
    unless it runs them together); each list's next page is requested while one is read.
    ``before`` is awaited with each level's requests before they go (a budget check may
    raise there, and nothing of the level is sent). ``list_all`` walks each list
    (``alist_all`` by default; ``pull.windows.windowed_lists`` walks the long ones in
    ``created_at`` windows). With ``in_threads`` (``client`` seen through it), the levels of
    one call per object (``READ_STAGES``) go to it whole as its sync client's calls, each
    list walked page after page as ``walk_tree`` walks it: the same requests. ``on_read`` is
    told of each object read as it lands (``OnRead``)."""
    lister = list_all or alist_all
    try:
        step = next(walk)
        while True:
            await before(step)
            with level_bar(step) as tick:
                told = _no_page if isinstance(step, Lists) else on_read
                landed = [partial(_landed, tick, told, r) for r in step.requests]
                if in_threads is not None and _read_stage(step):
                    told_of = partial(_landed, tick, told)
                    carry_out = _carried_out(in_threads.client, step, query, on_page, told_of)
                    found = await in_threads.each([partial(carry_out, r) for r in step.requests])
                else:
                    starts: list[Callable[[], Awaitable[Any]]]
                    if isinstance(step, Lists):
                        starts = [partial(lister, client, r, query, on_page) for r in step.requests]
                    else:
                        starts = [partial(_group(client, r).get, *r.ids) for r in step.requests]
                    found = await run(
                        [partial(_ticked, *s) for s in zip(starts, landed, strict=True)]
                    )
            step = walk.send(found)
    except StopIteration as done:
        tree: MemberTree = done.value
        return tree


Landed = Callable[[Any], None]
"""Told of one request's answer as it lands (the level's tick, ``on_read``)."""


def _landed(tick: Tick, on_read: OnRead, request: Request, found: Any) -> None:
    on_read(request, found)
    tick()


async def _ticked(start: Callable[[], Awaitable[Any]], landed: Landed) -> Any:
    done = await start()
    landed(done)
    return done


def _read_stage(step: Lists | Reads) -> bool:
    """Whether ``step`` is a level of one call per object (a member read, a bucket list)."""
    return bool(step.requests) and step.requests[0].part in READ_STAGES


async def alist_all(client: Any, request: Request, query: Any, on_page: OnPage) -> list[Any]:
    """Every item of ``request``'s list, page after page (the next one requested while one
    is read); ``query``: as ``page_query`` takes it."""
    items: list[Any] = []
    pages = _group(client, request).pages(*request.ids, **page_query(request, query))
    async for page in aread_ahead(pages):
        items.extend(page.data)
        on_page(request, page)
    return items


def _group(client: Any, request: Request) -> Any:
    return getattr(client, request.resource)


def page_query(request: Request, query: dict[str, Any] | None = None) -> dict[str, Any]:
    """The list query of a tree's list: the largest page, and ``query`` for bucket lists."""
    extra = query if request.part == "pending_buckets" and query else {}
    return {"limit": MAX_LIMIT, **extra}
