"""``LoyaltyClient`` and ``AsyncLoyaltyClient``: one object per service connection.

Both resolve a ``ClientConfig``, share one ``RequestCore`` design and expose
the same resource groups; the only difference is how they wait for the
network. Each keeps one connection pool for its lifetime, so use it as a
context manager (or call ``close``) rather than making one per call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from typing_extensions import Unpack

from ._core import Call, RequestCore
from ._transport import AsyncTransport, SyncTransport
from .config import ClientConfig, ClientSettings
from .quota import Quota
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


def _raw_call(
    method: str,
    path: str,
    params: Mapping[str, Any] | Sequence[tuple[str, Any]] | None,
    json: Any,
) -> Call[Any]:
    items = params.items() if isinstance(params, Mapping) else (params or [])
    pairs: list[tuple[str, str]] = []
    for key, value in items:
        values = value if isinstance(value, list | tuple) else [value]
        pairs.extend((str(key), str(v)) for v in values)
    return Call(method, path, params=pairs, json=json)


class _Common:
    _config: ClientConfig
    _transport: SyncTransport | AsyncTransport

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
    def base_url(self) -> str:
        """The service address every call goes to, ``{cluster}`` filled in."""
        return self._config.resolved_base_url

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, app_id={self._config.app_id!r})"


class LoyaltyClient(_Common):
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

    def __init__(
        self,
        *,
        config: ClientConfig | None = None,
        http_client: httpx.Client | None = None,
        **settings: Unpack[ClientSettings],
    ) -> None:
        self._config = config or ClientConfig.resolve(**settings)
        self._transport = SyncTransport(RequestCore(self._config), http_client)
        t = self._transport
        self.oauth = OAuth(t)
        self.rewards = Rewards(t)
        self.benefits = Benefits(t)
        self.card_definitions = CardDefinitions(t)
        self.tier_structures = TierStructures(t)
        self.programs = Programs(t)
        self.members = Members(t)
        self.pending_buckets = PendingBuckets(t)
        self.promotion_tiers = PromotionTiers(t)
        self.projects = Projects(t)
        self.webhooks = Webhooks(t)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
        json: Any = None,
    ) -> Any:
        """Send any call with the client's auth and retries; returns decoded JSON.

        An escape hatch for endpoints or parameters the typed methods do not
        cover yet (BETA endpoints change). The only local check: ``json``
        numbers must fit the interface (64-bit integers, finite floats).
        """
        return self._transport.request(_raw_call(method, path, params, json))

    def close(self) -> None:
        """Close the connection pool (unless it was passed in by the caller)."""
        self._transport.close()

    def __enter__(self) -> LoyaltyClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncLoyaltyClient(_Common):
    """Asynchronous twin of ``LoyaltyClient`` over ``httpx.AsyncClient``; task-safe.

    >>> async with AsyncLoyaltyClient(base_url=...) as client:
    ...     rewards, benefits = await asyncio.gather(client.rewards.list(), client.benefits.list())
    """

    _transport: AsyncTransport

    def __init__(
        self,
        *,
        config: ClientConfig | None = None,
        http_client: httpx.AsyncClient | None = None,
        **settings: Unpack[ClientSettings],
    ) -> None:
        self._config = config or ClientConfig.resolve(**settings)
        self._transport = AsyncTransport(RequestCore(self._config), http_client)
        t = self._transport
        self.oauth = AsyncOAuth(t)
        self.rewards = AsyncRewards(t)
        self.benefits = AsyncBenefits(t)
        self.card_definitions = AsyncCardDefinitions(t)
        self.tier_structures = AsyncTierStructures(t)
        self.programs = AsyncPrograms(t)
        self.members = AsyncMembers(t)
        self.pending_buckets = AsyncPendingBuckets(t)
        self.promotion_tiers = AsyncPromotionTiers(t)
        self.projects = AsyncProjects(t)
        self.webhooks = AsyncWebhooks(t)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
        json: Any = None,
    ) -> Any:
        """Async twin of ``LoyaltyClient.request``."""
        return await self._transport.request(_raw_call(method, path, params, json))

    async def aclose(self) -> None:
        """Close the connection pool (unless it was passed in by the caller)."""
        await self._transport.aclose()

    close = aclose

    async def __aenter__(self) -> AsyncLoyaltyClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
