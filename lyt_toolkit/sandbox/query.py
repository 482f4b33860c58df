"""List queries: parse ``limit``, ``order``, ``cursor`` and deep-object ``filters``
into SQL over the store, and page through results by keyset (no OFFSET).

The accepted fields and conditions come from ``models.listing``; anything else
is a 400 naming the parameter. Cursors are kept server-side, bound to the list,
scope, filters and order that produced them, and expire.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..models.listing import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MIN_LIMIT,
    FieldKind,
    FilterField,
    ListSpec,
)
from .clock import iso, parse_instant
from .errors import bad_request
from .store import ORDERED_BY_INDEX, Store

MAX_DAYS = 36_500
"""Largest day count a date condition takes (a century; beyond it dates overflow)."""

_FILTER_KEY = re.compile(r"^filters\[([^\]]+)\](?:\[conditions\]\[([^\]]+)\])?(?:\[\d*\])?$")


@dataclass(frozen=True)
class Condition:
    field: FilterField
    name: str
    values: tuple[str, ...]


@dataclass
class ListQuery:
    """A validated list request."""

    spec: ListSpec
    limit: int = DEFAULT_LIMIT
    order: list[tuple[str, bool]] = field(default_factory=list)  # (column, descending)
    conditions: list[Condition] = field(default_factory=list)
    junction: str = "AND"
    cursor: str | None = None

    @property
    def indexed(self) -> bool:
        """Whether its page is read through an index alone (no filter, one order column, an
        indexed one): work bounded by its limit, however long the list."""
        return not self.conditions and len(self.order) == 1 and self.order[0][0] in ORDERED_BY_INDEX

    def fingerprint(self, scope: str) -> str:
        """What a cursor is bound to: list, scope, filters and order (not the limit)."""
        payload = {
            "list": self.spec.name,
            "scope": scope,
            "order": self.order,
            "junction": self.junction,
            "filters": sorted((c.field.name, c.name, c.values) for c in self.conditions),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# -- parsing ----------------------------------------------------------------


def parse_list_query(spec: ListSpec, params: Sequence[tuple[str, str]]) -> ListQuery:
    """Validate the raw query items of a list request against ``spec``."""
    query = ListQuery(spec)
    raw_filters: dict[str, dict[str, list[str]]] = {}
    orders: list[str] = []
    for key, value in params:
        if key == "limit":
            query.limit = _parse_limit(value)
        elif key in ("order", "order[]"):
            orders.append(value)
        elif key == "cursor":
            query.cursor = _parse_cursor(spec, value)
        elif key.startswith("filters"):
            _collect_filter(spec, key, value, raw_filters, query)
    query.order = _parse_order(spec, orders)
    query.conditions = [
        _parse_condition(spec.filters[name], cond, values)
        for name, conds in raw_filters.items()
        for cond, values in conds.items()
    ]
    return query


_ASCII_DIGITS = re.compile(r"[0-9]{1,9}")
"""A count as the interface writes it: ASCII digits only (``int()`` also takes ``²``-like
look-alikes, other scripts' digits, signs, spaces and underscores)."""


def _parse_limit(value: str) -> int:
    if not _ASCII_DIGITS.fullmatch(value):
        raise bad_request(f"limit: must be an integer, got {value!r}")
    limit = int(value)
    if not MIN_LIMIT <= limit <= MAX_LIMIT:
        raise bad_request(f"limit: must be between {MIN_LIMIT} and {MAX_LIMIT}, got {limit}")
    return limit


def _parse_cursor(spec: ListSpec, value: str) -> str:
    if not re.fullmatch(re.escape(spec.cursor_prefix) + "[a-f0-9]+", value):
        raise bad_request(f"cursor: must match ^{spec.cursor_prefix}[a-f0-9]+$")
    return value


def _parse_order(spec: ListSpec, values: list[str]) -> list[tuple[str, bool]]:
    items = [v for raw in values for v in raw.split(",") if v] or [spec.default_order]
    seen: dict[str, bool] = {}
    for item in items:
        if item not in spec.order_values:
            allowed = ", ".join(sorted(spec.order_values))
            raise bad_request(f"order: {item!r} is not allowed; use one of {allowed}")
        name, descending = item.lstrip("-"), item.startswith("-")
        if name in seen:
            if seen[name] != descending:
                raise bad_request(
                    f"order: {name} cannot be ordered ascending and descending at once"
                )
            continue
        seen[name] = descending
    return list(seen.items())


def _collect_filter(
    spec: ListSpec, key: str, value: str, raw: dict[str, dict[str, list[str]]], query: ListQuery
) -> None:
    match = _FILTER_KEY.match(key)
    if not match:
        raise bad_request(
            f"{key}: filters take the form filters[<field>][conditions][<$condition>]"
        )
    name, cond = match.groups()
    if name == "junction" and cond is None:
        if value.upper() not in ("AND", "OR"):
            raise bad_request(f"filters.junction: must be AND or OR, got {value!r}")
        query.junction = value.upper()
        return
    if name not in spec.filters:
        allowed = ", ".join(spec.filters) or "none"
        raise bad_request(f"filters.{name}: not a filter field of this list; allowed: {allowed}")
    if cond is None:
        raise bad_request(
            f"filters.{name}: needs a conditions object, e.g. filters[{name}][conditions][$is]=..."
        )
    allowed_conds = spec.filters[name].conditions
    if cond not in allowed_conds:
        kind = spec.filters[name].kind.value
        raise bad_request(
            f"filters.{name}.conditions.{cond}: not allowed for a {kind} field;"
            f" allowed: {', '.join(allowed_conds)}"
        )
    raw.setdefault(name, {}).setdefault(cond, []).append(value)


def _parse_condition(spec_field: FilterField, cond: str, values: list[str]) -> Condition:
    where = f"filters.{spec_field.name}.conditions.{cond}"
    low, high = spec_field.conditions[cond]
    if low == 0:  # presence checks take no meaningful value
        values = []
    elif not low <= len(values) <= high:
        raise bad_request(f"{where}: takes {low} to {high} value(s), got {len(values)}")
    for value in values:
        _check_value(spec_field, cond, value, where)
    return Condition(spec_field, cond, tuple(values))


def _check_value(spec_field: FilterField, cond: str, value: str, where: str) -> None:
    if (
        spec_field.kind is FieldKind.ID
        and spec_field.pattern
        and not re.match(spec_field.pattern, value)
    ):
        raise bad_request(f"{where}: {value!r} does not match {spec_field.pattern}")
    if spec_field.kind is FieldKind.ENUM and value not in spec_field.values:
        raise bad_request(f"{where}: {value!r} is not one of {', '.join(spec_field.values)}")
    if spec_field.kind is FieldKind.DATE:
        if cond in ("$before", "$after"):
            try:
                parse_instant(value)
            except (ValueError, OverflowError):
                raise bad_request(f"{where}: {value!r} is not an ISO 8601 date-time") from None
        elif not _ASCII_DIGITS.fullmatch(value) or int(value) > MAX_DAYS:
            raise bad_request(
                f"{where}: takes a whole number of days from 0 to {MAX_DAYS}, got {value!r}"
            )


# -- SQL ----------------------------------------------------------------------


def _condition_sql(cond: Condition, now: datetime) -> tuple[str, list[Any]]:
    col, values, name = cond.field.name, list(cond.values), cond.name
    if cond.field.kind is FieldKind.DATE:
        return _date_sql(col, name, values, now)
    exact = f"{col} COLLATE BINARY" if col == "name" else col
    marks = ", ".join("?" * len(values))
    simple: dict[str, tuple[str, list[Any]]] = {
        "$is": (f"{exact} = ?", values),
        "$is_not": (f"({exact} IS NULL OR {exact} != ?)", values),
        "$in": (f"{exact} IN ({marks})", values),
        "$not_in": (f"({exact} IS NULL OR {exact} NOT IN ({marks}))", values),
        "$has_value": (f"({col} IS NOT NULL AND {col} != '')", []),
        "$is_unknown": (f"({col} IS NULL OR {col} = '')", []),
    }
    if name in simple:
        return simple[name]
    needle = values[0].lower()
    text: dict[str, tuple[str, list[Any]]] = {
        "$contains": (f"instr(lower({col}), ?) > 0", [needle]),
        "$not_contain": (f"instr(lower({col}), ?) = 0", [needle]),
        "$starts_with": (f"substr(lower({col}), 1, ?) = ?", [len(needle), needle]),
        "$ends_with": (f"substr(lower({col}), -?) = ?", [len(needle), needle]),
    }
    if name in ("$starts_with", "$ends_with") and not needle:
        return "1", []
    return text[name]


def _date_sql(col: str, name: str, values: list[str], now: datetime) -> tuple[str, list[Any]]:
    if name == "$has_value":
        return f"{col} IS NOT NULL", []
    if name == "$is_unknown":
        return f"{col} IS NULL", []
    if name in ("$before", "$after"):
        op = "<" if name == "$before" else ">"
        return f"{col} {op} ?", [iso(parse_instant(values[0]))]
    days_ago = now - timedelta(days=int(values[0]))
    if name == "$more_than":
        return f"{col} < ?", [iso(days_ago)]
    if name == "$less_than":
        return f"{col} > ?", [iso(days_ago)]
    start = days_ago.replace(hour=0, minute=0, second=0, microsecond=0)
    return f"({col} >= ? AND {col} < ?)", [iso(start), iso(start + timedelta(days=1))]


def _where_filters(query: ListQuery, now: datetime) -> tuple[str, list[Any]]:
    if not query.conditions:
        return "1", []
    by_field: dict[str, list[tuple[str, list[Any]]]] = {}
    for cond in query.conditions:
        by_field.setdefault(cond.field.name, []).append(_condition_sql(cond, now))
    clauses: list[str] = []
    params: list[Any] = []
    for parts in by_field.values():  # conditions on one field always hold together
        clauses.append("(" + " AND ".join(sql for sql, _ in parts) + ")")
        params.extend(p for _, ps in parts for p in ps)
    return "(" + f" {query.junction} ".join(clauses) + ")", params


def _keyset(order: list[tuple[str, bool]], position: list[Any]) -> tuple[str, list[Any]]:
    """Rows strictly after ``position`` in ``order`` (ties broken by id)."""
    if len({desc for _, desc in order}) == 1:
        # One direction: a row-value comparison, which the index serves.
        cols = ", ".join(col for col, _ in order)
        op = "<" if order[0][1] else ">"
        return f"(({cols}) {op} ({', '.join('?' * len(order))}))", list(position)
    ors: list[str] = []
    params: list[Any] = []
    for i, (col, desc) in enumerate(order):
        eqs = [f"{c} = ?" for c, _ in order[:i]]
        ors.append("(" + " AND ".join([*eqs, f"{col} {'<' if desc else '>'} ?"]) + ")")
        params.extend([*position[:i], position[i]])
    return "(" + " OR ".join(ors) + ")", params


@dataclass
class PageResult:
    bodies: list[str]
    """The stored JSON of each item, in order: a page is answered without re-encoding."""
    cursor: dict[str, str] | None

    def envelope_json(self) -> bytes:
        """``{"data": [...], "cursor": ..., "object": "list"}`` as bytes."""
        cursor = json.dumps(self.cursor)
        return (
            f'{{"data": [{", ".join(self.bodies)}], "cursor": {cursor}, "object": "list"}}'.encode()
        )


def fetch_page(
    store: Store,
    kind: str,
    query: ListQuery,
    *,
    now: datetime,
    new_cursor_token: Callable[[str], str],
    cursor_ttl: timedelta,
    scope: str = "",
    full_page_cursor: bool = False,
) -> PageResult:
    """One page of ``kind`` within ``scope`` and, when more rows follow, a fresh cursor
    (``full_page_cursor``: also when the page is full, none following)."""
    # The tie-breaker id follows the last field's direction so one index serves the scan.
    order = [*query.order, ("id", query.order[-1][1])]
    fingerprint = query.fingerprint(scope)
    position = _resume_position(store, query, fingerprint, now) if query.cursor else None
    where, params = _where_filters(query, now)
    columns = ", ".join(c for c, _ in order)
    sql = (
        f"SELECT body, {columns} FROM resources"
        f" WHERE kind = ? AND scope = ? AND listed = 1 AND {where}"
    )
    all_params: list[Any] = [kind, scope, *params]
    if position is not None:
        keyset_sql, keyset_params = _keyset(order, position)
        sql += f" AND {keyset_sql}"
        all_params.extend(keyset_params)
    sql += " ORDER BY " + ", ".join(f"{c} {'DESC' if d else 'ASC'}" for c, d in order)
    sql += " LIMIT ?"
    rows = store.query(sql, [*all_params, query.limit + 1])
    page = rows[: query.limit]
    more = len(rows) > query.limit or (full_page_cursor and len(page) == query.limit)
    cursor = None
    if more:
        last = page[-1]
        token = new_cursor_token(query.spec.cursor_prefix)
        expires = iso(now + cursor_ttl)
        resume_at = [last[c] for c, _ in order]
        store.put_cursor(token, query.spec.name, fingerprint, resume_at, expires, now=iso(now))
        cursor = {"next": token, "expires_at": expires}
    return PageResult([r["body"] for r in page], cursor)


def _resume_position(store: Store, query: ListQuery, fingerprint: str, now: datetime) -> list[Any]:
    row = store.get_cursor(query.cursor or "")
    if row is None or row["list_name"] != query.spec.name:
        raise bad_request(
            "cursor: unknown cursor; take cursor.next from a previous page", "invalid_cursor"
        )
    if row["fingerprint"] != fingerprint:
        raise bad_request(
            "cursor: belongs to a query with other filters or order;"
            " resend the query that produced it",
            "invalid_cursor",
        )
    if parse_instant(row["expires_at"]) <= now:
        raise bad_request("cursor: expired; start again from the first page", "cursor_expired")
    return json.loads(row["position"])
