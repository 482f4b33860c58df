"""Base classes and shared field types of every model.

Wire format of timestamps: ISO 8601 in UTC with millisecond precision and a
``Z`` suffix (``2026-01-15T12:00:00.000Z``), the form the service itself sends.
Naive datetimes are taken to be UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)

__all__ = [
    "ApiModel",
    "Metadata",
    "Number",
    "Open",
    "RequestModel",
    "Timestamp",
    "format_timestamp",
    "to_utc",
]


def to_utc(value: datetime) -> datetime:
    """Normalise a datetime to aware UTC so comparisons never mix naive and aware."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def format_timestamp(value: datetime) -> str:
    """Render a datetime the way the service does: UTC, milliseconds, ``Z``."""
    value = to_utc(value)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


Timestamp = Annotated[
    datetime,
    AfterValidator(to_utc),
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
]
"""A date-time field: parsed from ISO 8601, held as aware UTC, sent with ``Z``."""

Metadata = dict[str, Any]

Number = int | float
"""A JSON number; integers stay integers so the wire form is unchanged."""


_E = TypeVar("_E", bound=StrEnum)

Open = Annotated[_E | str, Field(union_mode="left_to_right")]
"""``Open[SomeEnum]``: the enum member when known, else the raw string.

A generic alias, so type checkers read ``Open[RefundType]`` as ``RefundType | str``.
It wraps sub-object enums so a value the service adds later still parses.
"""


class ApiModel(BaseModel):
    """A payload the service sends; tolerant of fields added by BETA changes."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    omit_if_none: ClassVar[frozenset[str]] = frozenset()
    """Fields the service leaves out (rather than sending ``null``) when unset."""

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if isinstance(data, dict) and self.omit_if_none:
            for name in self.omit_if_none:
                field = type(self).model_fields.get(name)
                for key in {name, field.alias if field and field.alias else name}:
                    if key in data and data[key] is None:
                        del data[key]
        return data

    def wire(self) -> dict[str, Any]:
        """The JSON-ready dict exactly as the service would send this object."""
        return self.model_dump(mode="json", by_alias=True)


class RequestModel(BaseModel):
    """A body we send; unknown fields are a caller mistake, so they are rejected."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def body(self) -> dict[str, Any]:
        """The JSON body to send: unset (``None``) fields are left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
