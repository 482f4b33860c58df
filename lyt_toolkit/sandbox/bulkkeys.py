"""What a program file's keys mean, applied inside a section's bulk validation.

A program gives some keys a meaning of their own wherever they appear: a time key
(``created_at``, ``date``, ...) may hold a relative expression ("now-40d",
``resolve_tree``), and a reference key (``card_id``, ``product.id``, ...) names a
record of another section (``collect_references``). ``keyed`` takes a section's
record schema as ``bulk`` rewrote it and wraps each field of each typed dict by the
key a program file gives it, so that one validation call also does both:

- a time key: a relative expression is spelled by the load's ``RelativeFormatter``
  before the field's schema sees it; a timestamp or date spelled so is already the
  value that schema returns, so it is returned as it is (no second Python call);
- a reference key: the ID, when it is a string, is added to the load's references;
- a field that may hold free-form data (an ``any`` or ``dict`` schema inside it): its
  value is resolved as ``resolve_tree`` and read as ``collect_references`` would;
- a user-data key (``metadata``): left alone, as both leave it.

``None`` and absent values never reach Python. A schema where code could see a value
before this (a model's ``mode="before"`` validator, a plain or wrap validator), or
whose keys are not all declared (extra keys allowed), is ``Unsupported``: its
records are resolved and read the plain way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import Any

from pydantic_core import core_schema

from ..models.common import format_timestamp
from .programcheck import OBJECT_REFERENCES, REFERENCES, collect_references
from .timeexpr import (
    DATE_ONLY_KEYS,
    USER_DATA_KEYS,
    RelativeFormatter,
    is_relative,
    is_time_key,
    resolve_under,
)

CONTEXT_KEY = "program_keys"
"""The validation context's key for the load's ``KeyedLoad`` (no section's name)."""

_TARGETS = frozenset(REFERENCES.values()) | frozenset(OBJECT_REFERENCES.values())
"""The sections references name."""

_NOT_SCHEMAS = frozenset({"metadata", "function", "config", "default", "expected", "ref"})
"""Keys of a schema node that hold no schema."""


class Unsupported(Exception):
    """This schema cannot apply the keys' meanings exactly as the plain way does."""


@dataclass
class KeyedLoad:
    """What a load's validation calls share: the clock relative times are spelled from,
    and the IDs its records reference (target section -> IDs; a few more at times, as
    a record refused by a union's other branch adds its own)."""

    times: RelativeFormatter
    references: dict[str, set[str]] = field(
        default_factory=lambda: {target: set() for target in _TARGETS}
    )

    def context(self) -> dict[str, Any]:
        """The validation context of a ``keyed`` schema: the load, and each target
        section's IDs by its name (one lookup for each reference)."""
        return {**self.references, CONTEXT_KEY: self}


def keyed(schema: dict[str, Any]) -> Any:
    """``schema`` (a rewritten record schema) applying the meaning of the keys itself."""
    targets = {node["ref"]: node for node in _nodes(schema) if "ref" in node}
    return _Keyed(targets).node(schema)


_DECLARED = ("typed-dict", "definition-ref")
"""Schema nodes whose keys are declared (the walk for free-form values stops there)."""


def _nodes(
    node: Any, into: Callable[[dict[str, Any]], bool] = lambda _: True
) -> Iterator[dict[str, Any]]:
    """Every schema node in ``node``, going into a node's children only where ``into``."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, dict):
            yield item
            if into(item):
                stack.extend(_children(item))


def _children(node: dict[str, Any]) -> list[Any]:
    """The schemas directly inside a schema node (a typed dict's: its fields')."""
    if node.get("type") == "typed-dict":
        return list(node["fields"].values())
    return [value for key, value in node.items() if key not in _NOT_SCHEMAS]


@dataclass(frozen=True)
class _Meaning:
    """What a key means to a program."""

    user_data: bool
    time_key: bool
    date_only: bool
    reference: str | None
    object_reference: str | None

    @classmethod
    def of(cls, key: str) -> _Meaning:
        return cls(
            key in USER_DATA_KEYS,
            is_time_key(key),
            key in DATE_ONLY_KEYS,
            REFERENCES.get(key),
            OBJECT_REFERENCES.get(key),
        )


class _Keyed:
    def __init__(self, targets: dict[str, dict[str, Any]]) -> None:
        self.targets = targets

    def node(self, node: Any) -> Any:
        if isinstance(node, list | tuple):
            return type(node)(self.node(item) for item in node)
        if not isinstance(node, dict):
            return node
        kind = node.get("type")
        if kind == "typed-dict":
            if node.get("extra_behavior") not in (None, "forbid") or "extras_schema" in node:
                raise Unsupported("extra keys")
            strict = bool(node.get("config", {}).get("strict"))
            fields = {key: self.field(key, field, strict) for key, field in node["fields"].items()}
            return {**node, "fields": fields}
        if kind in ("function-before", "function-wrap", "function-plain"):
            raise Unsupported(kind)
        if kind == "definition-ref":
            target = self.targets.get(node["schema_ref"], {})
            if target.get("type") != "typed-dict":
                raise Unsupported("a definition that is not a model")
        return {k: v if k in _NOT_SCHEMAS else self.node(v) for k, v in node.items()}

    def field(self, key: str, field: dict[str, Any], strict: bool) -> dict[str, Any]:
        """A typed dict's field, applying the meaning of the key(s) a program gives it."""
        keys = _input_keys(key, field.get("validation_alias"))
        meanings = {_Meaning.of(k) for k in keys}
        if len(meanings) != 1:
            raise Unsupported(f"field {key}: keys read differently")
        meaning, name = meanings.pop(), keys[0]
        if meaning.user_data:
            return field
        schema = self.node(field["schema"])
        if self.free_form(field["schema"]):
            hook: Any = partial(_free_form, key=name)
        elif meaning.time_key:
            return {**field, "schema": _inside(schema, partial(_spelling, meaning, name, strict))}
        elif meaning.reference:
            hook = partial(_reference, target=meaning.reference)
        elif meaning.object_reference:
            hook = partial(_object_reference, target=meaning.object_reference)
        else:
            return {**field, "schema": schema}
        before = partial(core_schema.with_info_before_validator_function, hook)
        return {**field, "schema": _inside(schema, before)}

    def free_form(self, node: Any) -> bool:
        """Whether a value of ``node`` may hold keys no typed dict declares."""
        untyped = _nodes(node, into=lambda item: item.get("type") not in _DECLARED)
        return any(item.get("type") in ("any", "dict") for item in untyped)


def _input_keys(key: str, alias: Any) -> list[str]:
    """The keys a program file may give a field: its validation aliases, else its key."""
    if alias is None:
        return [key]
    if isinstance(alias, str):
        return [alias]
    if all(isinstance(path, list) and len(path) == 1 for path in alias):
        return [path[0] for path in alias]
    raise Unsupported(f"field {key}: alias path")


def _inside(schema: dict[str, Any], wrapped: Callable[[dict[str, Any]], Any]) -> Any:
    """``schema`` with its values ``wrapped``, inside its default and ``None``."""
    if schema["type"] in ("default", "nullable"):
        return {**schema, "schema": _inside(schema["schema"], wrapped)}
    return wrapped(schema)


def _spelling(meaning: _Meaning, key: str, strict: bool, schema: dict[str, Any]) -> Any:
    """A time key's values: a relative expression spelled before ``schema`` sees it."""
    final = not strict and _returns_spelling(schema, meaning.date_only)
    spell = partial(_spelled, key=key, date_only=meaning.date_only, final=final)
    return core_schema.with_info_wrap_validator_function(spell, schema)


def _returns_spelling(schema: dict[str, Any], date_only: bool) -> bool:
    """Whether ``schema`` returns a spelled expression unchanged: a ``Timestamp`` as
    ``bulk`` spells it (UTC, milliseconds, ``Z``), or a date as ``YYYY-MM-DD``."""
    if schema["type"] != "function-after" or schema["function"].get("type") != "no-info":
        return False
    inner, function = schema["schema"], schema["function"]["function"]
    if date_only:
        return function is date.isoformat and inner == {"type": "date"}
    return (
        function is format_timestamp
        and inner["type"] == "datetime"
        and set(inner) <= {"type", "microseconds_precision"}
    )


def _spelled(
    value: Any,
    handler: core_schema.ValidatorFunctionWrapHandler,
    info: core_schema.ValidationInfo,
    *,
    key: str,
    date_only: bool,
    final: bool,
) -> Any:
    load: KeyedLoad = info.context[CONTEXT_KEY]  # type: ignore[index]
    if isinstance(value, str):
        spelled = load.times.spelled(value, date_only=date_only)  # as written, nearly always
        if spelled is None and "now" in value and is_relative(value):
            spelled = load.times.spell(value.strip(), date_only=date_only)
        if spelled is None:
            return handler(value)
        return spelled if final else handler(spelled)
    return handler(resolve_under(value, load.times.now, key))


def _free_form(value: Any, info: core_schema.ValidationInfo, *, key: str) -> Any:
    load: KeyedLoad = info.context[CONTEXT_KEY]  # type: ignore[index]
    value = resolve_under(value, load.times.now, key)
    collect_references({key: value}, load.references)
    return value


def _reference(value: Any, info: core_schema.ValidationInfo, *, target: str) -> Any:
    if isinstance(value, str):
        info.context[target].add(value)  # type: ignore[index]
    return value


def _object_reference(value: Any, info: core_schema.ValidationInfo, *, target: str) -> Any:
    if isinstance(value, dict) and isinstance(value.get("id"), str):
        info.context[target].add(value["id"])  # type: ignore[index]
    return value
