"""Validate a program section in one pydantic-core call, without a model per record.

A model's core schema is rewritten into one over plain dicts whose validated output is
already the document the model would dump (``mode="json", by_alias=True``): each model
becomes a typed dict of the same fields, keyed by their aliases, with the same
defaults and validators; a value the model spells differently on the wire (a
``Timestamp``, a date) is spelled so by the validator; an ``OMIT_IF_NONE`` field
absent or ``None`` is left out. Typed dicts refuse undeclared keys, so a record with
one fails the whole call, as does a record the model refuses: the loader then goes
the model's way, which names the record and the key.

A schema using anything this does not reproduce exactly (an ``after`` model
validator, a serializer of its own, a non-string enum, ...) is ``Unsupported``: that
model's sections are always validated by the model.

Where ``bulkkeys`` can, the same call also spells the records' relative times
("now-40d") and collects the IDs they reference, so neither needs a pass of its own.
"""

from __future__ import annotations

from datetime import date
from enum import Enum
from functools import cache, cached_property, partial
from typing import Any

from pydantic import BaseModel
from pydantic_core import SchemaValidator, core_schema

from .. import models
from ..models.common import OMIT_IF_NONE, answered_utc, format_timestamp
from . import bulkkeys
from .programcheck import MODEL_EXTRAS


class Unsupported(Exception):
    """The model uses a feature the dict schema cannot reproduce exactly."""


_OMIT_IF_NONE = OMIT_IF_NONE.exclude_if

_PLAIN = frozenset(
    {
        "any",
        "none",
        "bool",
        "int",
        "float",
        "str",
        "literal",
        "list",
        "dict",
        "nullable",
        "union",
        "definitions",
        "definition-ref",
        "function-before",
    }
)
"""Schema types whose validated value is its own JSON dump (given JSON-ready items); a
``Timestamp``'s ``function-after`` is taken with its serializer (``_spelled``)."""


_NOT_SCHEMAS = frozenset({"metadata", "function", "config"})
"""Keys of a schema node that hold no schema."""


class SectionSchema:
    """One section's records of one model, validated into the documents it would dump."""

    def __init__(self, model: type[BaseModel], extras: frozenset[str] = frozenset()) -> None:
        record = _rewritten(model.__pydantic_core_schema__)
        self.extras = extras
        self.declared: frozenset[str] = frozenset()
        if extras:  # the record's own undeclared keys are allowed, and checked in documents
            inner = record
            while inner["type"] != "typed-dict":
                inner = inner["schema"]
            inner["extra_behavior"] = "allow"
            inner["config"] = {**inner.get("config", {}), "extra_fields_behavior": "allow"}
            self.declared = frozenset(inner["fields"])
        self.validator = SchemaValidator(core_schema.list_schema(record))
        try:
            self._keyed_record = bulkkeys.keyed(record)
        except bulkkeys.Unsupported:
            self._keyed_record = None

    @property
    def keyed(self) -> bool:
        """Whether ``documents`` can take records as written: their relative times spelled
        and their references collected in the same call."""
        return self._keyed_record is not None

    @cached_property
    def _keyed_validator(self) -> SchemaValidator:
        return SchemaValidator(core_schema.list_schema(self._keyed_record))

    def documents(
        self, records: list[Any], load: bulkkeys.KeyedLoad | None = None
    ) -> list[dict[str, Any]]:
        """``records`` as the service answers with them; ``ValidationError`` (or
        ``ValueError``) when the model refuses one or one holds an undeclared key.

        ``load``: spell the records' relative times and collect their references into it
        (only where ``keyed``); without it their times must be spelled already."""
        if load is None:
            docs: list[dict[str, Any]] = self.validator.validate_python(records)
        elif self._keyed_record is None:
            raise bulkkeys.Unsupported("this section's times are spelled before validation")
        else:
            docs = self._keyed_validator.validate_python(records, context=load.context())
        if self.extras:
            known = self.declared | self.extras
            if not all(known.issuperset(doc) for doc in docs):
                raise ValueError("a key the model does not declare")
        return docs


@cache
def section_schema(model: str) -> SectionSchema | None:
    """The dict schema of ``models.<model>`` (None when it cannot have one)."""
    try:
        return SectionSchema(getattr(models, model), MODEL_EXTRAS.get(model, frozenset()))
    except Unsupported:
        return None


def _rewritten(node: Any) -> Any:
    """``node`` (a core schema, or part of one) over dicts, its values as dumped."""
    if isinstance(node, list | tuple):
        return type(node)(_rewritten(item) for item in node)
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind == "model":
        return _typed_dict(node)
    serialization = node.get("serialization")
    if serialization is not None:
        return _spelled(node, serialization)
    if kind == "default":
        return _default(node)
    if kind == "date":
        return core_schema.no_info_after_validator_function(date.isoformat, node)
    if kind == "enum":  # the member's value, a plain str, as it is dumped
        if not issubclass(node["cls"], str) or node.get("missing") or node.get("strict"):
            raise Unsupported(f"enum {node['cls'].__name__}")
        return core_schema.literal_schema([member.value for member in node["members"]])
    if kind == "literal" and any(isinstance(value, Enum) for value in node["expected"]):
        if not all(_plain_default(value) for value in node["expected"]):
            raise Unsupported("literal")
        expected = [value.value if isinstance(value, Enum) else value for value in node["expected"]]
        return {**node, "expected": expected}
    if kind not in _PLAIN and not (kind == "function-after" and _constraint(node["function"])):
        raise Unsupported(f"schema type {kind}")
    return {k: v if k in _NOT_SCHEMAS else _rewritten(v) for k, v in node.items()}


def _constraint(function: dict[str, Any]) -> bool:
    """Whether a ``function-after`` is one of pydantic's own constraint checks (``ge=0`` on
    a union), which returns the value it checks."""
    check = function.get("function")
    return isinstance(check, partial) and check.func.__module__.startswith("pydantic.")


def _spelled(node: dict[str, Any], serialization: dict[str, Any]) -> Any:
    """A value with a serializer of its own (``Timestamp``): validated, then spelled by it."""
    if serialization.get("type") != "function-plain" or serialization.get("info_arg"):
        raise Unsupported("serializer")
    if serialization.get("when_used", "always") not in ("json", "always"):
        raise Unsupported("serializer")
    inner = {key: value for key, value in node.items() if key != "serialization"}
    if inner["type"] == "function-after" and inner["schema"]["type"] == "datetime":
        if (
            inner["function"].get("function") is answered_utc
            and serialization["function"] is format_timestamp
        ):
            # A Timestamp: format_timestamp takes the moment to UTC as answered_utc does
            # (keeping its own offset where Python cannot hold the UTC form), so one Python
            # call per value spells it the same.
            inner = inner["schema"]
        # else: the datetime parsed and normalised as the model does
    elif inner["type"] != "datetime":
        raise Unsupported("serializer")
    return core_schema.no_info_after_validator_function(serialization["function"], inner)


def _typed_dict(model: dict[str, Any]) -> dict[str, Any]:
    """A model's fields as a typed dict; its ``mode="before"`` validators (which see the
    input dict either way) stay around it."""
    name = model["cls"].__name__
    if any(model.get(key) for key in ("custom_init", "root_model", "post_init", "serialization")):
        raise Unsupported(name)
    wrappers, inner = [], model["schema"]
    while inner.get("type") == "function-before":
        wrappers.append(inner)
        inner = inner["schema"]
    if inner.get("type") != "model-fields" or inner.get("computed_fields"):
        raise Unsupported(name)
    config = {**model.get("config", {}), "extra_fields_behavior": "forbid"}
    fields = {}
    for key, field in inner["fields"].items():
        alias = field.get("serialization_alias") or key
        fields[alias] = _field(key, field)
    schema: Any = core_schema.typed_dict_schema(
        fields,
        extra_behavior="forbid",
        config=config,  # type: ignore[arg-type]
    )
    for wrapper in reversed(wrappers):
        schema = {**wrapper, "schema": schema}
    if model.get("ref"):
        schema["ref"] = model["ref"]
    return schema


def _field(name: str, field: dict[str, Any]) -> core_schema.TypedDictField:
    """A model's field as a typed dict's, found under its alias or (as the model's
    ``populate_by_name`` allows) its name."""
    if field.get("frozen") or field.get("serialization_exclude"):
        raise Unsupported(f"field {name}")
    schema, required = field["schema"], field["schema"]["type"] != "default"
    exclude_if = field.get("serialization_exclude_if")
    if exclude_if is not None:
        if exclude_if is not _OMIT_IF_NONE:
            raise Unsupported(f"field {name}")
        schema = _omitted_if_none(schema)  # a required one stays required
    else:
        schema = _rewritten(schema)
    alias = field.get("validation_alias")
    if isinstance(alias, str) and alias != name:
        alias = [[alias], [name]]
    elif alias is not None and alias != name:
        raise Unsupported(f"field {name}")
    return core_schema.typed_dict_field(schema, required=required, validation_alias=alias)


_NONE_OMITTED = core_schema.chain_schema(
    [
        core_schema.none_schema(),
        core_schema.with_default_schema(core_schema.literal_schema(["?"]), on_error="omit"),
    ]
)
"""``None``, left out; any other value refused. Only ``None`` passes ``none``, then fails
the literal, which ``on_error="omit"`` turns into the field's omission: all in
pydantic-core, at less than half the cost of a Python function raising ``PydanticOmit``."""


def _omitted_if_none(schema: dict[str, Any]) -> Any:
    """An ``OMIT_IF_NONE`` field: ``None`` leaves it out, as does its absence (``None`` by
    default); any other value is validated as before."""
    if schema["type"] == "default":
        if schema.get("default", ...) is not None or schema.get("default_factory"):
            raise Unsupported("OMIT_IF_NONE field with a default other than None")
        schema = schema["schema"]
    if schema["type"] == "nullable":
        schema = schema["schema"]
    return core_schema.union_schema([_rewritten(schema), _NONE_OMITTED], mode="left_to_right")


def _default(node: dict[str, Any]) -> dict[str, Any]:
    """A field's default: one a model class makes (``Field(default_factory=Refunds)``) is
    made by validating ``{}`` instead, which gives the same fields."""
    rewritten = {k: v if k in _NOT_SCHEMAS else _rewritten(v) for k, v in node.items()}
    factory = node.get("default_factory")
    if node.get("default_factory_takes_data"):
        raise Unsupported("default factory taking data")
    if isinstance(factory, type) and issubclass(factory, BaseModel):
        rewritten["default_factory"] = dict
        rewritten["validate_default"] = True
    elif factory is not None and not _plain_default(factory()):
        raise Unsupported("default factory")
    elif factory is None and not _plain_default(node.get("default")):
        raise Unsupported("default")
    elif isinstance(node.get("default"), Enum):
        rewritten["default"] = node["default"].value
    return rewritten


def _plain_default(value: Any) -> bool:
    """Whether a default is already its own JSON dump."""
    if isinstance(value, Enum):
        return isinstance(value, str) and isinstance(value.value, str)
    if value is None or isinstance(value, str | bool | int | float):
        return True
    if isinstance(value, list):
        return all(_plain_default(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_default(v) for k, v in value.items())
    return False
