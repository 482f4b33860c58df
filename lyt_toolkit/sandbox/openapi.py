"""The sandbox's OpenAPI document: real response schemas and every status it answers.

Success bodies are described by each route's ``response_model``. FastAPI would
also list "422: validation error"; the sandbox never answers 422 (client mistakes
are 400s in the service's error shape), so the document is completed here: every
operation lists the error statuses it can give, all with the one error object.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The service's error object; code repeats the HTTP status.",
    "properties": {
        "code": {"type": "integer"},
        "key": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "string"},
        "request_id": {"type": "string"},
        "resource_id": {"type": "string"},
        "resource_type": {"type": "string"},
    },
    "required": ["code", "key", "message", "request_id"],
}

_ALWAYS = {
    400: "Invalid request: the details name the field or parameter",
    401: "Missing or invalid credentials",
    404: "The addressed resource does not exist",
    429: "Too many requests (only when faults are injected)",
    503: "Service unavailable (only when faults are injected)",
}
_EXTRA = {
    402: "The project's plan lacks a feature the operation needs",
    409: "Conflict: duplicate name, or a state that does not allow the change",
    423: "Resource locked: a precondition on a related resource does not hold",
}

V2 = "/v2/loyalties"
_BUCKETS = f"{V2}/programs/{{programId}}/members/{{memberId}}/cards/{{cardId}}/pending-points"
_WEBHOOKS = "/management/v1/projects/{projectId}/webhooks"

EXTRA_ERRORS: dict[tuple[str, str], tuple[int, ...]] = {
    ("post", f"{V2}/benefits"): (409, 423),
    ("post", f"{V2}/rewards/{{rewardId}}/draft"): (409,),
    ("post", f"{_BUCKETS}/{{bucketId}}/activate"): (423,),
    ("get", _WEBHOOKS): (402,),
    ("delete", f"{_WEBHOOKS}/{{webhookId}}"): (402,),
}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _is_model(annotation: Any) -> bool:
    """A pydantic model, not a return annotation such as ``dict[str, Any]``."""
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def success_models(routers: Iterable[APIRouter]) -> dict[tuple[str, str], Any]:
    """The ``response_model`` of each operation that declares one, by (method, path)."""
    return {
        (method.lower(), route.path): route.response_model
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute) and _is_model(route.response_model)
        for method in route.methods or ()
    }


def build_openapi(app: FastAPI, routers: Iterable[APIRouter]) -> dict[str, Any]:
    """The document FastAPI derives, with success schemas and error statuses filled in."""
    doc = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        separate_input_output_schemas=False,
    )
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    components["Error"] = ERROR_SCHEMA
    # Validation-mode schemas: the models serialise through a custom hook that
    # pydantic cannot describe, and what they accept is what the service sends.
    success = success_models(routers)
    refs, defs = models_json_schema(
        [(model, "validation") for model in dict.fromkeys(success.values())],
        ref_template="#/components/schemas/{model}",
    )
    components.update(defs.get("$defs", {}))
    error_ref = {"$ref": "#/components/schemas/Error"}
    for path, operations in doc.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            model = success.get((method, path))
            if model is not None:
                ok = next((c for c in responses if c.startswith("2")), "200")
                responses[ok] = _json(refs[(model, "validation")], "Success")
            for status in (*_ALWAYS, *EXTRA_ERRORS.get((method, path), ())):
                text = _ALWAYS.get(status) or _EXTRA[status]
                responses.setdefault(str(status), _json(error_ref, text))
    return doc


def install(app: FastAPI, routers: Sequence[APIRouter]) -> None:
    """Serve the completed document at ``/openapi.json`` (built once, then cached)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app, routers)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
