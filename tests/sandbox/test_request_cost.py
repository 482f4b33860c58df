"""What one answer costs the sandbox: its thread hops, tasks and socket writes, counted over real
HTTP (the in-process sandbox's event loop is in this process), and the detail and member
reads and the writes that answer the stored JSON as it is, not through their models; the
management routes answer their JSON encoded once, not through FastAPI's response models."""

from __future__ import annotations

import asyncio.selector_events
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import anyio.to_thread
import fastapi.dependencies.utils
import fastapi.routing
import httpx
import pytest
from interrupting import HANG
from shared_tls import TLS

from lyt_toolkit.models import (
    AccessToken,
    ActivationResult,
    Benefit,
    MemberWithCards,
    Program,
    ProjectList,
    Reward,
    TierStructure,
    WebhookList,
)
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import DEMO_PROGRAM
from lyt_toolkit.sandbox.services import programs
from lyt_toolkit.sandbox.store import Store

from .helpers import P1, assert_bad_request, assert_error, v2_client
from .serving import KEYS, benefit_body

V2 = "/v2/loyalties"
DETAILS = ("rewards", "card-definitions", "tier-structures")
"""The collections whose detail read answers the stored document."""
MEMBERS = f"{V2}/programs/{P1}/members"


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


def modelled(model: Any, response: httpx.Response) -> bytes:
    """The bytes FastAPI sent for ``response``'s JSON when it validated the answer against
    ``model`` and dumped it."""
    return bytes(
        model.model_validate_json(response.content).model_dump_json(by_alias=True).encode()
    )


DELETED_BENEFIT = "lben_c0ffee0006"
"""A benefit of the demo program in status DELETED: its read is a 404, as for no benefit."""


def test_a_program_or_benefit_read_takes_no_worker_thread_and_answers_its_models_bytes(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Answered from the stored JSON (``get_route``), as a detail read: the bytes FastAPI
    sent when it validated them against the model and dumped them."""
    reads: list[tuple[str, Any]] = [
        (f"{V2}/programs/{p['id']}", Program) for p in api.get(f"{V2}/programs").json()["data"]
    ]
    benefits = api.get(f"{V2}/benefits", params={"limit": 100}).json()["data"]
    reads += [(f"{V2}/benefits/{b['id']}", Benefit) for b in benefits]
    hops = counting(monkeypatch, anyio.to_thread, "run_sync")
    for path, model in reads:
        response = api.get(path)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/json"
        assert response.content == modelled(model, response), path
    assert_error(api.get(f"{V2}/benefits/{DELETED_BENEFIT}"), 404, "not_found")
    assert_error(api.get(f"{V2}/benefits/lben_0000000000"), 404, "not_found")
    assert_error(api.get(f"{V2}/programs/lprg_0000000000"), 404, "not_found")
    assert_bad_request(api.get(f"{V2}/programs/not-a-program"), "programId")
    assert hops == []


@pytest.mark.parametrize("path", ["/oauth/token", "/v1/oauth/token"])
def test_a_token_request_takes_no_worker_thread_and_answers_its_models_bytes(
    sandbox: Sandbox, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    form = {"grant_type": "client_credentials", "scope": "loyalties promotions"}
    with httpx.Client(base_url=sandbox.base_url, headers=KEYS, verify=TLS) as client:
        hops = counting(monkeypatch, anyio.to_thread, "run_sync")
        response = client.post(path, data=form)
        refused = client.post(path, data={**form, "grant_type": "password"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.content == modelled(AccessToken, response)
    assert response.json()["scope"] == "loyalties promotions"
    assert_bad_request(refused, "grant_type")
    assert hops == []


def test_a_member_read_takes_no_worker_thread(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    hops = counting(monkeypatch, anyio.to_thread, "run_sync")
    for member in ("lmbr_c0ffee0001", "lmbr_c0ffee0002"):
        assert api.get(f"{MEMBERS}/{member}").status_code == 200, member
    assert_error(api.get(f"{MEMBERS}/lmbr_0000000000"), 404, "not_found")
    assert_error(api.get(f"{V2}/programs/lprg_0000000000/members/lmbr_c0ffee0001"), 404)
    assert_bad_request(api.get(f"{MEMBERS}/not-a-member"), "memberId")
    assert hops == []


def test_a_member_read_answers_the_bytes_its_model_dumps(api: httpx.Client) -> None:
    members = api.get(MEMBERS, params={"limit": 100}).json()["data"]
    for member in members:
        response = api.get(f"{MEMBERS}/{member['id']}")
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/json"
        assert response.content == modelled(MemberWithCards, response)
        assert {k: v for k, v in response.json().items() if k != "cards"} == member
    assert any(api.get(f"{MEMBERS}/{m['id']}").json()["cards"] for m in members)


def test_a_card_created_at_spelled_otherwise_is_answered_as_the_model_spells_it(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
) -> None:
    """A program file's card may spell its creation time as the service does not; the
    member read answers it as ``MemberCard`` sends it, as before."""
    program = json.loads(DEMO_PROGRAM.read_text())
    card = next(c for c in program["cards"] if c["member_id"] == "lmbr_c0ffee0001")
    card["created_at"] = "2025-03-01T12:00:00+02:00"
    with start_sandbox(program) as sb, v2_client(sb) as client:
        response = client.get(f"{MEMBERS}/lmbr_c0ffee0001")
    assert response.status_code == 200, response.text
    assert response.content == modelled(MemberWithCards, response)
    created = {c["card"]["id"]: c["created_at"] for c in response.json()["cards"]}
    assert created[card["id"]] == "2025-03-01T10:00:00.000Z"


WRITES: list[tuple[str, str, dict[str, Any] | None, Any]] = [
    ("POST", f"{V2}/benefits", benefit_body("Hopless"), Benefit),
    ("POST", f"{V2}/rewards/lrew_c0ffee0001/draft", None, Reward),
    ("DELETE", f"{V2}/tier-structures/lts_c0ffee0002", None, TierStructure),
    (
        "POST",
        f"{MEMBERS}/lmbr_c0ffee0001/cards/lcrd_c0ffee0001/pending-points/lcppb_c0ffee0001/activate",
        None,
        ActivationResult,
    ),
]
"""Each write endpoint of ``/v2``: method, path, body and the model of its answer."""


def test_a_write_takes_no_worker_thread_and_answers_its_models_bytes(
    restore: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a store in memory: only the activation's settling, after the answer, takes one.

    The activation goes last: a request arriving while its settling holds the store waits
    in the thread pool, as it should, and would count as a hop here (on a loaded machine)."""
    *writes, activation = WRITES
    with v2_client(restore) as api:
        hops = counting(monkeypatch, anyio.to_thread, "run_sync")

        def answered(method: str, path: str, body: dict[str, Any] | None, model: Any) -> None:
            response = api.request(method, path, json=body)
            assert response.status_code == 200, response.text
            assert response.headers["content-type"] == "application/json"
            assert response.content == modelled(model, response)

        for write in writes:
            answered(*write)
        assert_error(api.post(f"{V2}/rewards/lrew_c0ffee0001/draft"), 409)
        assert_error(api.post(f"{V2}/benefits", json=benefit_body("Hopless")), 409)
        assert_bad_request(api.post(f"{V2}/benefits", json={"name": "No type"}), "type")
        answered(*activation)
    assert [h for h in hops if getattr(h[0], "func", None) is not programs.settle_later] == []


def test_an_activation_answered_before_a_reset_settles_nothing_after_it(
    restore: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its settling, due after the reset, leaves the reloaded store alone (not even held: a
    read then would go to the thread pool)."""
    settled: list[str] = []
    reset, done = threading.Event(), threading.Event()
    settle, later = programs.settle_activation, programs.settle_later

    def recorded(state: Any, transaction_id: str, bucket_id: str) -> None:
        settled.append(bucket_id)
        settle(state, transaction_id, bucket_id)

    def signalled(*args: Any) -> None:
        try:
            assert reset.wait(HANG)  # its sleep begins once the sandbox was reset
            later(*args)
        finally:
            done.set()

    monkeypatch.setattr(programs, "settle_activation", recorded)
    monkeypatch.setattr(programs, "settle_later", signalled)
    method, path, body, _ = next(w for w in WRITES if w[1].endswith("/activate"))
    with v2_client(restore) as api:
        assert api.request(method, path, json=body).status_code == 200
    restore.reset()
    reset.set()
    assert done.wait(HANG)
    assert settled == []


PROJECTS = "/management/v1/projects"


def test_a_management_call_takes_no_worker_thread_nor_response_model_and_answers_its_bytes(
    restore: Sandbox, management_headers: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project and webhook lists answer the bytes their models dump, encoded once (FastAPI
    serializes no answer through a response model), on the event loop, as the delete does."""
    with httpx.Client(base_url=restore.base_url, headers=management_headers, verify=TLS) as api:
        hops = counting(monkeypatch, anyio.to_thread, "run_sync")
        serialized = counting(monkeypatch, fastapi.routing, "serialize_response")
        projects = api.get(PROJECTS)
        hooks = api.get(f"{PROJECTS}/proj_NwMain01/webhooks")
        deleted = api.delete(f"{PROJECTS}/proj_NwMain01/webhooks/wh_NwMainLoyalty01")
        assert_error(api.get(f"{PROJECTS}/proj_NwStarter01/webhooks"), 402)
        assert_error(api.get(f"{PROJECTS}/proj_Nowhere/webhooks"), 404, "not_found")
    assert (projects.status_code, hooks.status_code, deleted.status_code) == (200, 200, 204)
    for response, model in ((projects, ProjectList), (hooks, WebhookList)):
        assert response.headers["content-type"] == "application/json"
        assert response.content == modelled(model, response)
    assert len(projects.json()["data"]) == 3 and len(hooks.json()["data"]) == 2
    assert serialized == []
    assert hops == []


@pytest.mark.parametrize("store", ["on disk", "busy"])
def test_a_write_to_a_file_or_busy_store_is_made_in_a_worker_thread(
    restore: Sandbox, monkeypatch: pytest.MonkeyPatch, store: str
) -> None:
    """A file's commit waits for the disk, a busy store for the write holding it: neither
    on the event loop."""
    with v2_client(restore) as api:
        hops = counting(monkeypatch, anyio.to_thread, "run_sync")
        if store == "busy":
            monkeypatch.setattr(Store, "held_if_free", _never_free)
        else:
            monkeypatch.setattr(Store, "in_memory", False)
        response = api.post(f"{V2}/benefits", json=benefit_body(f"Written {store}"))
    assert response.status_code == 200, response.text
    assert len(hops) == (2 if store == "busy" else 1)  # (busy: the token check's read too)


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
    member = f"{MEMBERS}/lmbr_c0ffee0001"
    monkeypatch.undo()
    free = api.get(member)
    hops = counting(monkeypatch, anyio.to_thread, "run_sync")
    monkeypatch.setattr(Store, "held_if_free", _never_free)
    busy = api.get(member)
    assert (busy.status_code, busy.content) == (free.status_code, free.content)
    assert len(hops) == 2


def _never_free(self: Store) -> AbstractContextManager[bool]:
    """``Store.held_if_free`` as while another thread holds the store."""
    return nullcontext(False)


@pytest.mark.parametrize(
    "path",
    [f"{V2}/rewards", f"{V2}/rewards?limit=abc", "/v2/nowhere", f"{MEMBERS}/lmbr_c0ffee0001"],
)
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


ONE_TASK_CALLS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", f"{V2}/rewards", None),
    ("GET", f"{MEMBERS}/lmbr_c0ffee0001", None),
    ("GET", f"{V2}/rewards/lrew_0000000000", None),
    ("POST", f"{V2}/benefits", benefit_body("One task")),
    ("POST", f"{V2}/benefits", {"name": "No type"}),
]
"""Reads, an error, a write with its JSON body and a refused one."""


def test_an_answer_is_made_in_its_requests_one_task(
    restore: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its body is read against the body timeout on the request's own task (uvicorn's),
    not in a task of its own, as ``asyncio.wait_for`` made: each task took turns of the
    event loop, a good share of a small answer's CPU earlier."""
    with v2_client(restore) as api:
        assert api.get(f"{V2}/rewards").status_code == 200  # the connection (a task) made
        for method, path, body in ONE_TASK_CALLS:
            tasks = counting(monkeypatch, asyncio.BaseEventLoop, "create_task")
            response = api.request(method, path, json=body)
            assert response.status_code in (200, 400, 404), response.text
            assert len(tasks) == 1, (method, path)
            monkeypatch.undo()


SOLVED_CALLS: list[tuple[str, str, dict[str, Any] | None, int]] = [
    ("GET", f"{V2}/rewards/lrew_c0ffee0001", None, 1),
    ("GET", f"{V2}/rewards", None, 2),  # and its paging parameters
    ("GET", f"{MEMBERS}/lmbr_c0ffee0001", None, 1),
    ("GET", f"{MEMBERS}/lmbr_0000000000", None, 1),
    ("POST", f"{V2}/benefits", benefit_body("Few dependencies"), 2),  # and its JSON check
]
"""Calls and how many dependencies each route declares: its auth rule, and what else."""


def test_a_call_solves_only_the_dependencies_its_route_declares(
    restore: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its auth rule and endpoint take the request, not the sandbox's state as a dependency
    of their own: FastAPI solved that for each of them on every call, cached or not."""
    with v2_client(restore) as api:
        for method, path, body, declared in SOLVED_CALLS:
            route = counting(monkeypatch, fastapi.routing, "solve_dependencies")
            nested = counting(monkeypatch, fastapi.dependencies.utils, "solve_dependencies")
            response = api.request(method, path, json=body)
            assert response.status_code in (200, 404), response.text
            assert (len(route), len(nested)) == (1, declared), (method, path)
            monkeypatch.undo()
