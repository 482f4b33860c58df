"""Management API: projects and their webhook configurations, each answer encoded once
(``json_response``; the response models describe them) on the event loop (``read_store``,
``write_store``), as the ``/v2`` routes answer."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request, Response

from ...models import CountedList, Project, Webhook
from ..auth import require_management
from ..deps import state_of
from ..services import management
from ..store_reads import read_store, write_store
from .common import json_response

router = APIRouter(
    prefix="/management/v1", dependencies=[Depends(require_management)], tags=["management"]
)

ProjectId = Annotated[str, Path(alias="projectId")]
WebhookId = Annotated[str, Path(alias="webhookId")]


@router.get("/projects", response_model=CountedList[Project])
async def list_projects(request: Request) -> Response:
    state = state_of(request)
    return json_response(await read_store(state.store, management.projects_json, state))


@router.get("/projects/{projectId}/webhooks", response_model=CountedList[Webhook])
async def list_webhooks(project_id: ProjectId, request: Request) -> Response:
    state = state_of(request)
    read = management.webhooks_json
    return json_response(await read_store(state.store, read, state, project_id))


@router.delete("/projects/{projectId}/webhooks/{webhookId}", status_code=204)
async def delete_webhook(
    project_id: ProjectId, webhook_id: WebhookId, request: Request
) -> Response:
    state = state_of(request)
    await write_store(state.store, management.delete_webhook, state, project_id, webhook_id)
    return Response(status_code=204)
