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

_USAGE = {"enabled": False, "value": 80, "in_app": False, "emails": []}
_CALLOUTS = {"email": False, "in_app": False, "emails": []}


def _project_defaults(doc: dict[str, Any]) -> dict[str, Any]:
    """Settings the reference always sends for a project; program files may omit them."""
    return {
        "description": "",
        "currency": "USD",
        "timezone": "UTC",
        "dial_code": None,
        "cluster_id": "eu1",
        "api_version": "v2018-08-01",
        "case_sensitive_codes": True,
        "client_trusted_domains": [],
        "client_redeem_enabled": False,
        "client_publish_enabled": False,
        "client_list_vouchers_enabled": False,
        "client_create_customer_enabled": False,
        "client_loyalty_events_enabled": False,
        "client_set_voucher_expiration_date_enabled": False,
        "api_usage_notifications": {
            key: dict(_USAGE)
            for key in (
                "redemptions",
                "messages",
                "api_calls",
                "bulk_api_calls",
                "webhook_calls",
                "cycle_calls",
            )
        },
        "webhooks_callout_notifications": {
            "distributions": dict(_CALLOUTS),
            "webhooks": dict(_CALLOUTS),
        },
        "is_sandbox": True,
        "webhook_version": "v2024-01-01",
        # Not a credential of this sandbox: a stable placeholder per project.
        "webhook_token": f"sandbox-webhook-token-{doc['id']}",
    }


def _public(doc: dict[str, Any], defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**(defaults or {}), **{k: v for k, v in doc.items() if k not in _INTERNAL}}


def _project_view(doc: dict[str, Any]) -> dict[str, Any]:
    return _public(doc, _project_defaults(doc))


def _webhook_view(doc: dict[str, Any]) -> dict[str, Any]:
    return _public(doc, {"object": "webhook", "active": True, "events": []})


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
    projects = [_project_view(p) for p in state.store.all("projects")]
    return {"object": "list", "data_ref": "data", "data": projects, "total": len(projects)}


@router.get("/projects/{projectId}/webhooks")
def list_webhooks(projectId: str, state: SandboxState = Depends(get_state)) -> dict[str, Any]:
    _project_with_webhooks(state, projectId)
    hooks = [_webhook_view(w) for w in state.store.all("webhooks", scope=projectId)]
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
