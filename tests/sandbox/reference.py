"""Validate sandbox answers against the reference OpenAPI subsets.

The reference documents are committed in ``tests/reference`` (facts only, written
by ``tests/reference/strip.py``). Each file is
registered whole under its own URI so its internal ``#/components/...`` refs
resolve; OpenAPI 3.0 ``nullable`` is rewritten to JSON Schema's null type.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

REFERENCE_DIR = Path(__file__).resolve().parents[1] / "reference"

FILES = {
    "loyalties": "loyalties-v2.subset.openapi.json",
    "oauth": "oauth.subset.openapi.json",
    "validation": "promotion-tier-validation.subset.openapi.json",
    "tiers": "promotion-tiers-list.subset.openapi.json",
    "management": "management-webhooks.subset.openapi.json",
}


SPEC_OVERRIDES: dict[str, list[tuple[tuple[str, ...], Any]]] = {
    # The spec: the valid result types ``valid`` as a string, the value is boolean true.
    "validation": [
        (
            ("components", "schemas", "6_res_validate_promotion_tier_true", "properties", "valid"),
            {"type": "boolean"},
        )
    ],
}
"""Where the spec overrides a reference schema: (document, path to the node, new node)."""


def _one_of_as_any_of(node: Any) -> Any:
    """The reference's ``oneOf`` unions are not discriminated (several branches fit one
    value, e.g. every discount variant accepts ``{"type": "AMOUNT"}``): read as ``anyOf``."""
    if isinstance(node, list):
        return [_one_of_as_any_of(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {("anyOf" if k == "oneOf" else k): _one_of_as_any_of(v) for k, v in node.items()}


def _with_overrides(doc: str, raw: dict[str, Any]) -> dict[str, Any]:
    for path, replacement in SPEC_OVERRIDES.get(doc, []):
        node = raw
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = replacement
    return raw


def _nullable_to_type(node: Any) -> Any:
    """OpenAPI 3.0 ``nullable: true`` as JSON Schema: allow ``null`` explicitly."""
    if isinstance(node, list):
        return [_nullable_to_type(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _nullable_to_type(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") is True:
        if "type" in out:
            kinds = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = [*kinds, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def _uri(doc: str) -> str:
    return f"urn:lyt-reference:{doc}"


@cache
def _registry() -> Registry:
    resources = []
    for doc, name in FILES.items():
        raw = json.loads((REFERENCE_DIR / name).read_text(encoding="utf-8"))
        if not str(raw.get("openapi", "")).startswith("3.1"):
            raw = _nullable_to_type(copy.deepcopy(raw))
        raw = _with_overrides(doc, _one_of_as_any_of(raw))
        resources.append(
            (_uri(doc), Resource.from_contents(raw, default_specification=DRAFT202012))
        )
    return Registry().with_resources(resources)


@cache
def document(doc: str) -> dict[str, Any]:
    return _registry().contents(_uri(doc))


def response_schema_ref(doc: str, method: str, path: str, status: int) -> str | None:
    """The ``$ref`` of the JSON body schema the reference declares, if any."""
    operation = document(doc)["paths"][path][method.lower()]
    response = operation["responses"].get(str(status))
    if response is None:
        return None
    schema = response.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    return schema.get("$ref")


def errors_for(doc: str, schema_ref: str, instance: Any) -> list[str]:
    """Every violation of ``schema_ref`` (``#/components/schemas/X``) in ``doc``."""
    validator = Draft202012Validator({"$ref": _uri(doc) + schema_ref}, registry=_registry())
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message[:300]}"
        for e in validator.iter_errors(instance)
    ]
