"""List queries: limit, order, filters and cursor, checked locally and encoded for the wire.

Filters are written as plain dicts, ``{"name": {"$contains": "gold"}}``; the
service's full form ``{"name": {"conditions": {"$contains": "gold"}}}`` is
accepted too. They are checked against the endpoint's ``ListSpec`` (the same
rules the sandbox enforces) so a typo fails here, naming the field and the
condition, instead of as a 400 after a round trip. On the wire they become the
deepObject form ``filters[name][conditions][$contains]=gold``; a list of values
repeats the key once per value.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from enum import Enum
from typing import Any, TypedDict

from ..errors import RequestValidationError
from ..models.enums import Junction
from ..models.listing import MAX_LIMIT, MIN_LIMIT, FieldKind, FilterField, ListSpec
from ..models.numbers import INT64_MAX, number_problem

Params = list[tuple[str, str]]

_DATE_VALUE_CONDITIONS = frozenset({"$before", "$after"})
_DAY_COUNT_CONDITIONS = frozenset({"$is", "$more_than", "$less_than"})


class ListParams(TypedDict, total=False):
    """Keyword arguments every cursor-paginated ``list``/``iter`` accepts."""

    limit: int
    order: str | Sequence[str]
    filters: Mapping[str, Any]
    junction: str
    cursor: str


@dataclass(frozen=True)
class ListQuery:
    """One validated list query; ``with_cursor`` keeps everything else so cursors stay valid."""

    spec: ListSpec
    limit: int | None = None
    order: tuple[str, ...] = ()
    filters: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    """(field, condition, values) triples, in the order given."""
    junction: Junction | None = None
    cursor: str | None = None

    @classmethod
    def build(
        cls,
        spec: ListSpec,
        *,
        limit: int | None = None,
        order: str | Sequence[str] | None = None,
        filters: Mapping[str, Any] | None = None,
        junction: str | None = None,
        cursor: str | None = None,
        check: bool = True,
    ) -> ListQuery:
        """Normalise and (unless ``check=False``) validate the query against ``spec``."""
        if filters is not None and not isinstance(filters, Mapping):
            raise RequestValidationError(
                "filters must be a dict of fields to conditions, such as "
                f"{{'name': {{'$contains': 'gold'}}}}, got {filters!r}",
                field="filters",
            )
        filters = dict(filters or {})
        if "junction" in filters:
            junction = junction or filters.pop("junction")
        query = cls(
            spec=spec,
            limit=_whole(limit),
            order=_normalise_order(order),
            filters=_normalise_filters(filters),
            junction=_junction(junction),
            cursor=cursor,
        )
        if check:
            query.check()
        return query

    def with_cursor(self, cursor: str) -> ListQuery:
        """The same query, continued from ``cursor``."""
        return replace(self, cursor=cursor)

    def check(self) -> None:
        """Raise RequestValidationError for anything the service would reject."""
        _check_limit(self.limit)
        _check_order(self.spec, self.order)
        if self.filters and not self.spec.filters:
            raise RequestValidationError(
                f"the {self.spec.name} list takes no filters", field="filters"
            )
        for name, condition, values in self.filters:
            _check_filter(self.spec, name, condition, values)
        if self.cursor is not None and not (
            isinstance(self.cursor, str)
            and re.fullmatch(f"{re.escape(self.spec.cursor_prefix)}[a-f0-9]+", self.cursor)
        ):
            raise RequestValidationError(
                f"cursor must be a {self.spec.name} cursor: {str(self.spec.cursor_prefix)!r} "
                "then hex digits, as in cursor.next of a previous page",
                field="cursor",
            )

    def params(self) -> Params:
        """The query string as ordered (key, value) pairs."""
        out: Params = []
        if self.limit is not None:
            out.append(("limit", str(self.limit)))
        out.extend(("order", o) for o in self.order)
        for name, condition, values in self.filters:
            key = f"filters[{name}][conditions][{condition}]"
            out.extend((key, v) for v in values) if values else out.append((key, ""))
        if self.junction is not None:
            out.append(("filters[junction]", self.junction.value))
        if self.cursor is not None:
            out.append(("cursor", self.cursor))
        return out


def _normalise_order(order: str | Sequence[str] | None) -> tuple[str, ...]:
    if order is None:
        return ()
    if isinstance(order, str):
        return (order,)
    if (
        not isinstance(order, Sequence)
        or isinstance(order, bytes)
        or not all(isinstance(o, str) for o in order)
    ):
        raise RequestValidationError(
            f"order must be a field name or a list of them, such as '-created_at', got {order!r}",
            field="order",
        )
    return tuple(order)


def _whole(limit: Any) -> Any:
    """``limit`` as an ``int`` if it is an integer of another type (numpy's); else as given,
    for ``_check_limit`` to refuse."""
    if limit is None or isinstance(limit, bool):
        return limit
    try:
        return operator.index(limit)
    except TypeError:
        return limit


def _junction(value: Any) -> Junction | None:
    if value is None:
        return None
    try:
        return Junction(str(value).upper())
    except ValueError:
        raise RequestValidationError(
            f"junction must be AND or OR, got {value!r}", field="junction"
        ) from None


def _normalise_filters(filters: Mapping[str, Any]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    out: list[tuple[str, str, tuple[str, ...]]] = []
    for name, spec in filters.items():
        if not isinstance(spec, Mapping):
            raise RequestValidationError(
                f"filter {name!r} must be a dict of conditions such as {{'$is': value}}",
                field=f"filters.{name}",
            )
        conditions = spec.get("conditions", spec) if set(spec) <= {"conditions"} else spec
        if not isinstance(conditions, Mapping) or not conditions:
            raise RequestValidationError(
                f"filter {name!r} needs at least one condition", field=f"filters.{name}"
            )
        for condition, value in conditions.items():
            where = f"filters.{name}.{condition}"
            out.append((str(name), str(condition), _values(value, where)))
    return tuple(out)


def _values(value: Any, where: str) -> tuple[str, ...]:
    if value is None or value is True:
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | set | frozenset):
        return (_scalar(value, where),)
    return tuple(_scalar(v, where) for v in value)


def _scalar(value: Any, where: str) -> str:
    problem = number_problem(value)
    if problem is not None:
        raise RequestValidationError(f"{where}: {problem}", field=where)
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _check_limit(limit: int | None) -> None:
    limit = _whole(limit)
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int) or not MIN_LIMIT <= limit <= MAX_LIMIT:
        raise RequestValidationError(
            f"limit must be an integer from {MIN_LIMIT} to {MAX_LIMIT}, got {limit!r}",
            field="limit",
        )


def _check_order(spec: ListSpec, order: tuple[str, ...]) -> None:
    seen: set[str] = set()
    for value in order:
        if value not in spec.order_values:
            allowed = ", ".join(sorted(spec.order_values))
            raise RequestValidationError(
                f"order {value!r} is not allowed for {spec.name}; use one of {allowed}",
                field="order",
            )
        bare = value.lstrip("-")
        if bare in seen:
            raise RequestValidationError(
                f"order names {bare!r} more than once (a field cannot go both ways)",
                field="order",
            )
        seen.add(bare)


def _check_filter(spec: ListSpec, name: str, condition: str, values: tuple[str, ...]) -> None:
    where = f"filters.{name}.{condition}"
    field = spec.filters.get(name)
    if field is None:
        allowed = ", ".join(spec.filters)
        raise RequestValidationError(
            f"{spec.name} cannot be filtered on {name!r}; filterable fields: {allowed}",
            field=f"filters.{name}",
        )
    counts = field.conditions.get(condition)
    if counts is None:
        allowed = ", ".join(field.conditions)
        raise RequestValidationError(
            f"condition {condition!r} is not allowed on {name!r} ({field.kind.value} field); "
            f"allowed: {allowed}",
            field=where,
        )
    low, high = counts
    if not low <= len(values) <= high:
        wanted = f"{low}" if low == high else f"{low} to {high}"
        raise RequestValidationError(
            f"{where} takes {wanted} value(s), got {len(values)}", field=where
        )
    if low == 0:
        return  # presence checks ignore their value
    _check_values(field, condition, values, where)


def _check_values(field: FilterField, condition: str, values: tuple[str, ...], where: str) -> None:
    for value in values:
        if field.kind is FieldKind.ENUM and value not in field.values:
            raise RequestValidationError(
                f"{where}: {value!r} is not one of {', '.join(field.values)}", field=where
            )
        if field.kind is FieldKind.ID and field.pattern and not re.match(field.pattern, value):
            raise RequestValidationError(
                f"{where}: {value!r} does not match {field.pattern}", field=where
            )
        if field.kind is FieldKind.DATE and condition in _DATE_VALUE_CONDITIONS:
            try:
                datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                raise RequestValidationError(
                    f"{where}: {value!r} is not an ISO 8601 date-time", field=where
                ) from None
        if field.kind is FieldKind.DATE and condition in _DAY_COUNT_CONDITIONS:
            _check_day_count(value, where)


def _check_day_count(value: str, where: str) -> None:
    """A day count: ASCII digits only (``str.isdigit`` also takes ``²``), within 64 bits."""
    if not (value.isascii() and value.isdigit()):
        raise RequestValidationError(
            f"{where}: {value!r} must be a whole number of days (0 or more, digits 0-9)",
            field=where,
        )
    if len(value) > len(str(INT64_MAX)) or int(value) > INT64_MAX:
        raise RequestValidationError(
            f"{where}: {value!r} must fit a signed 64-bit integer", field=where
        )
