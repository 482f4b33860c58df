"""Checks of a program file beyond its models: unknown keys and dangling references.

Every problem is one line naming the section, the record (index and ID) and the
key, so a typo (``"stok"``) or a reference to a product that does not exist
stops the load instead of loading silently. See data/README.md, "Checks".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import Any, get_args

from pydantic import BaseModel

from ..models.enums import PendingBucketStatus
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

OBJECT_REFERENCES = {"product": "products", "sku": "skus"}
"""Keys whose object's ``id`` is such an ID (``material.product.id``)."""

BUILT_IN = frozenset({"prod_5h1pp1ng"})
"""IDs the service always has: the shipping product of shipping discounts."""


def unknown_model_keys(model: BaseModel) -> list[str]:
    """Paths of the keys in ``model`` (nested models included) that no model declares."""
    found: list[str] = []
    if _any_extras(model):  # most records have none: no paths spelled for them
        _extras(model, "", found)
    return found


def _any_extras(value: Any) -> bool:
    """Whether any model in ``value`` holds an undeclared key, allowed or not."""
    if isinstance(value, BaseModel):
        if value.__pydantic_extra__:
            return True
        for attribute, _ in _nested_fields(type(value)):
            item = getattr(value, attribute)
            if item is not None and _any_extras(item):
                return True
        return False
    if isinstance(value, list | tuple):
        return any(_any_extras(item) for item in value)
    if isinstance(value, dict):
        return any(_any_extras(item) for item in value.values())
    return False


def _extras(value: Any, path: str, found: list[str]) -> None:
    if isinstance(value, BaseModel):
        cls = type(value)
        extra = value.__pydantic_extra__
        if extra:
            name = cls.__name__
            allowed = MODEL_EXTRAS.get(name, frozenset())
            numbered = name in _NUMBERED_EXTRAS
            found.extend(
                f"{path}{key}"
                for key in extra
                if not (key in allowed or (numbered and key.isdigit()))
            )
        for attribute, key in _nested_fields(cls):
            item = getattr(value, attribute)
            if item is not None:
                _extras(item, f"{path}{key}.", found)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _extras(item, f"{path.rstrip('.')}[{i}].", found)
    elif isinstance(value, dict):
        for key, item in value.items():
            _extras(item, f"{path}{key}.", found)


_NESTED: dict[type[BaseModel], tuple[tuple[str, str], ...]] = {}


def _nested_fields(cls: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """``(attribute, key)`` of the fields of ``cls`` whose type can hold a model: the only
    places an unknown key can hide (extras themselves are plain values)."""
    fields = _NESTED.get(cls)
    if fields is None:
        fields = _NESTED[cls] = tuple(
            (name, info.alias or name)
            for name, info in cls.model_fields.items()
            if _can_hold_model(info.annotation)
        )
    return fields


def _can_hold_model(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_can_hold_model(arg) for arg in get_args(annotation))


def unknown_record_keys(section: str, record: Mapping[str, Any]) -> list[str]:
    """Top-level keys of a record of a section without a model that it may not hold."""
    allowed = RECORD_KEYS.get(section)
    return [] if allowed is None else sorted(set(record) - allowed)


def pending_mismatches(
    cards: list[Any], buckets: list[Any]
) -> Iterator[tuple[int, dict[str, Any], float, float]]:
    """``(index, card, pending total, points of its PENDING buckets)`` of each card whose
    ``balance.pending_points`` is not the sum of its PENDING buckets' ``points.total``."""
    held: dict[str, float] = defaultdict(int)
    for bucket in buckets:
        if bucket.get("status") == PendingBucketStatus.PENDING:
            held[bucket.get("card_id")] += (bucket.get("points") or {}).get("total") or 0
    for index, card in enumerate(cards):
        total = (card.get("balance") or {}).get("pending_points") or 0
        if total != held.get(card["id"], 0):
            yield index, card, total, held.get(card["id"], 0)


def dangling_references(
    sections: Mapping[str, list[Any]],
    deliberately_missing: frozenset[str],
    wanted: Mapping[str, set[str]] | None = None,
) -> list[str]:
    """One line per reference to an ID no record of the target section has.

    ``wanted``: the IDs referenced (target section -> IDs), or more, when already
    collected (``collect_references``); by default collected here."""
    ids = {
        key: {r["id"] for r in records if isinstance(r, dict) and isinstance(r.get("id"), str)}
        for key, records in sections.items()
    }
    if wanted is None:
        wanted = {}
        for records in sections.values():
            collect_references(records, wanted)
    known = BUILT_IN | deliberately_missing
    if all(not (found - ids.get(target, set()) - known) for target, found in wanted.items()):
        return []  # the usual answer, found without spelling a path per reference
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


def collect_references(value: Any, wanted: dict[str, set[str]]) -> None:
    """Add to ``wanted`` (target section -> IDs) every ID :func:`_references` yields."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                if key in REFERENCES:
                    wanted.setdefault(REFERENCES[key], set()).add(item)
            elif isinstance(item, dict):
                if key == "metadata":
                    continue
                if key in OBJECT_REFERENCES and isinstance(item.get("id"), str):
                    wanted.setdefault(OBJECT_REFERENCES[key], set()).add(item["id"])
                collect_references(item, wanted)
            elif isinstance(item, list) and key != "metadata":
                collect_references(item, wanted)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list):
                collect_references(item, wanted)


def _references(value: Any, path: str) -> Iterator[tuple[str, str, str]]:
    """``(path, target section, ID)`` of every reference in ``value``; only containers
    are descended into, as a record is mostly plain values."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                if key in REFERENCES:
                    yield f"{path}{key}", REFERENCES[key], item
            elif isinstance(item, dict):
                if key == "metadata":
                    continue
                if key in OBJECT_REFERENCES and isinstance(item.get("id"), str):
                    yield f"{path}{key}.id", OBJECT_REFERENCES[key], item["id"]
                yield from _references(item, f"{path}{key}.")
            elif isinstance(item, list) and key != "metadata":
                yield from _references(item, f"{path}{key}.")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict | list):
                yield from _references(item, f"{path.rstrip('.')}[{i}].")
