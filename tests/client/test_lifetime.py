"""A client dropped without ``close``: the connections it opened go with it."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from shared_tls import TLS

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_kwargs


@contextmanager
def unclosed_sockets(sb: Sandbox) -> Iterator[list[str]]:
    """The warnings for sockets to ``sb`` left unclosed in the block, collected at its end.

    Garbage from earlier tests in the same process is collected before the block, and
    only sockets to this sandbox count: another test's leak is not this one's.
    """
    found: list[str] = []
    to_sandbox = f"raddr=('127.0.0.1', {httpx.URL(sb.base_url).port})"
    gc.collect()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield found
        gc.collect()
    found.extend(
        str(w.message)
        for w in seen
        if "unclosed" in str(w.message) and to_sandbox in str(w.message)
    )


def test_a_client_rebound_without_close_closes_the_connections_it_opened(
    sandbox: Sandbox,
) -> None:
    """As a notebook cell run twice does: ``client = LoyaltyClient(...)`` again."""
    with unclosed_sockets(sandbox) as found:
        client = LoyaltyClient(**client_kwargs(sandbox))
        assert len(client.rewards.list(limit=1).data) == 1  # a token and a page: connections
        client = LoyaltyClient(**client_kwargs(sandbox))
    assert found == []
    client.close()


def test_a_given_http_client_stays_open_when_the_client_is_dropped(sandbox: Sandbox) -> None:
    with httpx.Client(verify=TLS) as http:
        with unclosed_sockets(sandbox) as found:
            client = LoyaltyClient(**client_kwargs(sandbox), http_client=http)
            assert len(client.rewards.list(limit=1).data) == 1
            del client
        assert found == [] and not http.is_closed  # the caller's to close
        reused = LoyaltyClient(**client_kwargs(sandbox), http_client=http)
        assert len(reused.rewards.list(limit=1).data) == 1
