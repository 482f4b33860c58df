"""Management API: projects and their webhook configurations (management key pair)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import httpx

from .._core import Call, decoder, path
from ._base import AsyncResource, SyncResource, check_text

if TYPE_CHECKING:
    from ...models import CountedList, Project, Webhook

T = TypeVar("T")

_PROJECTS = "/management/v1/projects"
_WEBHOOKS = _PROJECTS + "/{project_id}/webhooks"
_WEBHOOK = _WEBHOOKS + "/{webhook_id}"


def _data(
    decode: Callable[[httpx.Response], CountedList[T]],
) -> Callable[[httpx.Response], list[T]]:
    """The items of a counted list answer, without its envelope."""
    return lambda response: decode(response).data


def _projects() -> Call[list[Project]]:
    from ...models import CountedList, Project

    return Call("GET", _PROJECTS, decode=_data(decoder(CountedList[Project])))


def _webhooks(project_id: str) -> Call[list[Webhook]]:
    from ...models import CountedList, Webhook

    url = path(_WEBHOOKS, project_id=check_text(project_id, "project_id"))
    return Call("GET", url, decode=_data(decoder(CountedList[Webhook])))


def _delete(project_id: str, webhook_id: str) -> Call[None]:
    url = path(
        _WEBHOOK,
        project_id=check_text(project_id, "project_id"),
        webhook_id=check_text(webhook_id, "webhook_id"),
    )
    return Call("DELETE", url, decode=lambda response: None)


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class Projects(SyncResource):
    """``client.projects``: the projects the management keys can see."""

    def list(self) -> list[Project]:
        """Every project, in one unpaginated answer."""
        return self._send(_projects())


class Webhooks(SyncResource):
    """``client.webhooks``: webhook configurations of a project."""

    def list(self, project_id: str) -> list[Webhook]:
        """Every webhook configuration of the project, in one unpaginated answer."""
        return self._send(_webhooks(project_id))

    def delete(self, project_id: str, webhook_id: str) -> None:
        """Delete a webhook configuration. MissingRequiredFeatureError (402) when the
        project's plan has no webhooks; NotFoundError names the missing resource."""
        self._send(_delete(project_id, webhook_id))


# unasync: end of the generated sync code; its async source follows
class AsyncProjects(AsyncResource):
    """Async twin of ``Projects``."""

    # sync: """``client.projects``: the projects the management keys can see."""

    async def list(self) -> list[Project]:
        """Async twin of ``Projects.list``."""
        # sync: """Every project, in one unpaginated answer."""
        return await self._send(_projects())


class AsyncWebhooks(AsyncResource):
    """Async twin of ``Webhooks``."""

    # sync: """``client.webhooks``: webhook configurations of a project."""

    async def list(self, project_id: str) -> list[Webhook]:
        """Async twin of ``Webhooks.list``."""
        # sync: """Every webhook configuration of the project, in one unpaginated answer."""
        return await self._send(_webhooks(project_id))

    async def delete(self, project_id: str, webhook_id: str) -> None:
        """Async twin of ``Webhooks.delete``."""
        # sync: """Delete a webhook configuration. MissingRequiredFeatureError (402) when the
        # sync: project's plan has no webhooks; NotFoundError names the missing resource."""
        await self._send(_delete(project_id, webhook_id))
