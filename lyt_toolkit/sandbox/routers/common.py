"""Pieces every router shares: the loyalty router, ID path parameters, list pages, and the
list and get routes of a collection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic_core import to_json
from starlette.concurrency import run_in_threadpool

from ...models.ids import IdPrefix, hex_pattern
from ...models.listing import MAX_LIMIT, MIN_LIMIT, ListSpec
from ..auth import require_loyalty_access
from ..deps import state_of
from ..errors import bad_request
from ..query import ListQuery, fetch_page, parse_list_query
from ..services.lookup import stored_json
from ..state import SandboxState
from ..store_reads import read_store


def loyalty_router(path: str = "") -> APIRouter:
    """A router under ``/v2/loyalties``: every call needs a bearer token and the key pair."""
    return APIRouter(
        prefix=f"/v2/loyalties{path}",
        dependencies=[Depends(require_loyalty_access)],
        tags=["loyalties"],
    )


def id_path(prefix: IdPrefix, alias: str, description: str) -> Any:
    """A path parameter ``{alias}`` that must match the resource's ID pattern (else 400)."""
    return Path(alias=alias, pattern=hex_pattern(prefix), description=description)


async def _paging_parameters(
    limit: Annotated[
        int | None, Query(ge=MIN_LIMIT, le=MAX_LIMIT, description="page size, default 10")
    ] = None,
    order: Annotated[
        list[str] | None, Query(description="field, '-' prefix for descending")
    ] = None,
    cursor: Annotated[str | None, Query(description="cursor.next of the previous page")] = None,
) -> None:
    """Declares a list's paging parameters, for the OpenAPI document and a first check.

    ``parse_list_query`` re-reads the raw items, because deep-object filters
    cannot be declared as FastAPI parameters.
    """


PAGING = Depends(_paging_parameters)
"""``dependencies=[PAGING]`` on every keyset-paged list endpoint."""


def json_response(body: str | bytes) -> Response:
    """An answer already encoded as JSON: FastAPI neither validates it against the route's
    response model nor encodes it again (the model still describes it in the OpenAPI
    document)."""
    return Response(body, media_type="application/json")


def document_response(doc: dict[str, Any]) -> Response:
    """``json_response`` of a document as its model dumps it (a stored document, or one
    made of them), encoded once."""
    return json_response(to_json(doc))


async def require_json(request: Request) -> None:
    """A JSON body must say so; anything else is a 400 naming the header (``async``: FastAPI
    runs a plain function in its thread pool, a thread hop on every request)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json" and not content_type.endswith("+json"):
        shown = content_type or "none"
        raise bad_request(f"content-type: the body must be application/json, got {shown}")


async def list_page(
    request: Request, state: SandboxState, kind: str, spec: ListSpec, scope: str = ""
) -> Response:
    """The ``{data, cursor, object}`` envelope of one page of ``kind``, already encoded.

    Items are stored as the JSON the service sends, so a page is their
    concatenation; decoding and re-encoding 100 documents would cost more
    than the keyset query itself. Read on the event loop (``read_store``) when the
    page is read through an index alone (``ListQuery.indexed``) and the store is in
    memory (its new cursor waits for no disk), else in the thread pool.
    """
    query = parse_list_query(spec, request.query_params.multi_items())
    if query.indexed and state.store.in_memory:
        return await read_store(state.store, _page, state, kind, query, scope)
    return await run_in_threadpool(_page, state, kind, query, scope)


def _page(state: SandboxState, kind: str, query: ListQuery, scope: str) -> Response:
    page = fetch_page(
        state.store,
        kind,
        query,
        now=state.clock.now(),
        new_cursor_token=state.cursor_ids.new,
        cursor_ttl=state.config.cursor_ttl,
        scope=scope,
        full_page_cursor=state.faults.settings.full_page_cursor,
    )
    return Response(page.envelope_json(), media_type="application/json")


def list_route(
    router: APIRouter, path: str, spec: ListSpec, page_model: Any, doc: str | None = None
) -> None:
    """Declare ``GET path``, ``list_<kind>``: one page of ``spec``'s kind (``list_page``),
    described by ``page_model`` and ``doc``."""

    async def list_items(request: Request) -> Response:
        state = state_of(request)
        return await list_page(request, state, spec.name, spec)

    _add_get(router, path, list_items, f"list_{spec.name}", doc, page_model, [PAGING])


def get_route(
    router: APIRouter,
    path: str,
    spec: ListSpec,
    model: Any,
    id_parameter: Any,
    doc: str | None = None,
) -> None:
    """Declare ``GET path``, ``get_<kind without its s>``: the stored document whose ID the
    path holds (``id_parameter``, an ``id_path``), whatever its status, or a 404 naming it.

    The answer is the stored JSON as it is (the bytes a list page carries for the item),
    a ``json_response`` that ``model`` describes.
    """
    resource_type = spec.name.removesuffix("s")

    async def get_item(item_id: str, request: Request) -> Response:
        state = state_of(request)
        body = await read_store(state.store, stored_json, state, spec.name, item_id, resource_type)
        return json_response(body)

    get_item.__annotations__["item_id"] = id_parameter  # the caller's path parameter
    _add_get(router, path, get_item, f"get_{resource_type}", doc, model, [])


def _add_get(
    router: APIRouter,
    path: str,
    endpoint: Callable[..., Any],
    name: str,
    doc: str | None,
    model: Any,
    dependencies: list[Any],
) -> None:
    """Add ``endpoint`` as ``GET path`` named ``name`` (its OpenAPI operation ID and
    summary come from the name, its description from ``doc``)."""
    endpoint.__name__ = endpoint.__qualname__ = name
    endpoint.__doc__ = doc
    router.add_api_route(
        path,
        endpoint,
        methods=["GET"],
        name=name,
        response_model=model,
        dependencies=dependencies,
    )
