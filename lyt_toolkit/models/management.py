"""Management API objects: projects and their webhooks."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import ApiModel, Timestamp
from .lists import CountedList

__all__ = ["Project", "ProjectList", "Webhook", "WebhookList"]


class Project(ApiModel):
    """A project of the account; many settings are passed through untouched."""

    omit_if_none = frozenset(
        {
            "description",
            "timezone",
            "currency",
            "cluster_id",
            "api_version",
            "is_sandbox",
            "plan",
            "webhook_token",
        }
    )

    id: str
    name: str
    description: str | None = None
    timezone: str | None = None
    currency: str | None = None
    cluster_id: str | None = None
    api_version: str | None = None
    is_sandbox: bool | None = None
    plan: dict | None = None
    webhook_token: str | None = Field(default=None, repr=False)
    """Authenticates the project's webhook calls: a secret, so kept out of the repr."""


class Webhook(ApiModel):
    """A webhook configuration: where events of a project are posted."""

    omit_if_none = frozenset({"created_at", "project_id"})

    id: str
    object: Literal["webhook"] = "webhook"
    created_at: Timestamp | None = None
    target_url: str
    events: list[str] = Field(default_factory=list)
    active: bool = True
    project_id: str | None = None


ProjectList = CountedList[Project]
"""The list of projects the management credentials can see."""

WebhookList = CountedList[Webhook]
"""The webhook configurations of one project."""
