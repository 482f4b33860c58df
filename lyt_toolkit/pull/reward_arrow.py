"""Reward pages decoded in native code: page bytes -> Arrow columns -> typed frame columns.

The fastest way to the ``rewards`` and ``reward_costs`` frames. pyarrow's JSON
reader parses a batch of pages (one page per line) against a declared Arrow
schema without holding the GIL, so the read-ahead thread keeps fetching while a
batch is decoded, and no Python object is made per reward. Every check the
model-free path (``reward_pages``) makes is made here on whole columns, in
Arrow's compute kernels: ID patterns, enum values, instants in the service's
form, required fields, the exact keys of the objects whose keys matter. JSON of
the wrong type, an integer beyond 64 bits or a duplicate key fails the parse.

What this path cannot take, it does not guess at: ``decode_reward_pages``
returns None, and the caller decodes those pages one by one the model-free way
(and from models where even that refuses), so the frames are exactly those of
the other paths, odd values and warnings included. Only clean data is typed
here, so no odd value is ever met on this path.
"""

from __future__ import annotations

import functools
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json
from pydantic_core import from_json

from ..frames.rewards import REWARD_COSTS, REWARDS
from ..frames.schema import DATETIME, Column, Schema
from ..frames.values import as_json
from ..models.ids import IdPrefix
from .json_values import INSTANT_FORM

__all__ = ["NativeRewards", "decode_reward_pages", "typed_columns"]

_S = pa.large_string()
"""Text as pandas keeps it (``large_string``): read so, a text column is taken without a copy."""
_POOL = pa.system_memory_pool()
"""Where this module's arrays live: the allocator that gives memory back (Arrow's default
pool keeps a pulled frame's decode buffers mapped, some 10 MiB on 50,000 rewards)."""


def _struct(**fields: pa.DataType) -> pa.StructType:
    return pa.struct(list(fields.items()))


_WINDOW = _struct(days_of_week=pa.list_(pa.int64()), start_time=_S, end_time=_S)
_PRODUCT = _struct(id=_S)
_SKU = _struct(product_id=_S, id=_S)
_COUPONS = _struct(campaign_id=_S)
_GIFT = _struct(campaign_id=_S, balance=pa.float64())
_POINTS = _struct(points=pa.int64(), card_definition_id=_S)
_ENTRY = _struct(id=_S, name=_S, points=pa.int64(), card_definition_id=_S)
_COST = _struct(id=_S, rules=_struct(logic=_S), spending=pa.list_(_ENTRY))

_REWARD = _struct(
    id=_S,
    name=_S,
    type=_S,
    status=_S,
    start_date=_S,
    end_date=_S,
    validity_hours=_struct(type=_S, daily=pa.list_(_WINDOW)),
    refunds=_struct(type=_S),
    material=_struct(type=_S, product=_PRODUCT, sku=_SKU),
    digital=_struct(
        type=_S, discount_coupons=_COUPONS, gift_vouchers=_GIFT, loyalty_card_points=_POINTS
    ),
    costs=pa.list_(_COST),
    created_at=_S,
    updated_at=_S,
    object=_S,
)
"""What the model-free path reads of a reward. Other keys are inferred (and ignored, as the
models ignore them), except inside the objects whose keys must be exact (``_EXACT``)."""

_PAGE = pa.schema(
    [("data", pa.list_(_REWARD)), ("cursor", _struct(next=_S, expires_at=_S)), ("object", _S)]
)
_READ = pa_json.ReadOptions(use_threads=False, block_size=1 << 26)
_PARSE = pa_json.ParseOptions(
    explicit_schema=_PAGE, unexpected_field_behavior="infer", newlines_in_values=True
)

_EXACT = {
    ("validity_hours", "daily"): pa.list_(_WINDOW),
    ("material", "product"): _PRODUCT,
    ("material", "sku"): _SKU,
    ("digital", "discount_coupons"): _COUPONS,
    ("digital", "gift_vouchers"): _GIFT,
    ("digital", "loyalty_card_points"): _POINTS,
}
"""Objects the model-free path takes only with exactly their declared keys."""

_INSTANTS = f"^{INSTANT_FORM}$"
_NO_METADATA: dict[str, Any] = {}

_EXPLICIT_NULL = re.compile(rb'"(?:object|metadata)"\s*:\s*null')
"""Keys that may be absent but not null: Arrow reads both as null, so where one reads as null,
a page that may hold such a null (this is a text search: it may also be inside some text)
goes the other way."""


def _id_pattern(prefix: str) -> str:
    return f"^{prefix}[a-f0-9]+$"


@dataclass(frozen=True)
class NativeRewards:
    """The ``rewards`` and ``reward_costs`` columns of a batch of pages, checked and ready
    to be typed (``typed_columns``)."""

    count: int
    """The rewards in the batch."""
    rewards: dict[str, Any] | None
    """None when not asked for (``decode_reward_pages``)."""
    costs: dict[str, Any] | None
    """None when not asked for."""
    referenced: frozenset[str]
    """The card definitions the typed columns point at (card points; spending too where
    ``costs`` are typed)."""


class _NotNative(Exception):
    """The batch holds something this path does not take."""


def decode_reward_pages(
    bodies: Sequence[bytes],
    cursors: Sequence[str | None],
    *,
    rewards: bool = True,
    costs: bool = True,
) -> NativeRewards | None:
    """The typed columns of the reward pages ``bodies`` (each page's next cursor in
    ``cursors``, as read from its end); None when any page is outside this path's form.

    ``rewards``/``costs``: whether the ``rewards``/``reward_costs`` columns are typed (a
    pull of one frame skips the other's); every page is checked in whole either way, so
    the same pages are refused."""
    if not bodies:
        return None
    try:
        table = pa_json.read_json(
            io.BytesIO(b"\n".join(bodies)),
            read_options=_READ,
            parse_options=_PARSE,
            memory_pool=_POOL,
        )
        _check_envelope(table, cursors)
        data = _whole(table.column("data"))
        if data.null_count:
            raise _NotNative
        items = pc.list_flatten(data, memory_pool=_POOL)
        if _absent_somewhere(table, items) and any(map(_EXPLICIT_NULL.search, bodies)):
            raise _NotNative
        return _decoded(items, bodies, rewards_typed=rewards, costs_typed=costs)
    except (
        pa.ArrowInvalid,
        pa.ArrowTypeError,
        pa.ArrowNotImplementedError,
        ValueError,
        _NotNative,
    ):
        return None


def _absent_somewhere(table: pa.Table, rewards: pa.Array) -> bool:
    """Whether a key that may be absent but not null (``_EXPLICIT_NULL``) reads as null
    anywhere: only then must the text tell an absent key from an explicit null."""
    if table.column("object").null_count:
        return True
    return any(
        rewards.type.get_field_index(name) >= 0 and _field(rewards, name).null_count
        for name in ("object", "metadata")
    )


def _check_envelope(table: pa.Table, cursors: Sequence[str | None]) -> None:
    if table.num_rows != len(cursors) or not set(table.column_names) <= {
        "data",
        "cursor",
        "object",
    }:
        raise _NotNative
    if table.schema.field("cursor").type != _PAGE.field("cursor").type:
        raise _NotNative
    cursor = _whole(table.column("cursor"))
    following = pc.struct_field(cursor, "next", memory_pool=_POOL).to_pylist()
    if following != list(cursors):
        raise _NotNative
    _instants(pc.struct_field(cursor, "expires_at", memory_pool=_POOL))


def _whole(column: pa.ChunkedArray) -> pa.Array:
    """A column of the parsed table as one array: its one chunk as it is (pyarrow's
    ``combine_chunks`` copies even one, into the default pool whatever pool it is given)."""
    if column.num_chunks == 1:
        return column.chunk(0)
    return pa.concat_arrays(column.chunks, memory_pool=_POOL)


def _field(parent: pa.Array, *path: str) -> pa.Array:
    """A (nested) field of a struct column; null wherever a parent is null (a parent
    without nulls hands over its child as it is, no kernel called)."""
    for name in path:
        if parent.null_count:
            parent = pc.struct_field(parent, name, memory_pool=_POOL)
        else:
            parent = parent.field(name)
    return parent


def _require(values: pa.Array, where: pa.Array | None = None) -> None:
    """``values`` has no null (``where``: only where that is valid, i.e. its parent is).

    ``values`` is a field of ``where`` (``_field``), so null wherever ``where`` is: it is
    null nowhere else exactly when it has as many nulls.
    """
    if values.null_count != (0 if where is None else where.null_count):
        raise _NotNative


def _matching(values: pa.Array, pattern: str) -> pa.Array:
    """``values`` (nulls allowed) when each present one matches ``pattern`` in whole."""
    if (
        values.null_count < len(values)
        and not pc.all(pc.match_substring_regex(values, pattern, memory_pool=_POOL)).as_py()
    ):
        raise _NotNative
    return values


def _known(values: pa.Array, column: Column) -> pa.Array:
    """``values`` when each present one is a category of ``column``."""
    found = pc.index_in(values, value_set=_categories(column), memory_pool=_POOL)
    if found.null_count != values.null_count:
        raise _NotNative
    return values


def _instants(values: pa.Array) -> pa.Array:
    """Instants in the service's form as UTC nanosecond timestamps (a date the
    nanoseconds cannot hold, or no such date, is left to the other path)."""
    return pc.cast(_matching(values, _INSTANTS), pa.timestamp("ns", "UTC"), memory_pool=_POOL)


def _type_of(rewards: pa.Array, *path: str) -> pa.DataType:
    kind = rewards.type
    for name in path:
        index = kind.get_field_index(name)
        if index < 0:
            return pa.null()
        kind = kind.field(index).type
    return kind


def _check_shapes(rewards: pa.Array) -> None:
    """The exact-key objects have exactly their keys; purchase limits are objects."""
    for path, declared in _EXACT.items():
        if _type_of(rewards, *path) != declared:
            raise _NotNative
    limits = _type_of(rewards, "purchase_limits")
    if limits != pa.null() and not pa.types.is_struct(limits):
        raise _NotNative


def _decoded(
    rewards: pa.Array, bodies: Sequence[bytes], *, rewards_typed: bool, costs_typed: bool
) -> NativeRewards:
    if rewards.null_count:
        raise _NotNative
    _check_shapes(rewards)
    by = REWARDS.by_name
    get = _field
    required = ("id", "name", "type", "status", "validity_hours", "refunds", "costs", "created_at")
    for name in required:
        _require(get(rewards, name))
    objects = get(rewards, "object")  # null: absent (an explicit null never gets here)
    if (
        objects.null_count < len(objects)
        and not pc.all(pc.equal(objects, "reward", memory_pool=_POOL)).as_py()
    ):
        raise _NotNative
    validity, refunds = get(rewards, "validity_hours"), get(rewards, "refunds")
    _require(get(validity, "type"))
    _require(get(refunds, "type"))
    columns: dict[str, pa.Array] = {
        "id": _matching(get(rewards, "id"), _id_pattern(IdPrefix.REWARD)),
        "name": get(rewards, "name"),
        "type": _known(get(rewards, "type"), by["type"]),
        "status": _known(get(rewards, "status"), by["status"]),
        "start_date": _instants(get(rewards, "start_date")),
        "end_date": _instants(get(rewards, "end_date")),
        "validity_hours_type": _known(get(validity, "type"), by["validity_hours_type"]),
        "validity_daily": _daily(get(validity, "daily")),
        "refunds_type": _known(get(refunds, "type"), by["refunds_type"]),
        **_material(get(rewards, "material")),
        **_digital(get(rewards, "digital")),
        "cost_count": pc.list_value_length(get(rewards, "costs"), memory_pool=_POOL),
        "metadata": _metadata(rewards, bodies),
        "created_at": _instants(get(rewards, "created_at")),
        "updated_at": _instants(get(rewards, "updated_at")),
    }
    spent = _checked_costs(rewards)
    costs = _cost_columns(rewards, spent) if costs_typed else None
    cards = [columns["digital_points_card_definition_id"].cast(_S, memory_pool=_POOL)]
    if costs is not None:
        cards.append(costs["card_definition_id"].cast(_S, memory_pool=_POOL))
    referenced = pc.unique(
        pc.drop_null(pa.concat_arrays(cards, memory_pool=_POOL), memory_pool=_POOL),
        memory_pool=_POOL,
    )
    return NativeRewards(
        count=len(rewards),
        rewards=_prepared(REWARDS, columns) if rewards_typed else None,
        costs=_prepared(REWARD_COSTS, costs) if costs is not None else None,
        referenced=frozenset(referenced.to_pylist()),
    )


def _daily(daily: pa.Array) -> pa.Array:
    """``validity_daily``: each reward's DAILY windows as the other paths' JSON text."""
    windows = pc.list_flatten(daily, memory_pool=_POOL)
    if windows.null_count:
        raise _NotNative
    for name in ("days_of_week", "start_time", "end_time"):
        _require(_field(windows, name))
    if pc.list_flatten(_field(windows, "days_of_week"), memory_pool=_POOL).null_count:
        raise _NotNative
    if daily.null_count == len(daily):
        return pa.nulls(len(daily), _S, memory_pool=_POOL)
    dumps = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
    return pa.array(
        [None if d is None else dumps(d) for d in daily.to_pylist()], _S, memory_pool=_POOL
    )


def _metadata(rewards: pa.Array, bodies: Sequence[bytes]) -> pa.Array:
    """``metadata``: each reward's custom metadata as the other paths' JSON text.

    Empty metadata everywhere is known from the Arrow type alone. Otherwise the pages
    are parsed once more for it: Arrow merges every reward's keys into one struct, so a
    key one reward lacks and a key another sets to null would look alike.
    """
    kind = _type_of(rewards, "metadata")
    if kind == pa.null():
        return pa.nulls(len(rewards), _S, memory_pool=_POOL)
    if not pa.types.is_struct(kind):
        raise _NotNative
    if kind.num_fields == 0:  # empty where present (null: absent, as explicit null never
        return pa.nulls(len(rewards), _S, memory_pool=_POOL)  # gets here)
    texts: list[str | None] = []
    for body in bodies:
        for item in from_json(body)["data"]:
            found = item.get("metadata", _NO_METADATA)
            if type(found) is not dict:
                raise _NotNative
            texts.append(as_json(found) if found else None)
    return pa.array(texts, _S, memory_pool=_POOL)


def _material(material: pa.Array) -> dict[str, pa.Array]:
    product, sku = _field(material, "product"), _field(material, "sku")
    _require(_field(material, "type"), where=material)
    _require(_field(product, "id"), where=product)
    _require(_field(sku, "id"), where=sku)
    _require(_field(sku, "product_id"), where=sku)
    return {
        "material_type": _known(_field(material, "type"), REWARDS.by_name["material_type"]),
        "material_product_id": pc.coalesce(
            _field(product, "id"), _field(sku, "product_id"), memory_pool=_POOL
        ),
        "material_sku_id": _field(sku, "id"),
    }


def _digital(digital: pa.Array) -> dict[str, pa.Array]:
    coupons = _field(digital, "discount_coupons")
    gifts = _field(digital, "gift_vouchers")
    points = _field(digital, "loyalty_card_points")
    _require(_field(digital, "type"), where=digital)
    _require(_field(coupons, "campaign_id"), where=coupons)
    _require(_field(gifts, "campaign_id"), where=gifts)
    balance = _field(gifts, "balance")
    _require(balance, where=gifts)
    if balance.null_count < len(balance) and pc.any(pc.less(balance, 0, memory_pool=_POOL)).as_py():
        raise _NotNative
    _require(_field(points, "points"), where=points)
    card = _field(points, "card_definition_id")
    _require(card, where=points)
    return {
        "digital_type": _known(_field(digital, "type"), REWARDS.by_name["digital_type"]),
        "digital_campaign_id": pc.coalesce(
            _field(coupons, "campaign_id"), _field(gifts, "campaign_id"), memory_pool=_POOL
        ),
        "digital_gift_voucher_balance": balance,
        "digital_points": _field(points, "points"),
        "digital_points_card_definition_id": _matching(card, _id_pattern(IdPrefix.CARD_DEFINITION)),
    }


class _Spent(NamedTuple):
    """The checked costs of a batch's rewards, their spending lists and entries."""

    listed: pa.Array
    costs: pa.Array
    spending: pa.Array
    entries: pa.Array
    card: pa.Array


def _checked_costs(rewards: pa.Array) -> _Spent:
    """The rewards' costs, checked as the model-free path checks them."""
    listed = _field(rewards, "costs")
    costs = pc.list_flatten(listed, memory_pool=_POOL)
    if costs.null_count:
        raise _NotNative
    _require(_field(costs, "id"))
    spending = _field(costs, "spending")
    entries = pc.list_flatten(spending, memory_pool=_POOL)
    if entries.null_count:
        raise _NotNative
    _require(_field(entries, "points"))
    card = _matching(_field(entries, "card_definition_id"), _id_pattern(IdPrefix.CARD_DEFINITION))
    _require(card)
    return _Spent(listed, costs, spending, entries, card)


def _cost_columns(rewards: pa.Array, spent: _Spent) -> dict[str, pa.Array]:
    """The ``reward_costs`` columns: one row per reward x cost x spending entry, a cost
    without entries keeping one row."""
    listed, costs, spending, entries, card = spent
    reward_of_cost = pc.list_parent_indices(listed, memory_pool=_POOL)
    lengths = _filled(pc.list_value_length(spending, memory_pool=_POOL), 0).to_numpy(
        zero_copy_only=False
    )
    rows_per_cost = np.maximum(lengths, 1)
    cost_of_row = np.repeat(np.arange(len(costs)), rows_per_cost)
    first_row = np.cumsum(rows_per_cost) - rows_per_cost
    first_entry = np.cumsum(lengths) - lengths
    index = np.arange(len(cost_of_row)) - first_row[cost_of_row]
    empty = lengths[cost_of_row] == 0
    entry_of_row = pa.array(first_entry[cost_of_row] + index, mask=empty, memory_pool=_POOL)
    reward_of_row = pc.take(
        reward_of_cost, pa.array(cost_of_row, memory_pool=_POOL), memory_pool=_POOL
    )
    count = len(cost_of_row)

    def of_reward(name: str) -> pa.Array:
        return pc.take(_field(rewards, name), reward_of_row, memory_pool=_POOL)

    return {
        "reward_id": of_reward("id"),
        "reward_name": of_reward("name"),
        "reward_status": of_reward("status"),
        "cost_id": pc.take(_field(costs, "id"), cost_of_row, memory_pool=_POOL),
        "cost_rules_logic": pc.take(
            _field(costs, "rules", "logic"), cost_of_row, memory_pool=_POOL
        ),
        "spending_index": pa.array(index, pa.int64(), mask=empty, memory_pool=_POOL),
        "spending_id": pc.take(_field(entries, "id"), entry_of_row, memory_pool=_POOL),
        "points": pc.take(_field(entries, "points"), entry_of_row, memory_pool=_POOL),
        "card_definition_id": pc.take(card, entry_of_row, memory_pool=_POOL),
        "card_definition_name": pa.nulls(count, _S, memory_pool=_POOL),
        "card_definition_found": pa.nulls(count, pa.bool_(), memory_pool=_POOL),
        "card_definition_status": pa.nulls(count, _S, memory_pool=_POOL),
    }


def _prepared(schema: Schema, columns: dict[str, pa.Array]) -> dict[str, pa.Array]:
    """A batch's Arrow columns as ``typed_columns`` takes them (categories as codes, instants
    as nanoseconds, empty text as null), so that a pull types each column once, not per
    batch."""
    return {c.name: _prepared_column(c, columns[c.name]) for c in schema.columns}


def _prepared_column(column: Column, values: pa.Array) -> pa.Array:
    kind = column.dtype_name
    if kind == "category":  # the category's index, as narrow as pandas keeps it; null: absent
        codes = pc.index_in(values, value_set=_categories(column), memory_pool=_POOL)
        return codes.cast(_code_type(column), memory_pool=_POOL)
    if kind == DATETIME:  # nanoseconds since the epoch, UTC
        return values.cast(pa.int64(), memory_pool=_POOL)
    if kind == "str" and pc.index(values, "", memory_pool=_POOL).as_py() >= 0:
        return pc.if_else(
            pc.equal(values, "", memory_pool=_POOL), pa.scalar(None, _S), values, memory_pool=_POOL
        )
    return values


def typed_columns(schema: Schema, batches: list[dict[str, pa.Array]]) -> dict[str, Any]:
    """The typed arrays ``Schema.build`` makes of the rows of ``batches`` (the ``rewards`` or
    ``costs`` of ``NativeRewards``, in order), each column typed once; ``batches`` is
    emptied column by column as it goes."""
    typed = {}
    for column in schema.columns:
        parts = [batch.pop(column.name) for batch in batches]
        typed[column.name] = _typed_column(column, pa.chunked_array(parts, parts[0].type))
    batches.clear()
    return typed


@functools.cache
def _dtype(column: Column) -> Any:
    return column.dtype


@functools.cache
def _code_type(column: Column) -> pa.DataType:
    """The narrowest integer type holding ``column``'s category codes (and -1), as pandas
    keeps codes: a pull's codes wait in it until typed."""
    for kind in (pa.int8(), pa.int16()):
        if len(column.categories) < np.iinfo(kind.to_pandas_dtype()).max:
            return kind
    return pa.int32()


@functools.cache
def _categories(column: Column) -> pa.Array:
    return pa.array(column.categories, _S, memory_pool=_POOL)


def _filled(values: Any, fill: Any) -> Any:
    """``values`` with ``fill`` where null (``pc.fill_null``, in this module's pool)."""
    return pc.coalesce(values, pa.scalar(fill, values.type), memory_pool=_POOL)


def _typed_column(column: Column, values: pa.ChunkedArray) -> Any:
    kind = column.dtype_name
    if kind == "category":  # codes copied out of Arrow's read-only buffer where it lends one
        codes = np.require(_filled(values, -1).to_numpy(), requirements="W")
        return pd.Categorical.from_codes(codes, dtype=_dtype(column), validate=False)
    if kind == DATETIME:  # NaT where null
        nanoseconds = _filled(values, np.iinfo(np.int64).min)
        return pd.DatetimeIndex(nanoseconds.to_numpy().view("M8[ns]")).tz_localize("UTC")
    return _dtype(column).__from_arrow__(values)
