"""``LoyaltyClient`` and ``AsyncLoyaltyClient``: one object per service connection.

Both resolve a ``ClientConfig``, share one ``RequestCore`` design and expose
the same resource groups; the only difference is how they wait for the
network. Each keeps one connection pool for its lifetime, so use it as a
context manager (or call ``close``) rather than making one per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, Generic, TypeVar, overload

import httpx
from typing_extensions import Unpack

from ._core import Call, RequestCore
from ._flow import bearer_flow
from ._transport import AsyncTransport, SyncTransport
from .config import ClientConfig, ClientSettings
from .quota import Quota
from .recording import Recorder
from .resources.benefits import AsyncBenefits, Benefits
from .resources.card_definitions import AsyncCardDefinitions, CardDefinitions
from .resources.management import AsyncProjects, AsyncWebhooks, Projects, Webhooks
from .resources.oauth import AsyncOAuth, OAuth
from .resources.programs import (
    AsyncMembers,
    AsyncPendingBuckets,
    AsyncPrograms,
    Members,
    PendingBuckets,
    Programs,
)
from .resources.promotion_tiers import AsyncPromotionTiers, PromotionTiers
from .resources.rewards import AsyncRewards, Rewards
from .resources.tier_structures import AsyncTierStructures, TierStructures

__all__ = ["AsyncLoyaltyClient", "LoyaltyClient"]


RawParams = Mapping[str, Any] | Sequence[tuple[str, Any]] | None
"""The query of a raw ``request``: a mapping or pairs, a list value repeating its key."""


def _raw_call(method: str, path: str, params: RawParams, json: Any) -> Call[Any]:
    items = params.items() if isinstance(params, Mapping) else (params or [])
    pairs: list[tuple[str, str]] = []
    for key, value in items:
        values = value if isinstance(value, list | tuple) else [value]
        pairs.extend((str(key), str(v)) for v in values)
    return Call(method, path, params=pairs, json=json)


S = TypeVar("S")
A = TypeVar("A")


class _Group(Generic[S, A]):
    """A resource group of both clients, declared once with its two halves.

    ``LoyaltyClient`` gets the sync half and ``AsyncLoyaltyClient`` the async one, each
    built on first use around the client's transport and kept on the client.
    """

    def __init__(
        self, sync: Callable[[SyncTransport], S], async_: Callable[[AsyncTransport], A]
    ) -> None:
        self._halves = (sync, async_)
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        sync, async_ = (getattr(half, "__name__", repr(half)) for half in self._halves)
        return f"<resource group {self._name}: {sync} | {async_}>"

    def built_for(self, client_type: type) -> Callable[..., Any]:
        """The half a client of ``client_type`` gets."""
        return self._halves[issubclass(client_type, AsyncLoyaltyClient)]

    @overload
    def __get__(self, client: None, owner: type) -> _Group[S, A]: ...
    @overload
    def __get__(self, client: LoyaltyClient, owner: type) -> S: ...
    @overload
    def __get__(self, client: AsyncLoyaltyClient, owner: type) -> A: ...
    def __get__(self, client: _Common[Any] | None, owner: type) -> Any:
        if client is None:
            return self
        group = self.built_for(type(client))(client._transport)
        client.__dict__[self._name] = group  # later reads find it without this descriptor
        return group


H = TypeVar("H", httpx.Client, httpx.AsyncClient)


class _Common(Generic[H]):
    """What both clients are, around the pool ``H`` (``httpx.Client`` or ``AsyncClient``)."""

    _config: ClientConfig
    _transport: SyncTransport | AsyncTransport
    _transport_type: ClassVar[type[SyncTransport] | type[AsyncTransport]]

    oauth = _Group(OAuth, AsyncOAuth)
    rewards = _Group(Rewards, AsyncRewards)
    benefits = _Group(Benefits, AsyncBenefits)
    card_definitions = _Group(CardDefinitions, AsyncCardDefinitions)
    tier_structures = _Group(TierStructures, AsyncTierStructures)
    programs = _Group(Programs, AsyncPrograms)
    members = _Group(Members, AsyncMembers)
    pending_buckets = _Group(PendingBuckets, AsyncPendingBuckets)
    promotion_tiers = _Group(PromotionTiers, AsyncPromotionTiers)
    projects = _Group(Projects, AsyncProjects)
    webhooks = _Group(Webhooks, AsyncWebhooks)

    def __init__(
        self,
        *,
        config: ClientConfig | None = None,
        http_client: H | None = None,
        **settings: Unpack[ClientSettings],
    ) -> None:
        self._config = config or ClientConfig.resolve(**settings)
        pool: Any = http_client  # H matches the transport type, which mypy cannot see
        self._transport = self._transport_type(RequestCore(self._config), pool)

    def scrub(self, text: str) -> str:
        """``text`` with every credential this client holds (tokens included) masked as ``***``."""
        return self._transport.scrubber.text(text)

    @property
    def config(self) -> ClientConfig:
        """The resolved settings (credentials masked in any repr)."""
        return self._config

    @property
    def quota(self) -> Quota:
        """The project's call budget as the service last reported it, and this client's use.

        Shared by every thread or task using this client; unknown (``None`` fields)
        until an answer carries the budget headers.
        """
        return self._transport.quota

    @property
    def holds_token(self) -> bool:
        """Whether the next ``/v2`` call can use the bearer token held (no token request)."""
        return self._transport.tokens.current() is not None

    def token_issued_at(self) -> float | None:
        """When the service issued the bearer token this client holds, in Unix seconds on
        the service's own clock (``expires_at - expires_in``); None before the first ``/v2``
        call. Reading it sends nothing."""
        return self._transport.tokens.issued_at()

    def service_time(self) -> float | None:
        """The service's clock now (Unix seconds): the held token's issue time plus the time
        since it arrived on this machine's monotonic clock; None without a token. Sends nothing."""
        return self._transport.tokens.service_now()

    @property
    def _service_holds(self) -> str | None:
        """What the service last said it holds (a sandbox's ``Lyt-Sandbox-Holds`` header,
        ``_services``); None until an answer says, and always for the service itself."""
        return self._transport.holds

    @contextmanager
    def recording(self, recorder: Recorder) -> Iterator[None]:
        """Inside the block, GETs are answered from ``recorder`` when it holds their answer
        (no call sent or counted) and every answer is kept there (``client.recording``):
        how a checkpointed pull resumes without reading twice. One recorder at a time."""
        transport = self._transport
        if transport.recorder is not None:
            raise RuntimeError("this client is already recording into another recorder")
        transport.recorder = recorder
        try:
            yield
        finally:
            transport.recorder = None

    @property
    def base_url(self) -> str:
        """The service address every call goes to, ``{cluster}`` filled in."""
        return self._config.resolved_base_url

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, app_id={self._config.app_id!r})"


class LoyaltyClient(_Common[httpx.Client]):
    """Synchronous client over ``httpx.Client``; thread-safe.

    >>> with LoyaltyClient(base_url=sb.base_url, **sb.credentials.as_client_kwargs()) as client:
    ...     page = client.rewards.list(limit=10, filters={"name": {"$contains": "gold"}})

    The keyword settings are those of ``ClientSettings`` (base_url, cluster,
    app_id, app_token, management_id, management_token, scopes, timeout,
    retry, max_pages, max_wait, rate, env_file); any not passed come from ``LYT_*`` environment
    variables, then a ``.env`` file. ``config=`` takes an already resolved
    ``ClientConfig`` instead. Pass ``http_client=`` to reuse your own
    ``httpx.Client`` (proxies, certificates); the client then leaves closing
    it to you. In a child process forked after it was used, its first call opens
    connections of the child's own; one given ``http_client=`` raises
    ``ConfigurationError`` there instead (create it in the child).
    """

    _transport: SyncTransport
    _transport_type = SyncTransport

    def request(self, method: str, path: str, *, params: RawParams = None, json: Any = None) -> Any:
        """Send any call with the client's auth and retries; returns decoded JSON.

        An escape hatch for endpoints or parameters the typed methods do not
        cover yet (BETA endpoints change). ``params`` is a mapping or a list of
        pairs (a list value repeats its key). The only local check: ``json``
        numbers must fit the interface (64-bit integers, finite floats).
        """
        return self._transport.request(_raw_call(method, path, params, json))

    def fetch_token(self, *, fresh: bool = False) -> None:
        """Hold a bearer token for the ``/v2`` calls: sends nothing when one is held, else the
        token request the first ``/v2`` call would send (one call). Its answer carries the
        budget headers, so a fresh client learns the budget without a read. ``fresh=True``
        asks for a new token even when one is held (one call) and holds it in its place, so
        ``token_issued_at()`` reads the service's clock now and the calls that follow carry it."""
        transport = self._transport
        transport.run(
            bearer_flow(transport.core, transport.tokens, fresh=fresh, quota=transport.quota)
        )

    def close(self) -> None:
        """Close the connection pool (unless it was passed in by the caller)."""
        self._transport.close()

    def __enter__(self) -> LoyaltyClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncLoyaltyClient(_Common[httpx.AsyncClient]):
    """Asynchronous twin of ``LoyaltyClient`` over ``httpx.AsyncClient``; task-safe.

    >>> async with AsyncLoyaltyClient(base_url=...) as client:
    ...     rewards, benefits = await asyncio.gather(client.rewards.list(), client.benefits.list())
    """

    _transport: AsyncTransport
    _transport_type = AsyncTransport

    async def request(
        self, method: str, path: str, *, params: RawParams = None, json: Any = None
    ) -> Any:
        """Async twin of ``LoyaltyClient.request``."""
        return await self._transport.request(_raw_call(method, path, params, json))

    async def fetch_token(self, *, fresh: bool = False) -> None:
        """Async twin of ``LoyaltyClient.fetch_token``."""
        transport = self._transport
        await transport.run(
            bearer_flow(transport.core, transport.tokens, fresh=fresh, quota=transport.quota)
        )

    async def aclose(self) -> None:
        """Close the connection pool (unless it was passed in by the caller)."""
        await self._transport.aclose()

    close = aclose

    async def __aenter__(self) -> AsyncLoyaltyClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
