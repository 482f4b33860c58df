"""Checks of a program file beyond its models: unknown keys and dangling references.

Every problem is one line naming the section, the record (index and ID) and the
key, so a typo (``"stok"``) or a reference to a product that does not exist
stops the load instead of loading silently. See data/README.md, "Checks".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from .placeholders import PLACEHOLDER, PLACEHOLDER_SECTIONS

_COMMON = frozenset({"id", "object", "metadata", "created_at", "updated_at"})

RECORD_KEYS: dict[str, frozenset[str]] = {
    "products": _COMMON | {"source_id", "name", "price"},
    "skus": _COMMON | {"source_id", "sku", "product_id", "price"},
    "campaigns": _COMMON
    | {"name", "description", "type", "active", "start_date", "expiration_date", "categories"},
    "customers": _COMMON | {"source_id", "name", "email"},
    "orders": _COMMON | {"source_id", "status", "amount", "items", "customer_id"},
    "promotion_tiers": _COMMON
    | {
        "name",
        "banner",
        "campaign_id",
        "hierarchy",
        "active",
        "start_date",
        "expiration_date",
        "discount",
        "validation_rules",
        "applicable_to",
        "inapplicable_to",
    },
    "projects": _COMMON | {"name", "description", "currency", "timezone", "plan"},
    "webhooks": _COMMON | {"project_id", "target_url", "events", "active"},
}
"""The keys a record of each section without a model may hold."""

for _section in PLACEHOLDER_SECTIONS:  # a record standing in for one a snapshot could not list
    RECORD_KEYS[_section] |= {PLACEHOLDER}

MODEL_EXTRAS: dict[str, frozenset[str]] = {
    # A card is written flat, with the member's role on it (the sandbox nests it).
    "Card": frozenset({"member_role", "created_at", "updated_at"}),
}
"""Keys a model does not declare but a program record of it may carry."""

_NUMBERED_EXTRAS = frozenset({"RewardCostRules"})
"""Models whose undeclared keys are numbered entries (``"1"``, ``"2"``, ...)."""

REFERENCES: dict[str, str] = {
    "card_definition_id": "card_definitions",
    "campaign_id": "campaigns",
    "product_id": "products",
    "sku_id": "skus",
    "program_id": "programs",
    "member_id": "members",
    "card_id": "cards",
    "customer_id": "customers",
    "project_id": "projects",
}
"""Keys holding the ID of a record of another section, wherever they appear."""

_OBJECT_REFERENCES = {"product": "products", "sku": "skus"}
"""Keys whose object's ``id`` is such an ID (``material.product.id``)."""

BUILT_IN = frozenset({"prod_5h1pp1ng"})
"""IDs the service always has: the shipping product of shipping discounts."""


def unknown_model_keys(model: BaseModel) -> list[str]:
    """Paths of the keys in ``model`` (nested models included) that no model declares."""
    return list(_extras(model, ""))


def _extras(value: Any, path: str) -> Iterator[str]:
    if isinstance(value, BaseModel):
        name = type(value).__name__
        for key in value.model_extra or {}:
            allowed = key in MODEL_EXTRAS.get(name, ()) or (
                name in _NUMBERED_EXTRAS and key.isdigit()
            )
            if not allowed:
                yield f"{path}{key}"
        for field_name, info in type(value).model_fields.items():
            yield from _extras(getattr(value, field_name), f"{path}{info.alias or field_name}.")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _extras(item, f"{path.rstrip('.')}[{i}].")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _extras(item, f"{path}{key}.")


def unknown_record_keys(section: str, record: Mapping[str, Any]) -> list[str]:
    """Top-level keys of a record of a section without a model that it may not hold."""
    allowed = RECORD_KEYS.get(section)
    return [] if allowed is None else sorted(set(record) - allowed)


def dangling_references(
    sections: Mapping[str, list[Any]], deliberately_missing: frozenset[str]
) -> list[str]:
    """One line per reference to an ID no record of the target section has."""
    ids = {
        key: {r["id"] for r in records if isinstance(r, dict) and "id" in r}
        for key, records in sections.items()
    }
    problems = []
    for section, records in sections.items():
        for index, record in enumerate(records):
            if not isinstance(record, dict):
                continue
            for path, target, value in _references(record, ""):
                if value in ids.get(target, ()) or value in BUILT_IN:
                    continue
                if value in deliberately_missing:
                    continue
                problems.append(
                    f"{section}[{index}] {record.get('id')}: {path}: {value} is not in {target}"
                )
    return problems


def _references(value: Any, path: str) -> Iterator[tuple[str, str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "metadata":
                continue
            where = f"{path}{key}"
            if key in REFERENCES and isinstance(item, str):
                yield where, REFERENCES[key], item
            elif (
                key in _OBJECT_REFERENCES
                and isinstance(item, dict)
                and isinstance(item.get("id"), str)
            ):
                yield f"{where}.id", _OBJECT_REFERENCES[key], item["id"]
            yield from _references(item, f"{where}.")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _references(item, f"{path.rstrip('.')}[{i}].")
