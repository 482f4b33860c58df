"""``ProgramSnapshot``: every kind of program data, pulled at once and cross-checked.

A snapshot pulls rewards, benefits, card definitions, tier structures and the
program -> member -> card -> pending bucket tree concurrently with the async
client. Card definitions that something references but the list did not
return are fetched by ID; references that still do not resolve are marked
(``card_definition_found`` False) rather than dropped, because a dangling
reference is exactly what an audit wants to see. Row order follows the
service's list order, so two pulls of the same data give equal frames.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import pandas as pd

from ..errors import LytError, NotFoundError
from ..models.listing import MAX_LIMIT
from .benefits import BENEFITS, benefits_frame
from .definitions import TIER_STRUCTURES, card_definitions_frame, tier_structures_frame
from .members import (
    PENDING_BUCKETS,
    cards_frame,
    members_frame,
    pending_buckets_frame,
    programs_frame,
)
from .registry import SCHEMAS
from .rewards import REWARD_COSTS, reward_costs_frame, rewards_frame
from .schema import Schema

__all__ = ["FRAME_NAMES", "ProgramSnapshot"]

T = TypeVar("T")

FRAME_NAMES: tuple[str, ...] = tuple(SCHEMAS)
"""The frames of a snapshot, in the order they are listed, exported and documented."""

DEFAULT_CONCURRENCY = 8


def _now() -> pd.Timestamp:
    return pd.Timestamp.now(tz="UTC")


@dataclass(eq=False)
class ProgramSnapshot:
    """Typed frames of one program's data as it stood at ``pulled_at``.

    ``source`` is the service's base URL (never credentials). ``pulled_at`` is
    the service's clock when the pull began, read from the token it issued
    (``expires_at - expires_in``), so audits of a sandbox with a fixed clock
    see that clock; it falls back to this machine's UTC time.
    """

    rewards: pd.DataFrame
    reward_costs: pd.DataFrame
    benefits: pd.DataFrame
    card_definitions: pd.DataFrame
    tier_structures: pd.DataFrame
    programs: pd.DataFrame
    members: pd.DataFrame
    cards: pd.DataFrame
    pending_buckets: pd.DataFrame
    source: str = ""
    pulled_at: pd.Timestamp = field(default_factory=_now)

    def frames(self) -> dict[str, pd.DataFrame]:
        """Frame name -> DataFrame, in ``FRAME_NAMES`` order."""
        return {name: getattr(self, name) for name in FRAME_NAMES}

    @classmethod
    def from_frames(
        cls,
        frames: Mapping[str, pd.DataFrame],
        *,
        source: str = "",
        pulled_at: Any = None,
    ) -> ProgramSnapshot:
        """A snapshot from ready frames; a missing kind becomes its empty frame."""
        unknown = set(frames) - set(FRAME_NAMES)
        if unknown:
            raise ValueError(f"unknown frame names {sorted(unknown)}; known: {FRAME_NAMES}")
        built = {n: frames.get(n, SCHEMAS[n].empty()) for n in FRAME_NAMES}
        stamp = _now() if pulled_at is None else pd.Timestamp(pulled_at)
        stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
        return cls(**built, source=public_url(source), pulled_at=stamp)

    def __repr__(self) -> str:
        counts = ", ".join(f"{n}={len(f)}" for n, f in self.frames().items())
        return f"ProgramSnapshot(source={self.source!r}, pulled_at={self.pulled_at}, {counts})"

    def to_csv(self, directory: str | Path) -> list[Path]:
        """Write one CSV per frame plus ``manifest.json``; returns the written paths.

        See ``lyt_toolkit.reports`` for the manifest and ``read_snapshot`` to read back.
        """
        from ..reports.snapshot_csv import write_snapshot

        return write_snapshot(self, directory)

    @classmethod
    def pull(
        cls,
        client: Any = None,
        *,
        progress: bool = True,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> ProgramSnapshot:
        """Pull everything, blocking until done.

        ``client`` may be a ``LoyaltyClient`` or ``AsyncLoyaltyClient`` (an async
        twin is built from its configuration), a ``ClientConfig``, a mapping of
        client keyword arguments, or None for the environment / ``.env``.
        Works inside Jupyter, whose event loop is already running.
        """

        def run() -> ProgramSnapshot:
            return asyncio.run(
                cls.apull(_settings_of(client), progress=progress, concurrency=concurrency)
            )

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return run()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(run).result()

    @classmethod
    async def apull(
        cls,
        client: Any = None,
        *,
        progress: bool = True,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> ProgramSnapshot:
        """Async twin of ``pull``; an ``AsyncLoyaltyClient`` given here is used as is."""
        from ..client import AsyncLoyaltyClient

        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if isinstance(client, AsyncLoyaltyClient):
            return await _Puller(client, progress, concurrency).run(cls)
        async with _async_client(client) as owned:
            return await _Puller(owned, progress, concurrency).run(cls)


def public_url(url: str) -> str:
    """``url`` without user info, query or fragment: safe to write into a manifest."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def _settings_of(client: Any) -> Any:
    """What to build an async client from (never an async client bound to another loop)."""
    from ..client import AsyncLoyaltyClient, LoyaltyClient

    if isinstance(client, LoyaltyClient | AsyncLoyaltyClient):
        return client.config
    return client


def _async_client(settings: Any) -> Any:
    from ..client import AsyncLoyaltyClient, ClientConfig

    if settings is None:
        return AsyncLoyaltyClient()
    if isinstance(settings, ClientConfig):
        return AsyncLoyaltyClient(config=settings)
    if hasattr(settings, "config") and isinstance(settings.config, ClientConfig):
        return AsyncLoyaltyClient(config=settings.config)
    if isinstance(settings, Mapping):
        return AsyncLoyaltyClient(**settings)
    raise TypeError(
        "pull() takes a LoyaltyClient, AsyncLoyaltyClient, ClientConfig, a dict of client "
        f"settings or None, not {type(settings).__name__}"
    )


class _Puller:
    """One concurrent pull: lists, the member tree, then card definition resolution."""

    def __init__(self, client: Any, progress: bool, concurrency: int) -> None:
        self.client = client
        self.limit = asyncio.Semaphore(concurrency)
        self.progress = progress
        self.bar: Any = None

    async def run(self, cls: type[ProgramSnapshot]) -> ProgramSnapshot:
        from tqdm.auto import tqdm

        c = self.client
        self.bar = tqdm(desc="snapshot", unit=" rows", disable=not self.progress, leave=False)
        try:
            pulled_at = await self._service_now()
            rewards, benefits, listed, tiers, tree = await _gather(
                self._collect(c.rewards.pages(limit=MAX_LIMIT)),
                self._collect(c.benefits.pages(limit=MAX_LIMIT)),
                self._collect(c.card_definitions.pages(limit=MAX_LIMIT)),
                self._collect(c.tier_structures.pages(limit=MAX_LIMIT)),
                self._member_tree(),
            )
            programs, members, details, buckets = tree
            wanted = _referenced(rewards, benefits, tiers, details, buckets)
            known = {d.id for d in listed}
            fetched = await self._fetch_definitions(sorted(wanted - known))
        finally:
            self.bar.close()
        definitions = card_definitions_frame(listed, unlisted=fetched)
        status = dict(zip(definitions["id"], definitions["status"].astype(object), strict=True))
        frames = {
            "rewards": rewards_frame(rewards),
            "reward_costs": _mark(reward_costs_frame(rewards), REWARD_COSTS, status),
            "benefits": _mark(benefits_frame(benefits), BENEFITS, status),
            "card_definitions": definitions,
            "tier_structures": _mark(tier_structures_frame(tiers), TIER_STRUCTURES, status),
            "programs": programs_frame(programs),
            "members": members_frame(members),
            "cards": cards_frame(details),
            "pending_buckets": _join_statuses(pending_buckets_frame(buckets), programs, members),
        }
        return cls.from_frames(frames, source=c.base_url, pulled_at=pulled_at)

    async def _service_now(self) -> pd.Timestamp:
        try:
            token = await self.client.oauth.token()
        except LytError:
            return _now()
        return pd.Timestamp(token.expires_at - token.expires_in, unit="s", tz="UTC")

    async def _bounded(self, start: Callable[[], Awaitable[T]]) -> T:
        """Run ``start()`` once a concurrency slot is free.

        Takes a factory rather than a coroutine so that a task cancelled while
        it waits for a slot leaves no coroutine behind that was never awaited.
        """
        async with self.limit:
            return await start()

    async def _collect(self, pages: AsyncIterator[Any]) -> list[Any]:
        items: list[Any] = []
        async for page in pages:
            items.extend(page.data)
            self.bar.update(len(page.data))
        return items

    async def _member_tree(self) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
        c = self.client
        programs = await self._collect(c.programs.pages(limit=MAX_LIMIT))
        per_program = await _gather(
            *(
                self._bounded(partial(self._collect, c.members.pages(p.id, limit=MAX_LIMIT)))
                for p in programs
            )
        )
        members = [m for group in per_program for m in group]
        details = await _gather(
            *(self._bounded(partial(c.members.get, m.program_id, m.id)) for m in members)
        )
        cards = [(m, mc.card) for m in details for mc in m.cards if mc.card is not None]
        per_card = await _gather(
            *(
                self._bounded(
                    partial(
                        self._collect,
                        c.pending_buckets.pages(m.program_id, m.id, card.id, limit=MAX_LIMIT),
                    )
                )
                for m, card in cards
            )
        )
        buckets = [b for group in per_card for b in group]
        return programs, members, details, buckets

    async def _fetch_definitions(self, ids: list[str]) -> list[Any]:
        async def one(cid: str) -> Any:
            try:
                return await self.client.card_definitions.get(cid)
            except NotFoundError:
                return None

        found = await _gather(*(self._bounded(partial(one, i)) for i in ids))
        return [d for d in found if d is not None]


async def _gather(*work: Awaitable[T]) -> list[T]:
    """``asyncio.gather`` that, when one part fails, cancels the others and waits for them.

    A plain gather leaves the other parts running after the first failure:
    they outlive the client that is closed on the way out and are torn down
    half-connected when the event loop stops (``coroutine ... was never
    awaited`` from inside httpx's connection code).
    """
    tasks = [asyncio.ensure_future(w) for w in work]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _referenced(
    rewards: Iterable[Any],
    benefits: Iterable[Any],
    tiers: Iterable[Any],
    members: Iterable[Any],
    buckets: Iterable[Any],
) -> set[str]:
    """Every card definition ID that the pulled data points at."""
    ids: set[str] = set()
    for r in rewards:
        for cost in r.costs:
            ids.update(s.card_definition_id for s in cost.spending or [])
        points = r.digital.loyalty_card_points if r.digital else None
        if points is not None:
            ids.add(points.card_definition_id)
    for b in benefits:
        for source in (b.points, b.points_proportional):
            if source is not None:
                ids.add(source.card_definition_id)
    ids.update(t.card_definition_id for t in tiers if t.card_definition_id)
    ids.update(mc.card.card_definition_id for m in members for mc in m.cards if mc.card)
    ids.update(b.card_definition_id for b in buckets)
    return ids


def _mark(frame: pd.DataFrame, schema: Schema, status: Mapping[str, Any]) -> pd.DataFrame:
    """Fill ``card_definition_found`` / ``card_definition_status`` from resolved definitions."""
    ids = frame["card_definition_id"].astype(object)
    found = [None if pd.isna(i) else i in status for i in ids]
    states = [None if pd.isna(i) else status.get(i) for i in ids]
    frame["card_definition_found"] = schema.by_name["card_definition_found"].array(found)
    frame["card_definition_status"] = schema.by_name["card_definition_status"].array(states)
    return frame


def _join_statuses(
    frame: pd.DataFrame, programs: Iterable[Any], members: Iterable[Any]
) -> pd.DataFrame:
    """Add each bucket's program and member status (what activation depends on)."""
    program_status = {p.id: p.status for p in programs}
    member_status = {m.id: m.status for m in members}
    cols = PENDING_BUCKETS.by_name
    frame["program_status"] = cols["program_status"].array(
        [program_status.get(i) for i in frame["program_id"].astype(object)]
    )
    frame["member_status"] = cols["member_status"].array(
        [member_status.get(i) for i in frame["member_id"].astype(object)]
    )
    return frame
