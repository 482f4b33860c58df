"""The send flow on its own: the steps it asks its driver for, without any I/O."""

from __future__ import annotations

from typing import Any

import httpx

from lyt_toolkit.client import ClientConfig, RetryConfig
from lyt_toolkit.client._auth import TokenCache
from lyt_toolkit.client._core import Call, RequestCore
from lyt_toolkit.client._flow import Bearer, Close, Flow, Send, Sleep, request_flow, send_flow

RETRY = RetryConfig(max_attempts=3, backoff_base=0.01, backoff_max=0.01)
REWARDS: Call[Any] = Call("GET", "/v2/loyalties/rewards")


def core() -> RequestCore:
    config = ClientConfig.resolve(
        base_url="https://api.example.com", app_id="a", app_token="t", retry=RETRY, env_file=None
    )
    return RequestCore(config)


def answer(step: object, status: int) -> httpx.Response:
    assert isinstance(step, Send)
    return httpx.Response(status, json={}, request=step.request)


def kinds(flow: Flow[Any], replies: list[Any]) -> list[str]:
    """The step kinds ``flow`` yields when each Send gets the next reply in ``replies``."""
    seen: list[str] = []
    step = next(flow)
    try:
        while True:
            seen.append(type(step).__name__)
            if isinstance(step, Send):
                reply = replies.pop(0)
                step = flow.send(answer(step, reply) if isinstance(reply, int) else reply)
            elif isinstance(step, Bearer):
                step = flow.send(("token", 1))
            else:
                assert isinstance(step, Sleep | Close)
                step = flow.send(None)
    except StopIteration:
        return seen


def test_a_503_on_a_get_is_closed_slept_on_and_resent() -> None:
    flow = send_flow(core(), REWARDS, "token")
    assert kinds(flow, [503, 200]) == ["Send", "Close", "Sleep", "Send"]


def test_a_connection_error_on_a_get_is_slept_on_and_resent() -> None:
    flow = send_flow(core(), REWARDS, "token")
    assert kinds(flow, [httpx.ConnectError("refused"), 200]) == ["Send", "Sleep", "Send"]


def test_a_401_on_v2_asks_for_a_new_token_once() -> None:
    flow = request_flow(core(), TokenCache(30.0), REWARDS)
    assert kinds(flow, [401, 200]) == ["Bearer", "Send", "Bearer", "Send"]
