"""What one answer costs the sandbox: its thread hops and socket writes, counted over real
HTTP (the in-process sandbox's event loop is in this process), and the detail read that
answers the stored JSON as it is."""

from __future__ import annotations

import asyncio.selector_events
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import anyio.to_thread
import httpx
import pytest

from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.store import Store

from .helpers import P1, v2_client

V2 = "/v2/loyalties"
DETAILS = ("rewards", "card-definitions", "tier-structures")
"""The collections whose detail read answers the stored document."""


@pytest.fixture
def api(sandbox: Sandbox) -> Iterator[httpx.Client]:
    with v2_client(sandbox) as client:
        yield client


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[Any]:
    """Each call of ``owner.name`` from now on, by its arguments (the call goes on)."""
    calls: list[Any] = []
    original: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_detail_read_answers_the_bytes_its_list_page_holds(api: httpx.Client) -> None:
    for kind in DETAILS:
        page = api.get(f"{V2}/{kind}", params={"limit": 100})
        assert page.status_code == 200, page.text
        for item in page.json()["data"]:
            detail = api.get(f"{V2}/{kind}/{item['id']}")
            assert detail.status_code == 200, detail.text
            assert detail.headers["content-type"] == "application/json"
            assert detail.content in page.content, (kind, item["id"])
            assert detail.json() == item


def test_a_detail_read_and_its_token_check_take_no_worker_thread(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = {kind: api.get(f"{V2}/{kind}").json()["data"][0]["id"] for kind in DETAILS}
    hops = counting(monkeypatch, anyio.to_thread, "run_sync")
    for kind, id_ in ids.items():
        assert api.get(f"{V2}/{kind}/{id_}").status_code == 200
    assert api.get(f"{V2}/rewards/lrew_0000000000").status_code == 404
    assert hops == []


def test_a_list_page_read_through_an_index_takes_no_worker_thread(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its keyset query and new cursor are bounded work, on the loop; a filtered page may
    scan the whole list, so it is read in the thread pool, as is an order no index serves."""
    members = f"{V2}/programs/{P1}/members"
    indexed: list[tuple[str, dict[str, str | int | list[str]]]] = [
        (f"{V2}/rewards", {"limit": 1}),
        (f"{V2}/benefits", {"order": "name"}),
        (members, {"limit": 2}),
        (f"{members}/lmbr_c0ffee0001/cards/lcrd_c0ffee0001/pending-points", {}),
    ]
    cursor = api.get(members, params={"limit": 1}).json()["cursor"]["next"]
    indexed.append((members, {"limit": 1, "cursor": cursor}))
    hops = counting(monkeypatch, anyio.to_thread, "run_sync")
    for path, params in indexed:
        assert api.get(path, params=params).status_code == 200, path
    assert hops == []
    unbounded_pages: list[dict[str, str | list[str]]] = [
        {"filters[type][conditions][$is]": "DIGITAL"},
        {"order": ["name", "created_at"]},
    ]
    for unbounded in unbounded_pages:
        assert api.get(f"{V2}/rewards", params=unbounded).status_code == 200, unbounded
    assert len(hops) == 2


def test_a_busy_store_is_read_in_a_worker_thread_alike(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another thread holds the store (a long write), a read does not wait for it on
    the event loop: it goes to the thread pool, and answers the same."""
    path = f"{V2}/rewards/{api.get(f'{V2}/rewards').json()['data'][0]['id']}"
    free = api.get(path)
    hops = counting(monkeypatch, anyio.to_thread, "run_sync")
    monkeypatch.setattr(Store, "held_if_free", _never_free)
    busy = api.get(path)
    assert (busy.status_code, busy.content) == (free.status_code, free.content)
    assert len(hops) == 2  # the token check's store read, then the document's


def _never_free(self: Store) -> AbstractContextManager[bool]:
    """``Store.held_if_free`` as while another thread holds the store."""
    return nullcontext(False)


@pytest.mark.parametrize("path", [f"{V2}/rewards", f"{V2}/rewards?limit=abc", "/v2/nowhere"])
def test_an_answer_is_one_socket_write(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """Its head and body together: one write for the sandbox, one segment for the client."""
    transport = asyncio.selector_events._SelectorSocketTransport  # type: ignore[attr-defined]
    calls = counting(monkeypatch, transport, "write")
    for _ in range(2):
        calls.clear()
        response = api.get(path)
        writes = [bytes(data) for _, data in calls if data]  # uvicorn's b"" sends nothing
        assert len(writes) == 1, [data[:40] for data in writes]
        assert writes[0].endswith(response.content)
