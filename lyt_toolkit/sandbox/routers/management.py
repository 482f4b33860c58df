"""Management API: projects and their webhook configurations."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Response

from ..auth import require_management
from ..errors import ServiceError, not_found
from ..state import SandboxState, get_state
from .common import require

router = APIRouter(
    prefix="/management/v1", dependencies=[Depends(require_management)], tags=["management"]
)

_INTERNAL = ("plan",)


def _public(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in _INTERNAL}


def _project_with_webhooks(state: SandboxState, project_id: str) -> dict[str, Any]:
    """The project, or 404; 402 when its plan does not include webhooks."""
    project = require(state, "projects", project_id, "project")
    if not project.get("plan", {}).get("webhooks", True):
        raise ServiceError(
            402,
            "missing_required_feature",
            "Payment required",
            "Your current plan does not include a feature required to perform this operation.",
        )
    return project


@router.get("/projects")
def list_projects(state: SandboxState = Depends(get_state)) -> dict[str, Any]:
    projects = [_public(p) for p in state.store.all("projects")]
    return {"object": "list", "data_ref": "data", "data": projects, "total": len(projects)}


@router.get("/projects/{projectId}/webhooks")
def list_webhooks(projectId: str, state: SandboxState = Depends(get_state)) -> dict[str, Any]:
    _project_with_webhooks(state, projectId)
    hooks = [_public(w) for w in state.store.all("webhooks", scope=projectId)]
    return {"object": "list", "data_ref": "data", "data": hooks, "total": len(hooks)}


@router.delete("/projects/{projectId}/webhooks/{webhookId}", status_code=204)
def delete_webhook(
    projectId: str, webhookId: str, state: SandboxState = Depends(get_state)
) -> Response:
    with state.store.transaction():
        _project_with_webhooks(state, projectId)
        if state.store.get("webhooks", webhookId, scope=projectId) is None:
            raise not_found("webhook", webhookId)
        state.store.delete("webhooks", webhookId)
    return Response(status_code=204)
