"""Management API objects: projects and their webhooks."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .common import OMIT_IF_NONE, ApiModel, Timestamp
from .lists import CountedList

__all__ = ["Project", "ProjectList", "Webhook", "WebhookList"]


class Project(ApiModel):
    """A project of the account; many settings are passed through untouched."""

    id: str
    name: str
    description: Annotated[str | None, OMIT_IF_NONE] = None
    timezone: Annotated[str | None, OMIT_IF_NONE] = None
    currency: Annotated[str | None, OMIT_IF_NONE] = None
    cluster_id: Annotated[str | None, OMIT_IF_NONE] = None
    api_version: Annotated[str | None, OMIT_IF_NONE] = None
    is_sandbox: Annotated[bool | None, OMIT_IF_NONE] = None
    plan: Annotated[dict | None, OMIT_IF_NONE] = None
    webhook_token: Annotated[str | None, OMIT_IF_NONE] = Field(default=None, repr=False)
    """Authenticates the project's webhook calls: a secret, so kept out of the repr."""


class Webhook(ApiModel):
    """A webhook configuration: where events of a project are posted."""

    id: str
    object: Literal["webhook"] = "webhook"
    created_at: Annotated[Timestamp | None, OMIT_IF_NONE] = None
    target_url: str
    events: list[str] = Field(default_factory=list)
    active: bool = True
    project_id: Annotated[str | None, OMIT_IF_NONE] = None


ProjectList = CountedList[Project]
"""The list of projects the management credentials can see."""

WebhookList = CountedList[Webhook]
"""The webhook configurations of one project."""
