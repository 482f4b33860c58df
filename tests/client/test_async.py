"""The async client gives the same answers as the sync one, also under concurrency."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.errors import DuplicateFoundError, NotFoundError, RequestValidationError
from lyt_toolkit.sandbox import Sandbox

from .helpers import FAST_RETRY, Recorder, client_kwargs


def test_parity_with_the_sync_client(client: LoyaltyClient, fresh: Sandbox) -> None:
    async def pull() -> tuple:
        async with AsyncLoyaltyClient(**client_kwargs(fresh)) as aclient:
            return await asyncio.gather(
                aclient.rewards.list(limit=100),
                aclient.benefits.list(limit=100),
                aclient.card_definitions.get("lcdef_c0ffee0001"),
                aclient.tier_structures.list(limit=100),
                aclient.members.get("lprg_c0ffee0001", "lmbr_c0ffee0001"),
                aclient.projects.list(),
            )

    rewards, benefits, card_def, tiers, member, projects = asyncio.run(pull())
    assert rewards == client.rewards.list(limit=100)
    assert benefits == client.benefits.list(limit=100)
    assert card_def == client.card_definitions.get("lcdef_c0ffee0001")
    assert tiers == client.tier_structures.list(limit=100)
    assert member == client.members.get("lprg_c0ffee0001", "lmbr_c0ffee0001")
    assert projects == client.projects.list()


def test_async_iteration_and_one_token_for_concurrent_tasks(fresh: Sandbox) -> None:
    recorder = Recorder()

    async def run() -> tuple[list[str], list[list[str]]]:
        http = httpx.AsyncClient(event_hooks={"request": [_async(recorder)]}, verify=TLS)
        async with AsyncLoyaltyClient(**client_kwargs(fresh), http_client=http) as aclient:
            walked = [r.id async for r in aclient.rewards.iter(limit=3)]
            pages = await asyncio.gather(*(aclient.rewards.list(limit=100) for _ in range(8)))
        await http.aclose()
        return walked, [[r.id for r in p.data] for p in pages]

    walked, pages = asyncio.run(run())
    assert all(p == walked for p in pages)
    assert recorder.token_requests == 1


def test_async_errors_and_writes(fresh: Sandbox) -> None:
    body = {
        "name": "Async bonus",
        "type": "POINTS",
        "points": {"value": 3, "card_definition_id": "lcdef_c0ffee0001"},
    }

    async def run() -> list[object]:
        async with AsyncLoyaltyClient(**client_kwargs(fresh), retry=FAST_RETRY) as aclient:
            with pytest.raises(NotFoundError):
                await aclient.rewards.get("lrew_0000000000")
            return await asyncio.gather(
                *(aclient.benefits.create(body) for _ in range(4)), return_exceptions=True
            )

    results = asyncio.run(run())
    created = [r for r in results if not isinstance(r, BaseException)]
    assert len(created) == 1
    assert all(isinstance(r, DuplicateFoundError) for r in results if r not in created)


def _async(  # httpx wants an async hook on an AsyncClient
    recorder: Recorder,
) -> Callable[[httpx.Request], Awaitable[None]]:
    async def hook(request: httpx.Request) -> None:
        recorder(request)

    return hook


DOT_SEGMENT_CALLS = {
    "webhooks.delete": lambda c, dots: c.webhooks.delete("proj_NwStarter01", dots),
    "webhooks.list": lambda c, dots: c.webhooks.list(dots),
    "promotion_tiers.validate": lambda c, dots: c.promotion_tiers.validate(dots),
}
"""Calls whose path parameter a URL would read as a directory (``..`` the parent)."""


@pytest.mark.parametrize("dots", [".", ".."])
@pytest.mark.parametrize("call", DOT_SEGMENT_CALLS)
def test_a_dot_segment_id_is_refused_before_sending_in_both_clients(
    fresh: Sandbox, call: str, dots: str
) -> None:
    recorder = Recorder()

    async def in_async() -> None:
        http = httpx.AsyncClient(event_hooks={"request": [_async(recorder)]}, verify=TLS)
        async with AsyncLoyaltyClient(**client_kwargs(fresh), http_client=http) as aclient:
            await DOT_SEGMENT_CALLS[call](aclient, dots)
        await http.aclose()

    http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
    with (
        LoyaltyClient(**client_kwargs(fresh), http_client=http) as client,
        pytest.raises(RequestValidationError, match="directory") as refused,
    ):
        DOT_SEGMENT_CALLS[call](client, dots)
    http.close()
    with pytest.raises(RequestValidationError, match="directory") as refused_async:
        asyncio.run(in_async())
    assert refused.value.field == refused_async.value.field
    assert refused.value.field in ("project_id", "webhook_id", "tier_id")
    assert recorder.calls == []  # nothing sent, not even for a token


@pytest.mark.parametrize("surrogate", ["\ud800", "id-\udc80"])
@pytest.mark.parametrize("call", DOT_SEGMENT_CALLS)
def test_a_lone_surrogate_in_an_id_is_refused_before_sending_in_both_clients(
    fresh: Sandbox, call: str, surrogate: str
) -> None:
    """A lone surrogate has no UTF-8 form: ``quote`` raised a raw UnicodeEncodeError."""
    recorder = Recorder()

    async def in_async() -> None:
        http = httpx.AsyncClient(event_hooks={"request": [_async(recorder)]}, verify=TLS)
        async with AsyncLoyaltyClient(**client_kwargs(fresh), http_client=http) as aclient:
            await DOT_SEGMENT_CALLS[call](aclient, surrogate)
        await http.aclose()

    http = httpx.Client(event_hooks={"request": [recorder]}, verify=TLS)
    with (
        LoyaltyClient(**client_kwargs(fresh), http_client=http) as client,
        pytest.raises(RequestValidationError, match="surrogate") as refused,
    ):
        DOT_SEGMENT_CALLS[call](client, surrogate)
    http.close()
    with pytest.raises(RequestValidationError, match="surrogate") as refused_async:
        asyncio.run(in_async())
    assert refused.value.field == refused_async.value.field
    assert refused.value.field in ("project_id", "webhook_id", "tier_id")
    assert refused.value.field in str(refused.value)
    assert recorder.calls == []  # nothing sent, not even for a token


SURROGATE_VALUE_CALLS = {
    "customer.source_id": lambda c: c.promotion_tiers.validate(
        "promo_tier_1", customer={"source_id": "id-\ud800"}
    ),
    "metadata.tags[1]": lambda c: c.promotion_tiers.validate(
        "promo_tier_1", metadata={"tags": ["ok", "\udc80"]}
    ),
    "metadata": lambda c: c.promotion_tiers.validate(
        "promo_tier_1", metadata={"key-\ud800": "value"}
    ),
    "filters": lambda c: c.rewards.list(filters={"name": {"conditions": {"$is": ["\ud800"]}}}),
}
"""Calls whose body or query holds a lone surrogate, by the field the refusal names."""


@pytest.mark.parametrize("field", SURROGATE_VALUE_CALLS)
def test_a_lone_surrogate_in_a_body_or_query_is_refused_before_sending(field: str) -> None:
    sent: list[httpx.Request] = []

    def server(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    kwargs: dict[str, Any] = {
        "base_url": "http://127.0.0.1:9", "app_id": "app", "app_token": "app-token"
    }  # fmt: skip

    async def in_async() -> None:
        http = httpx.AsyncClient(transport=httpx.MockTransport(server))
        async with AsyncLoyaltyClient(**kwargs, env_file=None, http_client=http) as aclient:
            await SURROGATE_VALUE_CALLS[field](aclient)
        await http.aclose()

    http = httpx.Client(transport=httpx.MockTransport(server))
    with (
        LoyaltyClient(**kwargs, env_file=None, http_client=http) as client,
        pytest.raises(RequestValidationError, match="surrogate") as refused,
    ):
        SURROGATE_VALUE_CALLS[field](client)
    http.close()
    with pytest.raises(RequestValidationError, match="surrogate") as refused_async:
        asyncio.run(in_async())
    assert refused.value.field == refused_async.value.field
    assert refused.value.field is not None and refused.value.field.startswith(field)
    str(refused.value).encode()  # the message itself can be printed
    assert sent == []
