"""Relative times spelled inside a section's bulk validation, as ``resolve_tree`` spells them.

``timed`` takes a section's record schema as ``bulk`` rewrote it and wraps each field of
each typed dict by the key a program file gives it:

- a time key (``created_at``, ``date``, ...): a relative expression is spelled by the
  load's ``RelativeFormatter`` (the validation context) before the field's schema sees
  it; a timestamp or date spelled so is already the value that schema would return, so
  it is returned as it is (no second Python call);
- a field that may hold free-form data (an ``any`` or ``dict`` schema inside it): its
  value goes through ``resolve_under`` first, as ``resolve_tree`` would walk it;
- a user-data key (``metadata``): left alone, as ``resolve_tree`` leaves it.

A schema where code could see a value before its times are spelled (a model's
``mode="before"`` validator, a plain validator not known to look only for ``None``),
or whose keys are not all declared (extra keys allowed), is ``Unsupported``: its
records are resolved first, the old way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import date
from functools import partial
from typing import Any

from pydantic_core import core_schema

from ..models.common import format_timestamp
from .timeexpr import (
    DATE_ONLY_KEYS,
    USER_DATA_KEYS,
    RelativeFormatter,
    is_relative,
    is_time_key,
    resolve_under,
)

CONTEXT_KEY = "relative_times"
"""The validation context's key for the load's ``RelativeFormatter``."""

_NOT_SCHEMAS = frozenset({"metadata", "function", "config", "default", "expected", "ref"})
"""Keys of a schema node that hold no schema."""


class Unsupported(Exception):
    """Times cannot be spelled inside this schema exactly as ``resolve_tree`` spells them."""


def times_context(formatter: RelativeFormatter) -> dict[str, Any]:
    """The validation context a ``timed`` schema spells with."""
    return {CONTEXT_KEY: formatter}


def timed(schema: dict[str, Any], trusted: Collection[Callable[..., Any]] = ()) -> Any:
    """``schema`` (a rewritten record schema) spelling relative times itself.

    ``trusted``: plain validator functions that look at nothing but whether the value is
    ``None`` (so never at a time)."""
    targets = {node["ref"]: node for node in _nodes(schema) if "ref" in node}
    return _Timed(targets, tuple(trusted)).node(schema)


def _nodes(node: Any) -> list[dict[str, Any]]:
    """Every schema node in ``node``."""
    found: list[dict[str, Any]] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, dict):
            found.append(item)
            stack.extend(_children(item))
    return found


def _children(node: dict[str, Any]) -> list[Any]:
    """The schemas directly inside a schema node (a typed dict's: its fields')."""
    if node.get("type") == "typed-dict":
        return list(node["fields"].values())
    return [value for key, value in node.items() if key not in _NOT_SCHEMAS]


class _Timed:
    def __init__(self, targets: dict[str, dict[str, Any]], trusted: tuple[Any, ...]) -> None:
        self.targets = targets
        self.trusted = trusted

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
        if kind == "function-before" or kind == "function-wrap":
            raise Unsupported(kind)
        if kind == "function-plain" and node["function"]["function"] not in self.trusted:
            raise Unsupported(kind)
        if kind == "definition-ref":
            target = self.targets.get(node["schema_ref"], {})
            if target.get("type") != "typed-dict":
                raise Unsupported("a definition that is not a model")
        return {k: v if k in _NOT_SCHEMAS else self.node(v) for k, v in node.items()}

    def field(self, key: str, field: dict[str, Any], strict: bool) -> dict[str, Any]:
        """A typed dict's field, spelling times under the key(s) a program gives it."""
        keys = _input_keys(key, field.get("validation_alias"))
        rules = {(k in USER_DATA_KEYS, is_time_key(k), k in DATE_ONLY_KEYS) for k in keys}
        if len(rules) != 1:
            raise Unsupported(f"field {key}: keys read differently")
        (user_data, time_key, date_only), name = rules.pop(), keys[0]
        if user_data:
            return field
        schema = self.node(field["schema"])
        if self.free_form(field["schema"]):
            resolve = partial(_resolved, key=name)
            schema = core_schema.with_info_before_validator_function(resolve, schema)
        elif time_key:
            schema = _spelling(schema, name, date_only, strict)
        return {**field, "schema": schema}

    def free_form(self, node: Any) -> bool:
        """Whether a value of ``node`` may hold keys no typed dict declares."""
        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, list | tuple):
                stack.extend(item)
            elif isinstance(item, dict):
                if item.get("type") in ("any", "dict"):
                    return True
                if item.get("type") not in ("typed-dict", "definition-ref"):
                    stack.extend(_children(item))
        return False


def _input_keys(key: str, alias: Any) -> list[str]:
    """The keys a program file may give a field: its validation aliases, else its key."""
    if alias is None:
        return [key]
    if isinstance(alias, str):
        return [alias]
    if all(isinstance(path, list) and len(path) == 1 for path in alias):
        return [path[0] for path in alias]
    raise Unsupported(f"field {key}: alias path")


def _spelling(schema: dict[str, Any], key: str, date_only: bool, strict: bool) -> Any:
    """A time key's field schema: a relative expression spelled first. The spelling goes
    inside the field's default and ``None``, which never reach Python."""
    if schema["type"] in ("default", "nullable"):
        return {**schema, "schema": _spelling(schema["schema"], key, date_only, strict)}
    final = not strict and _returns_spelling(schema, date_only)
    spell = partial(_spelled, key=key, date_only=date_only, final=final)
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
    formatter: RelativeFormatter = info.context[CONTEXT_KEY]  # type: ignore[index]
    if isinstance(value, str):
        if "now" in value and is_relative(value):
            spelled = formatter.spell(value.strip(), date_only=date_only)
            return spelled if final else handler(spelled)
        return handler(value)
    return handler(resolve_under(value, formatter.now, key))


def _resolved(value: Any, info: core_schema.ValidationInfo, *, key: str) -> Any:
    return resolve_under(value, _formatter(info).now, key)


def _formatter(info: core_schema.ValidationInfo) -> RelativeFormatter:
    formatter: RelativeFormatter = info.context[CONTEXT_KEY]  # type: ignore[index]
    return formatter
