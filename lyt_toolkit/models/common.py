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
    model_validator,
)

from .numbers import first_problem

__all__ = [
    "OMIT_IF_NONE",
    "ApiModel",
    "KeepsAbsenceModel",
    "Metadata",
    "Number",
    "Open",
    "RequestModel",
    "RequestTimestamp",
    "Timestamp",
    "format_timestamp",
    "to_utc",
]


def to_utc(value: datetime) -> datetime:
    """Normalise a datetime to aware UTC so comparisons never mix naive and aware.

    A moment whose UTC form falls outside years 1-9999 raises ``ValueError``.
    """
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("timestamp is outside years 1-9999 once taken to UTC") from None


def answered_utc(value: datetime) -> datetime:
    """``to_utc``, except that an instant whose UTC form Python cannot hold (year 0 or 10000)
    keeps its own offset: an odd value of an answer, which the frames set to NA with a warning."""
    try:
        return to_utc(value)
    except ValueError:
        return value


def format_timestamp(value: datetime) -> str:
    """Render a datetime the way the service does: UTC, milliseconds, ``Z`` (at its own offset
    when its UTC form is beyond year 9999 or before year 1)."""
    # isoformat pads the year to four digits (strftime's %Y need not) and ends "+00:00".
    try:
        return to_utc(value).isoformat(timespec="milliseconds")[:-6] + "Z"
    except ValueError:
        return value.isoformat(timespec="milliseconds")


Timestamp = Annotated[
    datetime,
    AfterValidator(answered_utc),
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
]
"""A date-time field of an answer: parsed from ISO 8601, held as aware UTC (see
``answered_utc``), sent with ``Z``."""

RequestTimestamp = Annotated[
    datetime,
    AfterValidator(to_utc),
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
]
"""A date-time field of a request: as ``Timestamp``, but a moment outside years 1-9999 in UTC
is a validation error."""

Metadata = dict[str, Any]

Number = int | float
"""A JSON number; integers stay integers so the wire form is unchanged."""


_E = TypeVar("_E", bound=StrEnum)

Open = Annotated[_E | str, Field(union_mode="left_to_right")]
"""``Open[SomeEnum]``: the enum member when known, else the raw string.

A generic alias, so type checkers read ``Open[RefundType]`` as ``RefundType | str``.
It wraps sub-object enums so a value the service adds later still parses.
"""


def _is_none(value: object) -> bool:
    return value is None


OMIT_IF_NONE = Field(exclude_if=_is_none)
"""Marks a field the service leaves out, rather than sending ``null``, when it has no
value: ``name: Annotated[str | None, OMIT_IF_NONE] = None``. pydantic-core leaves it out
itself, in every dump, with no Python serializer around the model."""


class ApiModel(BaseModel):
    """A payload the service sends; tolerant of fields added by BETA changes.

    Its fields marked ``OMIT_IF_NONE`` are left out of a dump when ``None``; the others
    are sent as ``null``.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def wire(self) -> dict[str, Any]:
        """The JSON-ready dict exactly as the service would send this object."""
        return self.model_dump(mode="json", by_alias=True)


class KeepsAbsenceModel(ApiModel):
    """An ``ApiModel`` with fields some answers send as ``null`` and others leave out:
    those in ``omit_if_absent`` are dumped as received (left out when they were absent
    and are ``None``). Needs a Python serializer around each dump, so only the few
    models with such fields are one."""

    omit_if_absent: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _drop_absent(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        absent = self.omit_if_absent - self.model_fields_set
        if isinstance(data, dict):
            for name in absent:
                field = type(self).model_fields.get(name)
                for key in {name, field.alias if field and field.alias else name}:
                    if key in data and data[key] is None:
                        del data[key]
        return data


class RequestModel(BaseModel):
    """A body we send; unknown fields are a caller mistake, so they are rejected.

    So is a number the interface cannot carry, anywhere in the body (metadata
    included): an integer outside the signed 64-bit range, ``NaN`` or an infinity.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _numbers_in_bounds(cls, data: Any) -> Any:
        problem = first_problem(data)
        if problem is not None:
            raise ValueError(f"{problem.where}: {problem.reason}")
        return data

    def body(self) -> dict[str, Any]:
        """The JSON body to send: unset (``None``) fields are left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
