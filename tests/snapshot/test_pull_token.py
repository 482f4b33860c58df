"""A pull on a client that already holds a token: the token it asks for, to read the
service's clock, is the one its calls then carry (one token request, as without a token)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd
from shared_tls import TLS

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox

KINDS = ["rewards", "benefits"]


class Sent:
    """Every answer a client received: status, path and the bearer token's last characters."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, str, str]] = []

    def __call__(self, response: httpx.Response) -> None:
        bearer = response.request.headers.get("authorization", "")
        self.answers.append((response.status_code, response.request.url.path, bearer[-8:]))

    def pull(self, client: LoyaltyClient) -> tuple[ProgramSnapshot, list[tuple[int, str, str]]]:
        """``client``'s pull of ``KINDS`` and the answers it received."""
        self.answers.clear()
        snapshot = ProgramSnapshot.pull(client, kinds=KINDS, progress=False)
        return snapshot, list(self.answers)


def _client(sb: Sandbox, make_client: Callable[..., LoyaltyClient]) -> tuple[LoyaltyClient, Sent]:
    sent = Sent()
    return make_client(
        sb, http_client=httpx.Client(event_hooks={"response": [sent]}, verify=TLS)
    ), sent


def _token_and_reads(answers: list[tuple[int, str, str]]) -> None:
    """One token request first, then reads that all carry the token it brought."""
    assert answers[0][1] == "/oauth/token"
    reads = answers[1:]
    assert {status for status, _, _ in reads} == {200}
    assert all(path.startswith("/v2/") for _, path, _ in reads)
    assert len({bearer for _, _, bearer in reads}) == 1


def test_two_pulls_in_a_row_each_send_one_token_request_and_use_it(
    demo: Any, make_client: Callable[..., LoyaltyClient]
) -> None:
    client, sent = _client(demo, make_client)
    with client:
        first, first_answers = sent.pull(client)
        second, second_answers = sent.pull(client)
    _token_and_reads(first_answers)
    _token_and_reads(second_answers)
    assert first.calls is not None and second.calls is not None
    assert second.calls.used == first.calls.used == len(first_answers)
    # the second pull's reads carry the token it asked for, not the first pull's
    assert second_answers[1][2] != first_answers[1][2]


def test_a_pull_after_the_clock_moved_sends_no_refused_call(
    demo: Any, make_client: Callable[..., LoyaltyClient]
) -> None:
    client, sent = _client(demo, make_client)
    with client:
        first, _ = sent.pull(client)
        now = demo.advance_clock(3600)  # the token held has lapsed on the service's clock
        later, answers = sent.pull(client)
    _token_and_reads(answers)  # no 401, no second token request
    assert first.calls is not None and later.calls is not None
    assert later.calls.used == first.calls.used == len(answers)
    assert later.pulled_at == pd.Timestamp(now)
