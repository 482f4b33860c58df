"""Pulling every kind of program data at once, within a share of the call budget.

Rewards, benefits, card definitions, tier structures, programs and their member lists are
walked concurrently (at most ``concurrency`` requests in flight); then, if the pull's share
of the budget holds them (``budget``), each member is read for its cards and each card
holding pending points has its buckets listed. Row order follows the service's list order,
so two pulls of the same data give equal frames. Rewards, the largest list, are turned into
their frames page by page as they arrive. A sync ``LoyaltyClient`` is used as it is, its
calls made from worker threads (``pull.threaded``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
import warnings
import weakref
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import AbstractAsyncContextManager, AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Generic, TypeVar

import pandas as pd

from .._interrupt import interruptible
from .._outgoing import telling_before_sending
from .._progress import Progress, ProgressBar
from .._services import held_reads, local_holds, named_here, service_identity
from ..client import AsyncLoyaltyClient, ClientConfig, LoyaltyClient
from ..client.allowance import Allowance, AllowanceSpent, CycleSpent, WindowCalls, checked_share
from ..client.quota import Quota
from ..errors import NotFoundError, OddValueWarning, QuotaExhaustedError
from ..frames.benefits import BENEFITS, benefits_frame
from ..frames.definitions import TIER_STRUCTURES, card_definitions_frame, tier_structures_frame
from ..frames.members import cards_frame, members_frame, pending_buckets_frame, programs_frame
from ..frames.registry import FRAME_NAMES
from ..frames.rewards import (
    REWARD_COSTS,
    REWARDS,
)
from ..frames.sample import Sample, SampleDesign, SampleDraw, member_points
from ..frames.schema import FrameBuilder, Schema
from ..models import (
    Benefit,
    CardDefinition,
    Member,
    MemberWithCards,
    Page,
    PendingBucket,
    Program,
    TierStructure,
)
from ..pull.assemble import NATIVE_BATCH, RewardPages
from ..pull.member_tree import (
    InThreads,
    Lists,
    Reads,
    Request,
    TreeWalk,
    awalk_tree,
    level_bars,
    member_tree,
)
from ..pull.program_lists import ListPart, ProgramList, program_lists
from ..pull.read_ahead import aread_ahead
from ..pull.threaded import ThreadedClient, threaded
from ..pull.windows import windowed_lists
from ..snapshot.clock import service_instant, utc_now
from ..snapshot.cost import PullCalls, tree_depth, wanted_kinds
from ..snapshot.defaults import DEFAULT_SHARE, PullOptions, SampleSource
from ..snapshot.references import (
    join_statuses,
    mark_card_definitions,
    referenced_card_definitions,
)
from .budget import PullBudget
from .checkpoint import HOLDS, Checkpoint, recorded_last_window, recorded_pull
from .pace import PaceBar
from .projection import PendingRate, next_part, pending_holders
from .workers import gathered, in_order

__all__ = [
    "ClientSource",
    "PullOptions",
    "Pulled",
    "blocking",
    "pull_blocking",
    "pull_frames",
    "run_kept",
    "sync_client",
    "token_for_pull",
]

T = TypeVar("T")
C = TypeVar("C", LoyaltyClient, AsyncLoyaltyClient)

SPENT_AHEAD = 8
"""Calls a paced pull's checkpoint records as sent ahead of those it sent (the default
``concurrency``): written before a call goes out that the record does not count yet, the
record is never below the calls sent (a run killed leaves none uncounted) and at most this
many above them (a file written and renamed every 8 calls, not every call: 2.5 ms each on
a VM's disk)."""

ClientSource = LoyaltyClient | AsyncLoyaltyClient | ClientConfig | Mapping[str, Any] | None
"""What a snapshot can be pulled with: a client, its settings, client keyword arguments, or
None for the environment / ``.env``."""


@dataclass(frozen=True)
class Pulled:
    """The frames of one pull, where they came from, the service's time at its start, the
    calls it sent and, for a sampled pull, its sample."""

    frames: dict[str, pd.DataFrame]
    source: str
    pulled_at: pd.Timestamp
    calls: PullCalls
    sample: SampleDesign | None = None
    read_times: dict[str, tuple[pd.Timestamp, pd.Timestamp]] = field(default_factory=dict)
    """Per kind, the service's time of its first and last answer (a checkpointed pull)."""


def sample_of(sample: SampleSource, kinds: frozenset[str]) -> Sample | None:
    """The ``Sample`` asked for (a size becomes one of seed 0); a ``ValueError`` naming
    ``sample`` when it is neither, or when ``kinds`` read no member."""
    if sample is None:
        return None
    if not isinstance(sample, Sample):
        if isinstance(sample, bool) or not isinstance(sample, int):
            raise ValueError(f"sample: give a member count or a Sample, not {sample!r}")
        if sample < 1:
            raise ValueError(f"sample: must be a member count, a whole number from 1, got {sample}")
        sample = Sample(sample)
    if tree_depth(kinds) < 3:
        raise ValueError("sample: the kinds asked read no member (add cards or pending_buckets)")
    return sample


async def pull_frames(client: ClientSource, options: PullOptions = PullOptions()) -> Pulled:
    """Pull the frames of ``options.kinds`` (every one for None) with ``client`` within
    ``options.budget_share`` of the calls left in the window, reading only the members
    ``options.sample`` draws when given; a ``LoyaltyClient`` or ``AsyncLoyaltyClient`` is used
    as is.

    With ``options.checkpoint`` (a folder) the pull is paced and resumable: its share of
    every window, waiting across resets, every answer kept in the folder as it arrives and
    given back by the next call instead of read again (``fill.checkpoint``). A run resumed in
    a window an earlier run was in keeps to the share the pull took there, the calls sent
    there before counted against it (``fill.window_ledger``)."""
    wanted = wanted_kinds(options.kinds)
    share = checked_share(options.budget_share)
    asked = sample_of(options.sample, wanted)
    async with _async_client(client, options.concurrency) as owned:
        puller = _Puller(owned, options.progress, options.concurrency, wanted, share, asked)
        pull = {"kinds": sorted(wanted), "sample": None if asked is None else repr(asked)}
        return await run_kept(puller, options.checkpoint, pull)


async def run_kept(
    puller: _Puller, checkpoint: str | os.PathLike[str] | None, pull: Mapping[str, Any]
) -> Pulled:
    """``puller`` run, paced and resumable in ``checkpoint`` when one is given (the folder of
    the pull ``pull`` names, from the puller's service)."""
    return await puller.run(None if checkpoint is None else _Kept(checkpoint, pull))


@dataclass(frozen=True)
class _Kept:
    """Where a checkpointed pull keeps its answers: ``folder``, for the pull ``pull`` names."""

    folder: str | os.PathLike[str]
    pull: Mapping[str, Any]

    def asks_holder(self, base_url: str) -> bool:
        """Whether the pull must hear what the service holds before it reads the folder: not
        from a sandbox of this process (what it holds is known here), nor for a folder written
        from a service that never said (the service's own pulls cost what they always did);
        for a new folder the token asked for is the one its first call would fetch."""
        if named_here(base_url):
            return False
        recorded = recorded_pull(self.folder)
        return recorded is None or HOLDS in recorded

    def identity(self, client: AsyncLoyaltyClient) -> dict[str, Any]:
        """The pull, from the service ``client`` talks to: its name (``_services``) and, for
        a sandbox, what it holds: known here when this process serves it, else as it said
        (the same in either process, so a checkpoint resumes in the other). What its reads
        answer (``held_reads``), not the instance of its state: a pull reads, and resumes on
        a service that changed meanwhile, as it does on the service itself."""
        base_url = str(client.base_url)
        holds = local_holds(base_url) if named_here(base_url) else client._service_holds
        source: dict[str, Any] = {"source": service_identity(base_url)}
        if holds is not None:
            source[HOLDS] = held_reads(holds)
        return {**source, **self.pull}


def pull_blocking(client: ClientSource, options: PullOptions = PullOptions()) -> Pulled:
    """``pull_frames`` run to its end from sync code, on a loop of its own (in a worker
    thread when one is already running, as in Jupyter); an async client is rebuilt from its
    settings there."""
    settings = settings_of(client)
    return blocking(lambda: pull_frames(settings, options))


def blocking(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """The coroutine ``work()`` makes, run to its end from sync code on a loop of its own (in
    a worker thread when this thread already runs one, as in Jupyter).

    A Ctrl-C stops it at once: ``asyncio.run`` cancels the work on this thread's own loop;
    a ``KeyboardInterrupt`` while the worker thread runs it cancels the work there, and is
    raised once the work has stopped (at once: its waits end, ``_stop``)."""
    aside = _Aside(work)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return aside.run()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        running = pool.submit(aside.run)
        try:
            return running.result()
        except KeyboardInterrupt:
            aside.cancel()
            concurrent.futures.wait([running])
            raise


class _Aside(Generic[T]):
    """``work()`` run on a loop of its own (``run``), which another thread may cancel."""

    def __init__(self, work: Callable[[], Coroutine[Any, Any, T]]) -> None:
        self.work = work
        self._lock = threading.Lock()
        self._cancelled = False
        self._task: tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]] | None = None
        self._interrupted = False

    def run(self) -> T:
        """The work's value, once its loop has run it to its end."""
        done: list[T] = []

        async def main() -> None:
            with self._lock:
                if self._cancelled:
                    raise asyncio.CancelledError
                task = asyncio.current_task()
                if task is not None:  # always, inside a task
                    self._task = (asyncio.get_running_loop(), task)
            done.append(await self.work())

        # The loop's task returns None, its result kept beside it: on the main thread
        # asyncio.run ends by asking signal.getsignal(SIGINT), which on Python 3.11 formats
        # the handler's repr, the finished task and its result included (whole frames).
        with interruptible(self._interrupt):
            try:
                asyncio.run(main())
            except asyncio.CancelledError:
                if self._interrupted:
                    raise KeyboardInterrupt from None
                raise
        if self._interrupted:  # stopped as it ended: the stop is what the caller asked
            raise KeyboardInterrupt
        return done[0]

    def _interrupt(self) -> bool:
        """A SIGTERM taken as a Ctrl-C on this (the main) thread while the loop runs here
        (``lyt_toolkit._interrupt``): the work's task cancelled at its next await, as
        asyncio's Ctrl-C handler does; False when it has not begun or is over (the caller
        raises then)."""
        if self._task is None:
            return False
        loop, task = self._task
        if task.done() or loop.is_closed():
            return False
        self._interrupted = True
        task.cancel()
        loop.call_soon_threadsafe(lambda: None)  # the loop woken, should it wait
        return True

    def cancel(self) -> None:
        """Cancel the work, from another thread (before it starts: it never does)."""
        with self._lock:
            self._cancelled = True
            if self._task is not None:
                loop, task = self._task
                with contextlib.suppress(RuntimeError):  # its loop closed: the work is over
                    loop.call_soon_threadsafe(task.cancel)


def settings_of(client: ClientSource) -> ClientSource:
    """What a pull on a loop of its own can use: the client itself, but an async client's
    settings (it is bound to the loop it was made on)."""
    if isinstance(client, AsyncLoyaltyClient):
        return client.config
    return client


def _async_client(
    source: ClientSource, concurrency: int
) -> AbstractAsyncContextManager[AsyncLoyaltyClient]:
    """The client to pull with, ``concurrency`` requests in flight at most: ``source`` itself
    (a sync one seen through a pool of worker threads of its own, ``pull.threaded``), or
    one built (and closed) here."""
    if isinstance(source, AsyncLoyaltyClient):
        return nullcontext(source)
    if isinstance(source, LoyaltyClient):
        seen: Any = threaded(source, concurrency)  # quacks as an AsyncLoyaltyClient
        return seen
    return _built(source, AsyncLoyaltyClient)


def sync_client(source: ClientSource) -> AbstractContextManager[LoyaltyClient]:
    """A sync client for ``source``: a ``LoyaltyClient`` itself, or one built (and closed)
    here, an async client's from its settings (as ``pull_blocking`` rebuilds it)."""
    if isinstance(source, LoyaltyClient):
        return nullcontext(source)
    return _built(settings_of(source), LoyaltyClient)


_TOKEN_FOR_PULL: weakref.WeakSet[LoyaltyClient] = weakref.WeakSet()
"""Clients whose token was fetched for the pull about to start (``token_for_pull``)."""


@contextlib.contextmanager
def token_for_pull(client: LoyaltyClient) -> Iterator[None]:
    """Inside the block, ``client``'s token was fetched a moment ago, to learn the budget,
    for the pull about to start with it (``fill.drift``): that pull takes the service's
    clock at its start from it instead of asking for a new token (one call); a later pull
    asks again."""
    _TOKEN_FOR_PULL.add(client)
    try:
        yield
    finally:
        _TOKEN_FOR_PULL.discard(client)


def _took_token(client: Any) -> bool:
    """Whether ``client`` (a ``ThreadedClient``, over a sync client) holds a token fetched
    for this pull (``token_for_pull``); no later pull in the block counts on it."""
    held = getattr(client, "client", None)
    if held is None or held not in _TOKEN_FOR_PULL:
        return False
    _TOKEN_FOR_PULL.discard(held)
    return True


def _built(source: ClientSource, kind: type[C]) -> C:
    """A client of ``kind`` built from settings: ``source`` a ``ClientConfig``, a mapping of
    client keyword arguments, or None for the environment; ``TypeError`` for anything else."""
    if source is None:
        return kind()
    if isinstance(source, ClientConfig):
        return kind(config=source)
    if isinstance(source, Mapping):
        return kind(**source)
    raise TypeError(
        "pull() takes a LoyaltyClient, AsyncLoyaltyClient, ClientConfig, a dict of client "
        f"settings or None, not {type(source).__name__}"
    )


class _Puller:
    """One concurrent pull: lists, the member tree, then card definition resolution."""

    def __init__(
        self,
        client: AsyncLoyaltyClient,
        progress: Progress,
        concurrency: int,
        kinds: frozenset[str] = frozenset(FRAME_NAMES),
        share: float = DEFAULT_SHARE,
        sample: Sample | None = None,
    ) -> None:
        self.client = client
        self.kinds = kinds
        self.share = share
        self.sample = sample
        self.design: SampleDesign | None = None
        """The sample drawn, once the members are listed (a sampled pull); an adaptive
        sample's pilot until its pilot is read."""
        self.draw: SampleDraw | None = None
        self.concurrency = concurrency
        """Requests in flight at most: a level's requests run on as many tasks (``in_order``)."""
        self.lists = windowed_lists(concurrency)  # programs, members: created_at windows
        self.progress = progress
        self.held_at_start: float | None = None
        """The service's clock at the start, from a new token when the client held one."""
        self.listed = 0
        """Members listed (once the member lists are walked)."""
        self.members: pd.DataFrame | None = None
        """Their frame, once a sample was drawn from it (built once, not again at the end)."""
        self._listed_members: list[Member] = []
        self._listed_frame: pd.DataFrame | None = None
        self.checkpoint: Checkpoint | None = None
        """Where a paced, resumable pull keeps its answers (None: an unpaced pull)."""
        self.pace: PaceBar | None = None
        """A paced pull's bar, while it runs."""
        self.projecting = False
        """Whether the member reads go in parts, the bucket lists projected between them."""
        self._read_so_far: list[MemberWithCards] = []
        self._round_left = 0
        """The members read so far and those of the round under way still to read."""
        self._reads_sent = 0
        """The member reads sent (or given back by a checkpoint)."""
        self._landed: list[MemberWithCards] = []
        """The members of the part of reads under way answered so far, each as it lands
        (from a sync client's threads too)."""

    async def run(self, keep: _Kept | None = None) -> Pulled:
        """The pull; paced and resumable in ``keep``'s folder when given."""
        with ExitStack() as opened:  # the checkpoint, open until the pull's end
            return await self._run(keep, opened)

    async def _run(self, keep: _Kept | None, opened: ExitStack) -> Pulled:
        c, kinds = self.client, self.kinds
        used_before = c.quota.calls_used
        hear = keep is not None and keep.asks_holder(str(c.base_url))
        # A checkpoint that need not hear the service first is opened (or refused) before any call.
        kept = None if keep is None or hear else self._keep(keep, opened)
        paced = keep is not None
        earlier = self._earlier if paced else None
        recorded = None if keep is None else partial(self._recorded, keep)
        with c.quota.allowance(
            self.share, paced=paced, earlier=earlier, recorded=recorded
        ) as allowance:
            budget = self._budget(allowance)
            tick = partial(self._note, allowance)
            # A paced pull's progress shows from its first call (its token may be refused too).
            self.pace = (
                PaceBar(
                    self.progress,
                    c,
                    allowance,
                    partial(self._whole, budget),
                    # every answer the checkpoint holds, from the start (at scale it gives
                    # back thousands of member reads long after the first lines are drawn)
                    recalled=lambda: 0 if kept is None else kept.answering,
                    tick=tick,
                    unplanned=partial(self._unplanned, budget),
                    replaying=partial(self._replaying, budget),
                )
                if paced
                else None
            )
            shown: AbstractAsyncContextManager[object] = self.pace or nullcontext()
            if paced:  # each call counted in the checkpoint before it goes out, until the end
                opened.enter_context(telling_before_sending(partial(self._note_spent, allowance)))
            try:
                async with shown:
                    if c.holds_token and not _took_token(c):
                        # The service's clock at the start comes from a token it issues now
                        # (one call, as for a client without a token, whose first call fetches
                        # one), held in place of the old one: the pull's calls carry it (the
                        # old one may have lapsed on the service's clock, a sandbox's moved
                        # since).
                        await c.fetch_token(fresh=True)
                        self.held_at_start = c.token_issued_at()
                    elif hear or (kept is not None and not kept.finished):
                        # Its answer says what the service holds, and tells a paced pull its
                        # window (what its earlier runs spent there) before any read is let
                        # start; a finished pull's folder answers every read, and nothing is
                        # sent.
                        await c.fetch_token()
                    if keep is not None and kept is None:
                        kept = self._keep(keep, opened)  # the service's, now that it was heard
                    with ProgressBar(self.progress, desc="snapshot", unit="row") as bar:
                        frames = await self._pull(bar, budget)
            except QuotaExhaustedError as refused:
                heard = _service_refusal(refused, c.quota, used_before)
                if heard is None:
                    raise
                raise heard from heard.__cause__  # the service's own, its traceback kept
            except CycleSpent:
                raise budget.cycle_stopped() from None
            except AllowanceSpent:
                raise budget.stopped(self._read_when_stopped()) from None
            finally:
                tick()  # what this run spent of its window, however it ends (Ctrl-C included)
        quota = c.quota
        calls = PullCalls(
            quota.calls_used - used_before,
            quota.remaining,
            quota.limit,
            quota.resets_at,
            windows=tuple(allowance.windows) if allowance.paced else (),
            recalled=0 if kept is None else kept.recalled,
        )
        asked = {name: frame for name, frame in frames.items() if name in kinds}
        if kept is None:
            return Pulled(asked, c.base_url, self._service_start(), calls, self.design)
        kept.note(complete=True)
        started = kept.manifest.get("pulled_at") or self._service_start().isoformat()
        return Pulled(
            asked,
            c.base_url,
            pd.Timestamp(started),
            calls,
            self.design,
            read_times=_stamps(kept.read_times(), kinds),
        )

    def _keep(self, keep: _Kept, opened: ExitStack) -> Checkpoint:
        """``keep``'s checkpoint opened for this pull's service, the client recording into it
        until the pull ends."""
        c = self.client
        kept = self.checkpoint = opened.enter_context(Checkpoint(keep.folder, keep.identity(c)))
        opened.enter_context(c.recording(kept))
        return kept

    def _read_when_stopped(self) -> PendingRate | None:
        """What the members read hold, those of the part under way answered before a stop
        in: a random sample when the reads go in parts (``next_part``); None otherwise."""
        if not self.projecting:
            return None
        read = self._read_so_far + self._landed
        return PendingRate.of(len(read), pending_holders(read))

    def _on_read(self, request: Request, found: Any) -> None:
        """A member read landed (``OnRead``): kept until its part ends."""
        if request.part == "cards":
            self._landed.append(found)

    def _whole(self, budget: PullBudget) -> int | None:
        """The calls of the whole pull, as a paced bar counts them once the lists are walked
        (``budget.planned``), its checkpoint's answers in: the list pages it gave back and,
        while the bucket lists are not counted yet, the bucket pages it holds (the bar
        counts every answer it holds done from the start, ``Checkpoint.answering``)."""
        if budget.planned is None:
            return None
        kept = self.checkpoint
        held = 0 if kept is None or budget.buckets_planned else kept.held["pending_buckets"]
        return budget.planned + budget.recalled + held

    def _unplanned(self, budget: PullBudget) -> str | None:
        """The calls ``_whole`` leaves out while they are not known: the bucket lists of a
        pull of them, until every member is read."""
        wanted = "pending_buckets" in self.kinds and not budget.buckets_planned
        return "the bucket lists (known once the members are read)" if wanted else None

    def _replaying(self, budget: PullBudget) -> bool:
        """Whether the bucket lists are not counted yet though the checkpoint holds every
        member read the pull needs: a resumed pull's total is about to count them, as it
        replays those reads (its earlier runs read every member)."""
        kept = self.checkpoint
        if kept is None or self._unplanned(budget) is None or not budget.reads:
            return False
        return kept.held["cards"] >= budget.reads

    def _budget(self, allowance: Allowance) -> PullBudget:
        """The budget of this pull, holding ``allowance`` (a refresh words its own)."""
        budget = PullBudget(allowance, self.client.quota, self.kinds, self.sample)
        budget.drawn = self._drawn
        return budget

    def _drawn(self, design: Sample) -> int:
        """The members ``design`` reads of those listed (an adaptive design: its ``n``)."""
        if self._listed_frame is None:
            self._listed_frame = members_frame(self._listed_members)
        draw = SampleDraw(self._listed_frame, design)
        return design.n if draw.adaptive else len(draw.first.units)

    def _tree_walk(self, depth: int, read: Callable[[list[Member]], list[Member]]) -> TreeWalk:
        """The member tree this pull walks (``pull.member_tree``), ``depth`` levels down."""
        return member_tree(depth, read=read, more=self._more, ahead=self._ahead, pending_only=True)

    def _ahead(self, left: list[Member], read: list[MemberWithCards]) -> list[Member]:
        """The members of a round to read next, of those ``left``: a part drawn at random
        when the bucket lists are projected (``fill.projection``), else all of them."""
        self._read_so_far, self._round_left = read, len(left)
        return next_part(left, len(read)) if self.projecting else left

    async def _pull(self, bar: ProgressBar, budget: PullBudget) -> dict[str, pd.DataFrame]:
        kinds = self.kinds
        # One walk per top-level list the kinds need (pull.program_lists), run together with
        # the member tree's lists; the tree's one-by-one reads wait for every list (their
        # pages are the cheap part, and then the rest is counted) and for the budget's check.
        lists = program_lists(kinds)
        listing = asyncio.ensure_future(gathered(*(self._walk(listed, bar) for listed in lists)))

        def by_part(found: Sequence[Any]) -> dict[ListPart, Any]:
            return {listed.part: items for listed, items in zip(lists, found, strict=True)}

        # Without bucket lists nothing is projected; a paced pull waits for what it needs.
        self.projecting = tree_depth(kinds) > 3 and not budget.allowance.paced

        async def before(step: Lists | Reads) -> None:
            if not step.requests or step.requests[0].part not in ("cards", "pending_buckets"):
                return
            part = step.requests[0].part
            if part == "cards":
                self._landed = []  # the part's answers, as they land
                self._reads_sent += len(step.requests)
                if budget.reads and self.projecting:  # a later part of the reads
                    read = self._read_so_far
                    rest = max(budget.reads - len(read), self._round_left)
                    budget.project(PendingRate.of(len(read), pending_holders(read)), rest)
                    return
            else:  # every member read: their bucket lists are these
                holders = (r.ids[:2] for r in step.requests)
                budget.rate = PendingRate.of(self._reads_sent, holders)
            walked = by_part(await listing)
            kept = self.checkpoint
            recalled = 0 if kept is None else kept.recalled  # list pages given back
            budget.lists_walked(by_id=len(self._unlisted(walked, ())), recalled=recalled)
            sampled = None if self.design is None else self.design.size
            needed = len(step.requests)
            if part == "cards":  # the whole round, not its first part
                needed = self._round_left
            if self.draw is not None and self.draw.adaptive and self.design is self.draw.first:
                # Before the pilot: the whole sample's reads must fit, not the pilot's alone.
                sampled = max(self.draw.sample.n, needed)
                needed = sampled
            budget.check(part, needed, members=self.listed, sampled=sampled)
            if self.pace is not None:  # its calls in all known: said now, not at a redraw
                self.pace.draw()

        found, tree = await gathered(
            listing, self._member_tree(bar, tree_depth(kinds), before, self._read)
        )
        walked = by_part(found)
        rewards: RewardPages = walked.get("rewards") or _reward_pages()
        benefits: list[Benefit] = walked.get("benefits", [])
        listed: list[CardDefinition] = walked.get("card_definitions", [])
        tiers: list[TierStructure] = walked.get("tier_structures", [])
        programs, members_found, details, buckets = tree
        fetched: list[CardDefinition] = []
        if "card_definitions" in kinds:
            fetched = await self._fetch_definitions(
                sorted(self._unlisted(walked, (details, buckets)))
            )
        definitions = card_definitions_frame(listed, unlisted=fetched)
        status = dict(zip(definitions["id"], definitions["status"].astype(object), strict=True))
        names = dict(zip(definitions["id"], definitions["name"].astype(object), strict=True))

        def marked(
            frame: pd.DataFrame, schema: Schema, names: dict[str, object] | None = None
        ) -> pd.DataFrame:
            # Without the card definitions pulled, whether a reference resolves is unknown (NA).
            if "card_definitions" not in kinds:
                return frame
            return mark_card_definitions(frame, schema, status, names)

        cards = cards_frame(details)
        pending = join_statuses(pending_buckets_frame(buckets), programs, members_found)
        if self.design is not None:
            cards, pending = self.design.keep(cards), self.design.keep(pending)
        return {
            "rewards": rewards.frame("rewards"),
            "reward_costs": marked(rewards.frame("reward_costs"), REWARD_COSTS, names=names),
            "benefits": marked(benefits_frame(benefits), BENEFITS),
            "card_definitions": definitions,
            "tier_structures": marked(tier_structures_frame(tiers), TIER_STRUCTURES),
            "programs": programs_frame(programs),
            "members": members_frame(members_found) if self.members is None else self.members,
            "cards": cards,
            "pending_buckets": pending,
        }

    def _read(self, members: list[Member]) -> list[Member]:
        """The members to read for their cards, of those listed: every one, or those the
        sample draws (stratified by what the list shows: program, status, join date)."""
        self.listed = len(members)
        self._listed_members = members  # what a smaller sample offered would draw from
        if self.sample is None:
            return members
        self.members = members_frame(members)
        self.draw = SampleDraw(self.members, self.sample)
        self.design = self.draw.first
        drawn = set(self.design.units["member_id"])
        return [m for m in members if m.id in drawn]

    def _more(self, read: list[MemberWithCards]) -> list[Member]:
        """An adaptive sample's second round: the members its pilot's points allocate."""
        if self.draw is None or not self.draw.adaptive:
            return []
        pilot = set(self.draw.first.units["member_id"])
        # points per member as ProgramSnapshot.sampled counts them: one definition
        self.design = self.draw.complete(member_points(cards_frame(read)))
        drawn = set(self.design.units["member_id"]) - pilot
        return [m for m in self._listed_members if m.id in drawn]

    def _unlisted(self, walked: Mapping[ListPart, Any], tree: tuple[Any, ...]) -> set[str]:
        """The card definitions referenced (by the lists, and by the tree's ``details`` and
        ``buckets`` when given) but not listed: each is read by ID."""
        if "card_definitions" not in self.kinds:
            return set()
        rewards: RewardPages = walked.get("rewards") or _reward_pages()
        details, buckets = tree if tree else ((), ())
        wanted = rewards.referenced | referenced_card_definitions(
            (), walked.get("benefits", []), walked.get("tier_structures", []), details, buckets
        )
        return wanted - {d.id for d in walked.get("card_definitions", [])}

    def _earlier(self, ends: float, limit: int | None) -> WindowCalls | None:
        """What the pull's earlier runs spent of the window ending at ``ends`` (``limit``
        its budget), from its checkpoint; None until the checkpoint is open."""
        kept = self.checkpoint
        return None if kept is None else kept.earlier(ends, limit)

    def _recorded(self, keep: _Kept) -> WindowCalls | None:
        """The window the pull's last run was in, from its checkpoint (``keep``'s folder: its
        manifest alone while the checkpoint is not open, as before hearing the service)."""
        kept = self.checkpoint
        return recorded_last_window(keep.folder) if kept is None else kept.last_window()

    def _note(self, allowance: Allowance) -> None:
        """Record in the checkpoint the pull's start, once the service's clock is known (the
        first run's start is the whole pull's), and what its runs spent of the window this
        one is in (``allowance``)."""
        kept = self.checkpoint
        if kept is None:
            return
        kept.note_window(partial(self.client.quota.window_calls, allowance))
        if "pulled_at" in kept.manifest:
            return
        if self.held_at_start is None and self.client.token_issued_at() is None:
            return  # no answer yet
        kept.note(pulled_at=self._service_start().isoformat())

    def _note_spent(self, allowance: Allowance) -> None:
        """Before a call of a paced pull goes out (counted by then): the checkpoint's record
        of the window this run is in counts it, spent ahead (``SPENT_AHEAD`` calls at a
        time), so a run killed with it in flight leaves it counted (nothing while no answer
        named the window: the run's first token request; an error writing the record stops
        the call unsent)."""
        kept = self.checkpoint
        if kept is not None:
            use = partial(self.client.quota.window_calls, allowance)
            kept.note_window(use, ahead=SPENT_AHEAD)

    def _service_start(self) -> pd.Timestamp:
        """The service's clock at the pull's start, from the token issued at its start (the
        service's ``expires_at - expires_in``): the one its first call brought, or a new one
        when the client already held a token. This machine's UTC time without a token, or,
        with an ``OddValueWarning``, when those times give no instant pandas can hold."""
        seconds = self.held_at_start
        if seconds is None:
            seconds = self.client.token_issued_at()
        if seconds is None:
            return utc_now()
        issued = service_instant(seconds)
        if issued is None:
            warnings.warn(
                f"token: expires_at - expires_in = {seconds!r} is no instant; "
                "using this machine's UTC time",
                OddValueWarning,
                stacklevel=2,
            )
            return utc_now()
        return issued

    def _walk(self, listed: ProgramList, bar: ProgressBar) -> Awaitable[Any]:
        """All of one top-level list: reward frames built as pages arrive, else the models."""
        pages = listed.pages(self.client)
        return _rewards(pages, bar) if listed.plain else _collect(pages, bar)

    async def _member_tree(
        self,
        bar: ProgressBar,
        depth: int,
        before: Callable[[Lists | Reads], Awaitable[None]],
        read: Callable[[list[Member]], list[Member]],
    ) -> tuple[list[Program], list[Member], list[MemberWithCards], list[PendingBucket]]:
        """Programs, their members, each member read for its cards, each card's buckets, as far
        down as ``depth`` (``pull.member_tree``), each level's requests ``concurrency`` at a
        time (with a sync client, its reads and bucket lists in its threads, ``each``): a
        member list has no cards, so a member costs one call, and a card one call per page of
        its buckets."""

        def counted(request: Request, page: Any) -> None:
            bar.advance(len(page.data), pages=1)

        async def run(starts: list[Callable[[], Awaitable[Any]]]) -> list[Any]:
            return await in_order(starts, self.concurrency)

        walk = self._tree_walk(depth, read)
        tree = await awalk_tree(
            walk,
            self.client,
            run=run,
            on_page=counted,
            before=before,
            level_bar=level_bars(self.progress),
            list_all=self.lists,
            in_threads=self._in_threads(),
            on_read=self._on_read,
        )
        return tree.programs, tree.members, tree.cards, tree.pending_buckets

    def _in_threads(self) -> InThreads | None:
        """A sync client's threads, its member reads and bucket lists handed to them a level
        at once (``ThreadedClient.each``); None for an async client."""
        client: Any = self.client
        return client if isinstance(client, ThreadedClient) else None

    async def _fetch_definitions(self, ids: list[str]) -> list[CardDefinition]:
        async def one(cid: str) -> CardDefinition | None:
            try:
                return await self.client.card_definitions.get(cid)
            except NotFoundError:
                return None

        found = await in_order([partial(one, i) for i in ids], self.concurrency)
        return [d for d in found if d is not None]


def _service_refusal(
    refused: QuotaExhaustedError, quota: Quota, used_before: int
) -> QuotaExhaustedError | None:
    """The service's own 429 (``sent``) that spent the window a pull's call was ``refused``
    in unsent, when a call of this pull (past ``used_before``) had it; else None.

    The pull's lists go together: once one hears the service's 429, the others are refused
    unsent for its window, and whichever fails first would be raised, a different text from
    run to run (the 429's part may still be unwinding, even cancelled, when another fails).
    """
    return None if refused.sent else quota.refusal_after(used_before)


def _stamps(
    times: Mapping[str, tuple[datetime, datetime]], kinds: frozenset[str]
) -> dict[str, tuple[pd.Timestamp, pd.Timestamp]]:
    """``times`` of the ``kinds`` pulled, as UTC timestamps."""
    return {
        kind: (pd.Timestamp(first), pd.Timestamp(last))
        for kind, (first, last) in times.items()
        if kind in kinds
    }


def _reward_pages() -> RewardPages:
    return RewardPages(FrameBuilder(REWARDS), FrameBuilder(REWARD_COSTS))


async def _rewards(pages: AsyncIterator[Any], bar: ProgressBar) -> RewardPages:
    """The reward frames of ``pages`` (``PlainPage``s), built as the pages arrive (a
    batch decoded in a worker thread, so the other parts of the pull go on meanwhile),
    counted on ``bar``; ``referenced``: the card definitions the rewards point at."""
    frames = _reward_pages()
    async for page in aread_ahead(pages, NATIVE_BATCH):
        rows = frames.add(page)
        if frames.full:
            rows += await asyncio.to_thread(frames.flush)
        bar.advance(rows, pages=1)
    bar.advance(await asyncio.to_thread(frames.close))
    return frames


async def _collect(pages: AsyncIterator[Page[T]], bar: ProgressBar) -> list[T]:
    """Every item of ``pages``, counted on ``bar`` as each page lands; the next page is
    requested while the current one is taken in."""
    items: list[T] = []
    async for page in aread_ahead(pages):
        items.extend(page.data)
        bar.advance(len(page.data), pages=1)
    return items
