"""Frame builders name each value's column; a builder that disagrees with its schema fails.

Each kind's builder runs on the demo program's items (fetched over real HTTP)
and must produce exactly its schema's columns, in order; a row that lacks a
column or adds one raises ``SchemaMismatchError`` naming that column.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.frames import BUILDERS, SCHEMAS
from lyt_toolkit.frames.schema import FrameBuilder, Schema, SchemaMismatchError, integer, text
from lyt_toolkit.sandbox import Sandbox

PAIR = Schema(
    "pair", "A two-column schema for the mismatch tests.", (text("id", "ID"), integer("n", "N"))
)


def _items(client: LoyaltyClient) -> dict[str, list[Any]]:
    """The demo program's items of every kind, as the builders take them."""
    programs = list(client.programs.iter())
    members = [m for p in programs for m in client.members.iter(p.id)]
    details = [client.members.get(m.program_id, m.id) for m in members]
    buckets = [
        b
        for m in details
        for mc in m.cards
        if mc.card is not None
        for b in client.pending_buckets.iter(m.program_id, m.id, mc.card.id)
    ]
    rewards = list(client.rewards.iter(limit=100))
    return {
        "rewards": rewards,
        "reward_costs": rewards,
        "benefits": list(client.benefits.iter(limit=100)),
        "card_definitions": list(client.card_definitions.iter(limit=100)),
        "tier_structures": list(client.tier_structures.iter(limit=100)),
        "programs": programs,
        "members": members,
        "cards": details,
        "pending_buckets": buckets,
    }


@pytest.fixture(scope="module")
def items(demo: Sandbox, make_client: Callable[..., LoyaltyClient]) -> dict[str, list[Any]]:
    with make_client(demo) as client:
        return _items(client)


@pytest.mark.parametrize("kind", list(SCHEMAS))
def test_builder_produces_its_schemas_columns(kind: str, items: dict[str, list[Any]]) -> None:
    frame = BUILDERS[kind](items[kind])
    assert list(frame.columns) == SCHEMAS[kind].names


@pytest.mark.parametrize("kind", list(SCHEMAS))
def test_builder_fills_rows_from_the_demo(kind: str, items: dict[str, list[Any]]) -> None:
    assert len(BUILDERS[kind](items[kind])) > 0


def test_a_row_without_a_column_names_it() -> None:
    with pytest.raises(SchemaMismatchError, match=r"pair: a row lacks columns \['n'\]"):
        PAIR.build([{"id": "a"}])


def test_a_row_with_an_unknown_column_names_it() -> None:
    with pytest.raises(SchemaMismatchError, match=r"pair: a row adds columns \['extra'\]"):
        PAIR.build([{"id": "a", "n": 1, "extra": 2}])


def test_a_row_with_a_misnamed_column_names_both() -> None:
    with pytest.raises(
        SchemaMismatchError, match=r"lacks columns \['n'\] and adds columns \['m'\]"
    ):
        PAIR.build([{"id": "a", "n": 1}, {"id": "b", "m": 2}])


def test_the_error_lists_the_columns() -> None:
    with pytest.raises(SchemaMismatchError) as caught:
        PAIR.build([{"id": "a", "x": 1}])
    assert (caught.value.missing, caught.value.extra) == (["n"], ["x"])


def test_rows_in_any_key_order_land_in_schema_order() -> None:
    frame = PAIR.build([{"n": 1, "id": "a"}])
    assert list(frame.columns) == ["id", "n"]


def test_the_built_frame_takes_its_columns_without_copying_them() -> None:
    """A pull's frame holds its columns once: the builder hands them over, no second copy."""
    builder = FrameBuilder(PAIR)
    builder.add_columns({"id": ["a", "b"], "n": [1, 2]})
    builder.add_columns({"id": ["c"], "n": [3]})
    typed = PAIR.by_name["n"].array([4, 5])
    builder.add_typed({"id": PAIR.by_name["id"].array(["d", "e"]), "n": typed})
    frame = builder.frame()
    assert frame["n"].tolist() == [1, 2, 3, 4, 5]
    single = FrameBuilder(PAIR)
    single.add_typed({"id": PAIR.by_name["id"].array(["d", "e"]), "n": typed})
    assert np.shares_memory(single.frame()["n"].array._data, typed._data)
