"""Reading one stored document, or failing with the 404 that names it."""

from __future__ import annotations

from typing import Any

from ..errors import not_found
from ..loader import store_resource
from ..state import SandboxState


def require(
    state: SandboxState, kind: str, id_: str, resource_type: str, *, scope: str | None = None
) -> dict[str, Any]:
    """The stored document, or a 404 naming it."""
    doc = state.store.get(kind, id_, scope=scope)
    if doc is None:
        raise not_found(resource_type, id_)
    return doc


def stored_json(
    state: SandboxState, kind: str, id_: str, resource_type: str, *, scope: str | None = None
) -> str:
    """The stored document's JSON text, the service's answer as it is, or a 404 naming it."""
    body = state.store.get_json(kind, id_, scope=scope)
    if body is None:
        raise not_found(resource_type, id_)
    return body


def change_status(
    state: SandboxState, kind: str, doc: dict[str, Any], status: str
) -> dict[str, Any]:
    """Save ``doc`` in ``status``, stamped as updated now, and answer with it."""
    doc.update(status=status, updated_at=state.now_iso())
    return store_resource(state.store, kind, doc)
