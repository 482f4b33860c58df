"""Management: projects, as the reference sends them, and their webhook configurations."""

from __future__ import annotations

from typing import Any

from ...models import ProjectList, WebhookList
from ..errors import ServiceError, not_found
from ..state import SandboxState
from .lookup import require

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


def _counted(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"object": "list", "data_ref": "data", "data": items, "total": len(items)}


def projects_json(state: SandboxState) -> bytes:
    """Every project, with the settings the reference always sends, as JSON: the bytes
    ``ProjectList`` dumps (a program file's project is stored as the file spells it)."""
    projects = _counted([_project_view(p) for p in state.store.all("projects")])
    return ProjectList.model_validate(projects).model_dump_json(by_alias=True).encode()


def webhooks_json(state: SandboxState, project_id: str) -> bytes:
    """The project's webhooks as JSON, the bytes ``WebhookList`` dumps; 404 for no such
    project, 402 when its plan has no webhooks."""
    _project_with_webhooks(state, project_id)
    hooks = _counted([_webhook_view(w) for w in state.store.all("webhooks", scope=project_id)])
    return WebhookList.model_validate(hooks).model_dump_json(by_alias=True).encode()


def delete_webhook(state: SandboxState, project_id: str, webhook_id: str) -> None:
    """Delete one webhook of the project (the same 404 and 402 as listing them)."""
    with state.store.transaction():
        _project_with_webhooks(state, project_id)
        if state.store.get("webhooks", webhook_id, scope=project_id) is None:
            raise not_found("webhook", webhook_id)
        state.store.delete("webhooks", webhook_id)
