"""Pieces every router shares: the loyalty router, ID path parameters, list answers."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from ...models.ids import IdPrefix, hex_pattern
from ...models.listing import MAX_LIMIT, MIN_LIMIT, ListSpec
from ..auth import require_loyalty_access
from ..errors import bad_request
from ..query import fetch_page, parse_list_query
from ..state import SandboxState


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


def require_json(request: Request) -> None:
    """A JSON body must say so; anything else is a 400 naming the header."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json" and not content_type.endswith("+json"):
        shown = content_type or "none"
        raise bad_request(f"content-type: the body must be application/json, got {shown}")


def list_answer(
    request: Request, state: SandboxState, kind: str, spec: ListSpec, scope: str = ""
) -> Response:
    """The ``{data, cursor, object}`` envelope of one page of ``kind``, already encoded.

    Items are stored as the JSON the service sends, so a page is their
    concatenation; decoding and re-encoding 100 documents would cost more
    than the keyset query itself.
    """
    query = parse_list_query(spec, request.query_params.multi_items())
    page = fetch_page(
        state.store,
        kind,
        query,
        now=state.clock.now(),
        new_cursor_token=state.cursor_ids.new,
        cursor_ttl=state.config.cursor_ttl,
        scope=scope,
    )
    return Response(page.envelope_json(), media_type="application/json")
