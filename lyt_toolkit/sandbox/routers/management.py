"""Management API: projects and their webhook configurations."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Response

from ...models import CountedList, Project, Webhook
from ..auth import require_management
from ..deps import StateDep
from ..services import management

router = APIRouter(
    prefix="/management/v1", dependencies=[Depends(require_management)], tags=["management"]
)

ProjectId = Annotated[str, Path(alias="projectId")]
WebhookId = Annotated[str, Path(alias="webhookId")]


@router.get("/projects", response_model=CountedList[Project])
def list_projects(state: StateDep) -> dict[str, Any]:
    return management.list_projects(state)


@router.get("/projects/{projectId}/webhooks", response_model=CountedList[Webhook])
def list_webhooks(project_id: ProjectId, state: StateDep) -> dict[str, Any]:
    return management.list_webhooks(state, project_id)


@router.delete("/projects/{projectId}/webhooks/{webhookId}", status_code=204)
def delete_webhook(project_id: ProjectId, webhook_id: WebhookId, state: StateDep) -> Response:
    management.delete_webhook(state, project_id, webhook_id)
    return Response(status_code=204)
