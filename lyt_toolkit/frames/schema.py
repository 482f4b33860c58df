"""Declared column schemas: the contract every program DataFrame keeps, even when empty.

A ``Schema`` lists ordered ``Column`` objects, each with a pandas dtype and a
one-line meaning. ``Schema.build`` turns rows that name each value by its
column (``{"id": ..., "name": ...}``) into a frame of exactly those dtypes,
built column by column; a row that lacks a column or adds one is refused,
naming the column. So a frame with zero rows has the same columns and dtypes
as a full one, and a CSV export can record and restore them.

Dtype choices: text is ``string`` (empty text is stored as NA so it survives
a CSV round trip), integers ``Int64``, fractional numbers ``Float64``, flags
``boolean``, instants ``datetime64[ns, UTC]``, and enumerations ``category``
with the enum's full value list (values the service adds later are appended
to the categories with a warning instead of being lost).

Odd values in the service's answers never stop a build: a value its column's
dtype cannot hold (an integer beyond 64 bits, an instant outside the years
1677-2262, text in a number column) becomes NA, and each such value, like
each new category value, gives an ``OddValueWarning`` naming the kind, the
row's ID and the field. ``Schema.build`` also records each one as an
``OddValue`` in the built frame's ``attrs["odd_values"]`` (a tuple, empty for
clean data), so the row can be flagged.
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any

import pandas as pd
from pandas.api.types import union_categoricals

from .._secret import MaskedError, quoted_short
from ..errors import OddValueWarning

__all__ = [
    "DATETIME",
    "MINOR_UNITS",
    "Column",
    "FrameBuilder",
    "OddValue",
    "Row",
    "Schema",
    "SchemaMismatchError",
    "enum",
    "flag",
    "integer",
    "money",
    "number",
    "text",
    "timestamp",
]

DATETIME = "datetime64[ns, UTC]"

Row = Mapping[str, Any]
"""One row as a builder produces it: column name -> plain Python value (None = missing)."""
_PLAIN = {"str": "str", "Int64": "Int64", "Float64": "Float64", "boolean": "boolean"}


@dataclass(frozen=True)
class Column:
    """One column: its name, dtype name, meaning and (for enums) every category."""

    name: str
    dtype_name: str
    doc: str
    categories: tuple[str, ...] = ()

    @cached_property
    def dtype(self) -> Any:
        """The pandas dtype object this column always has (made once per column)."""
        if self.dtype_name == "category":
            return pd.CategoricalDtype(list(self.categories))
        if self.dtype_name == DATETIME:
            return pd.DatetimeTZDtype("ns", "UTC")
        return pd.api.types.pandas_dtype(_PLAIN[self.dtype_name])

    def array(self, values: Sequence[Any]) -> Any:
        """Typed values for this column from plain Python ones (None = missing)."""
        kind = self.dtype_name
        if kind == "category":
            return _categorical(self, values)
        if kind == DATETIME:
            return _datetimes(values)
        if kind == "str" and "" in values:
            values = [None if v == "" else v for v in values]
        return pd.array(values, dtype=self.dtype)


def text(name: str, doc: str) -> Column:
    """A text column; empty text is stored as missing, so it survives a CSV round trip."""
    return Column(name, "str", doc)


def integer(name: str, doc: str) -> Column:
    """A whole-number column (nullable ``Int64``, so missing values keep it integral)."""
    return Column(name, "Int64", doc)


def number(name: str, doc: str) -> Column:
    """A fractional-number column (nullable ``Float64``)."""
    return Column(name, "Float64", doc)


MINOR_UNITS = "in the service's minor currency units (e.g. cents: 1000 is 10.00)"
"""The unit of every amount of money the service sends, as the schemas spell it."""


def money(name: str, doc: str) -> Column:
    """An amount of money: a number column whose description ends with its unit."""
    return number(name, f"{doc}, {MINOR_UNITS}")


def flag(name: str, doc: str) -> Column:
    """A true/false column (nullable ``boolean``, so unknown is not read as false)."""
    return Column(name, "boolean", doc)


def timestamp(name: str, doc: str) -> Column:
    """An instant column, always in UTC (``datetime64[ns, UTC]``)."""
    return Column(name, DATETIME, doc)


def enum(name: str, values: type[Enum], doc: str) -> Column:
    """A categorical column whose categories are every value of ``values``."""
    return Column(name, "category", doc, tuple(str(m.value) for m in values))


def _categorical(column: Column, values: Sequence[Any]) -> pd.Categorical[Any]:
    """Codes of ``values``; values outside the declared categories are appended."""
    # One dict lookup per value, in C: strings and enum members (``StrEnum``s hash
    # as their value) map to codes. Only a column holding a value outside the
    # categories (new, NaN, not text) takes the loop that appends categories.
    cats = list(column.categories)
    index = {c: i for i, c in enumerate(cats)}
    memo: dict[Any, int] = {None: -1, **index}
    codes: list[Any] = list(map(memo.get, values))
    if None not in codes:  # the column's own dtype, made once: making one costs ~0.3 ms
        return pd.Categorical.from_codes(codes, dtype=column.dtype)
    memo = {None: -1}
    codes = []
    for v in values:
        code = memo.get(v)
        if code is None:
            code = memo[v] = _code(v, index, cats)
        codes.append(code)
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(cats))


def _code(value: Any, index: dict[str, int], cats: list[str]) -> int:
    """The category code of ``value``, appending it to ``cats`` when it is new."""
    if value != value:  # NaN
        return -1
    text = value.value if isinstance(value, Enum) else str(value)
    if text not in index:
        index[text] = len(cats)
        cats.append(text)
    return index[text]


def _datetimes(values: Sequence[Any]) -> pd.DatetimeIndex:
    if not len(values):
        return pd.DatetimeIndex([], dtype=DATETIME)
    return pd.DatetimeIndex(pd.to_datetime(list(values), utc=True)).as_unit("ns")


@dataclass(frozen=True)
class OddValue:
    """One odd value met while building a frame: where it was, what it was, what became of it."""

    kind: str
    id: str
    field: str
    value: str
    outcome: str


ODD_VALUES = "odd_values"
"""The ``DataFrame.attrs`` key under which ``Schema.build`` records its ``OddValue`` tuple."""


class OddValues(tuple[OddValue, ...]):
    """A frame's ``attrs["odd_values"]``: a tuple of ``OddValue`` that a deep copy shares.

    pandas deep-copies a frame's ``attrs`` on nearly every operation (a column read, a
    slice, a copy); a tuple of frozen records cannot change, so its copy is itself.
    """

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> OddValues:
        return self


_ODD = (OverflowError, TypeError, ValueError)
"""What pandas raises for a value its dtype cannot hold (``OutOfBoundsDatetime`` included)."""

_MAX_WARNINGS = 20
"""Odd values warned about one by one per column; the rest are counted in one last warning."""


class _Ids:
    """Each row's ID (the first column), looked up only when a value is odd."""

    def __init__(self, schema: Schema, cols: Sequence[Sequence[Any]]) -> None:
        self.name = schema.columns[0].name
        self.values = cols[0] if cols else ()

    def of(self, row: int) -> str:
        return f"{self.name} {self.raw(row)}"

    def raw(self, row: int) -> str:
        return str(self.values[row])


class _Odd:
    """The warnings of one column: one per odd value, at most ``_MAX_WARNINGS``, then a count.

    One counter serves every batch of a frame built in parts; ``ids`` names the rows of
    the batch being typed.
    """

    def __init__(self, kind: str, column: Column, found: list[OddValue]) -> None:
        self.kind, self.column, self.found = kind, column, found
        self.count = 0

    def close(self) -> None:
        """The last warning: how many odd values went unnamed."""
        if self.count > _MAX_WARNINGS:
            more = self.count - _MAX_WARNINGS
            self._warn(f"{self.kind}: field {self.column.name!r}: {more} more odd values")

    def value(self, ids: _Ids, row: int, value: Any, outcome: str) -> None:
        self.found.append(
            OddValue(self.kind, ids.raw(row), self.column.name, _as_text(value), outcome)
        )
        self.count += 1
        if self.count > _MAX_WARNINGS:
            return
        self._warn(
            f"{self.kind} {ids.of(row)}: field {self.column.name!r} "
            f"({self.column.dtype_name}) got {quoted_short(repr(value))}; {outcome}"
        )

    def _warn(self, message: str) -> None:
        warnings.warn(message, OddValueWarning, stacklevel=6)


def _as_text(value: Any) -> str:
    """An odd value as text: an enum member's value, else ``str``."""
    return str(value.value) if isinstance(value, Enum) else str(value)


def _typed(column: Column, values: Sequence[Any], ids: _Ids, odd: _Odd) -> Any:
    """``column.array(values)``; a value the dtype cannot hold becomes NA with a warning.

    Each odd value is also recorded by ``odd``.

    The whole column is converted at once; only when that fails is each value
    tried on its own, so normal data costs nothing extra.
    """
    try:
        array = column.array(values)
    except _ODD:
        kept = list(values)
        for row, value in enumerate(values):
            try:
                column.array([value])
            except _ODD:
                kept[row] = None
                odd.value(ids, row, value, "set to NA")
        array = column.array(kept)
    if column.dtype_name == "category":
        new = set(array.categories) - set(column.categories)
        if new:
            for row, code in enumerate(array.codes):
                if code >= 0 and array.categories[code] in new:
                    odd.value(ids, row, values[row], "kept as a new category")
    return array


def _joined(column: Column, parts: list[Any]) -> Any:
    """The typed parts of one column as one array (categories in order of appearance)."""
    if len(parts) == 1:
        return parts[0]
    if column.dtype_name == "category":
        return union_categoricals(parts, sort_categories=False)
    return pd.concat([pd.Series(p, copy=False) for p in parts], ignore_index=True).array


class SchemaMismatchError(MaskedError, ValueError):
    """A builder's row and its schema disagree; the message names each column. A token a
    column's name holds shows as ``***`` where a client of the process holds it or the
    environment or ``.env`` sets it (``_secret.MaskedError``)."""

    def __init__(self, kind: str, missing: list[str], extra: list[str]) -> None:
        self.kind = kind
        self.missing = missing
        self.extra = extra
        parts = [
            f"lacks columns {missing}" if missing else "",
            f"adds columns {extra}" if extra else "",
        ]
        super().__init__(f"{kind}: a row " + " and ".join(p for p in parts if p))


def _row_values(names: list[str]) -> Callable[[Row], tuple[Any, ...]]:
    """A row's values in ``names`` order, as a tuple (``KeyError`` for a missing column)."""
    getter = operator.itemgetter(*names)
    if len(names) == 1:
        return lambda row: (getter(row),)
    return getter


@dataclass(frozen=True)
class Schema:
    """The ordered, typed columns of one kind of frame."""

    kind: str
    doc: str
    columns: tuple[Column, ...]
    by_name: dict[str, Column] = field(init=False, repr=False, compare=False)
    _values_of: Callable[[Row], tuple[Any, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {c.name: c for c in self.columns})
        object.__setattr__(self, "_values_of", _row_values(self.names))
        if len(self.by_name) != len(self.columns):
            raise ValueError(f"schema {self.kind!r} repeats a column name")

    @property
    def names(self) -> list[str]:
        """The column names in declared order (the order every frame of this kind has)."""
        return [c.name for c in self.columns]

    @property
    def dtypes(self) -> dict[str, Any]:
        """Column name to the pandas dtype it always has (what ``frame.dtypes`` should show)."""
        return {c.name: c.dtype for c in self.columns}

    def build(self, rows: Iterable[Row]) -> pd.DataFrame:
        """A frame from rows that name each value by its column, built column by column.

        Every row must have exactly this schema's columns; ``SchemaMismatchError``
        names the columns a row lacks or adds. Odd values (see the module doc) are
        recorded in the frame's ``attrs["odd_values"]``.
        """
        builder = FrameBuilder(self)
        builder.add(rows)
        return builder.frame()

    def values(self, rows: list[Row]) -> list[Sequence[Any]]:
        """The values of ``rows`` column by column, each row checked against the schema."""
        width = len(self.columns)
        for row in rows:
            if len(row) != width:
                self.check_columns(row)
        try:
            # One C-level lookup of every column per row, then one list per column.
            values = list(map(self._values_of, rows))
        except KeyError:
            for row in rows:
                self.check_columns(row)
            raise
        return list(zip(*values, strict=True)) if values else [()] * width

    def columns_of(self, rows: list[Row]) -> dict[str, list[Any]]:
        """The values of ``rows`` per column name (what ``FrameBuilder.add_columns`` takes)."""
        return dict(zip(self.names, map(list, self.values(rows)), strict=True))

    def check_columns(self, row: Row) -> None:
        """Raise ``SchemaMismatchError`` unless ``row`` has exactly this schema's columns."""
        missing = [n for n in self.names if n not in row]
        extra = [str(n) for n in row if n not in self.by_name]
        if missing or extra:
            raise SchemaMismatchError(self.kind, missing, extra)

    def empty(self) -> pd.DataFrame:
        """The frame with no rows: same columns, same dtypes (a new frame each call)."""
        return self._no_rows.copy()

    @functools.cached_property
    def _no_rows(self) -> pd.DataFrame:
        """The frame with no rows, built once (``empty`` hands out copies)."""
        return self.build([])

    def describe(self) -> pd.DataFrame:
        """One row per column: name, dtype, categories and meaning."""
        return pd.DataFrame(
            {
                "column": [c.name for c in self.columns],
                "dtype": [c.dtype_name for c in self.columns],
                "categories": [", ".join(c.categories) for c in self.columns],
                "description": [c.doc for c in self.columns],
            }
        ).astype("string")

    def conform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with this schema's column order and dtypes (for derived frames)."""
        missing = [n for n in self.names if n not in frame.columns]
        if missing:
            raise ValueError(f"{self.kind}: frame lacks columns {missing}")
        if list(frame.columns) == self.names:  # in order already: no selection (0.5 ms)
            out = frame.copy(deep=False)  # copy-on-write: a cast copies its column
        else:
            out = frame.loc[:, self.names].copy(deep=False)
        if out.shape[1] != len(self.names):
            twice = sorted({str(n) for n in frame.columns[frame.columns.duplicated()]})
            raise ValueError(f"{self.kind}: frame has columns more than once: {twice}")
        casts = {
            c.name: c.dtype
            for c, have in zip(self.columns, out.dtypes, strict=True)
            if have != c.dtype
            and not (c.dtype_name == "category" and isinstance(have, pd.CategoricalDtype))
        }
        for name, dtype in casts.items():  # a column at a time: ``astype(casts)`` rebuilds
            out[name] = out[name].astype(dtype)  # every column, some 1.5 ms on a small frame
        return out


BATCH = 2_000
"""Rows a ``FrameBuilder`` holds as plain values before typing them."""


class FrameBuilder:
    """One frame of a schema built from rows (or columns) that arrive a page at a time.

    Values are typed ``batch`` rows at a time, so a pull holds the typed columns and
    one batch of plain values, never every row or model at once; ``frame()`` joins
    the parts. The frame, its ``attrs["odd_values"]`` and its warnings are those of
    ``Schema.build`` over all the rows.
    """

    def __init__(self, schema: Schema, batch: int | None = None) -> None:
        self.schema = schema
        self.batch = batch or BATCH
        self._pending: list[list[Any]] = [[] for _ in schema.columns]
        self._count = 0
        self._parts: list[list[Any]] = [[] for _ in schema.columns]
        self._found: list[list[OddValue]] = [[] for _ in schema.columns]
        self._odd = [
            _Odd(schema.kind, c, found)
            for c, found in zip(schema.columns, self._found, strict=True)
        ]

    def add(self, rows: Iterable[Row]) -> None:
        """Take ``rows``; each full batch is typed at once."""
        batch: list[Row] = []
        for row in rows:
            batch.append(row)
            if len(batch) + self._count >= self.batch:
                self._take(self.schema.values(batch), len(batch))
                batch = []
        if batch:
            self._take(self.schema.values(batch), len(batch))

    def add_columns(self, columns: Mapping[str, Sequence[Any]]) -> None:
        """Take rows given column by column: every column of the schema, equally long."""
        names = self.schema.by_name
        if columns.keys() != names.keys():
            missing = [n for n in names if n not in columns]
            raise SchemaMismatchError(
                self.schema.kind, missing, [str(n) for n in columns if n not in names]
            )
        values = [columns[name] for name in names]
        count = len(values[0])
        if any(len(v) != count for v in values):
            lengths = {name: len(v) for name, v in zip(names, values, strict=True)}
            raise ValueError(f"{self.schema.kind}: columns of unequal length: {lengths}")
        self._take(values, count)

    def add_typed(self, columns: Mapping[str, Any]) -> None:
        """Take rows already typed as ``Schema.build`` types them (every column, equally
        long, clean: no odd value), after every row added before them."""
        if self._count:
            self._flush()
        for part, column in zip(self._parts, self.schema.columns, strict=True):
            part.append(columns[column.name])

    def _take(self, values: Sequence[Sequence[Any]], count: int) -> None:
        for pending, column in zip(self._pending, values, strict=True):
            pending.extend(column)
        self._count += count
        if self._count >= self.batch:
            self._flush()

    def _flush(self) -> None:
        cols, self._pending = self._pending, [[] for _ in self.schema.columns]
        self._count = 0
        ids = _Ids(self.schema, cols)
        for part, column, values, odd in zip(
            self._parts, self.schema.columns, cols, self._odd, strict=True
        ):
            part.append(_typed(column, values, ids, odd))

    def frame(self) -> pd.DataFrame:
        """The frame of every row added (the builder is spent afterwards)."""
        if self._count or not self._parts[0]:
            self._flush()
        for odd in self._odd:
            odd.close()
        columns, parts = self.schema.columns, self._parts
        self._parts = [[] for _ in columns]
        data = {}
        for c in columns:  # each column's parts are dropped as soon as they are joined
            data[c.name] = _joined(c, parts.pop(0))
        # the joined columns are this spent builder's own: taken as they are, not copied
        frame = pd.DataFrame(data, columns=self.schema.names, copy=False)
        frame.attrs[ODD_VALUES] = OddValues(v for found in self._found for v in found)
        return frame
