"""The declared schemas themselves: stable dtypes, documentation, edge values."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from frame_reads import cell

from lyt_toolkit import frames
from lyt_toolkit.frames import SCHEMAS, describe_schema, empty_frame
from lyt_toolkit.models.enums import RewardStatus

KINDS = list(SCHEMAS)


def test_every_kind_is_declared() -> None:
    assert KINDS == [
        "rewards",
        "reward_costs",
        "benefits",
        "card_definitions",
        "tier_structures",
        "programs",
        "members",
        "cards",
        "pending_buckets",
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_empty_frame_has_declared_columns_and_dtypes(kind: str) -> None:
    frame = empty_frame(kind)
    schema = SCHEMAS[kind]
    assert len(frame) == 0
    assert list(frame.columns) == schema.names
    assert frame.dtypes.to_dict() == schema.dtypes


@pytest.mark.parametrize("kind", KINDS)
def test_builder_of_nothing_equals_empty_frame(kind: str) -> None:
    pd.testing.assert_frame_equal(frames.BUILDERS[kind]([]), empty_frame(kind))


@pytest.mark.parametrize("kind", KINDS)
def test_columns_are_snake_case_and_documented(kind: str) -> None:
    described = describe_schema(kind)
    assert list(described["column"]) == SCHEMAS[kind].names
    assert described["description"].str.len().min() > 3
    assert all(name == name.lower() and "." not in name for name in SCHEMAS[kind].names)


def test_dtype_families() -> None:
    dtypes = {str(c.dtype_name) for s in SCHEMAS.values() for c in s.columns}
    assert dtypes == {"str", "Int64", "Float64", "boolean", "category", "datetime64[ns, UTC]"}
    status = SCHEMAS["rewards"].by_name["status"].dtype
    assert list(status.categories) == [s.value for s in RewardStatus]


def test_unknown_enum_value_is_kept_with_a_warning() -> None:
    reward = {
        "id": "lrew_0a",
        "name": "x",
        "type": "MATERIAL",
        "status": "ACTIVE",
        "refunds": {"type": "PARTIAL"},
        "created_at": "2026-01-01T00:00:00Z",
    }
    with pytest.warns(UserWarning, match="refunds_type"):
        frame = frames.rewards_frame([reward])
    assert frame.loc[0, "refunds_type"] == "PARTIAL"
    assert "NONE" in frame["refunds_type"].cat.categories


def test_builders_accept_api_dicts_and_normalise_values() -> None:
    benefit = {
        "id": "lben_01",
        "name": "Ten points",
        "type": "POINTS",
        "status": "DRAFT",
        "stock": {"limited": {"quantity": 0}},
        "points": {"value": 10, "card_definition_id": "lcdef_01"},
        "created_at": "2026-01-01T10:00:00.123+02:00",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = frames.benefits_frame([benefit])
    row = frame.iloc[0]
    assert row["stock_type"] == "LIMITED" and row["stock_quantity"] == 0
    assert row["card_definition_id"] == "lcdef_01" == row["points_card_definition_id"]
    assert row["created_at"] == pd.Timestamp("2026-01-01T08:00:00.123Z")
    assert pd.isna(row["updated_at"]) and pd.isna(row["card_definition_found"])


def test_empty_text_is_missing() -> None:
    definition = {
        "id": "lcdef_01",
        "name": "Beans",
        "status": "ACTIVE",
        "created_at": "2026-01-01T00:00:00Z",
    }
    frame = frames.card_definitions_frame([definition])
    assert pd.isna(cell(frame, 0, "code_prefix"))
    assert frame.loc[0, "earning_limits_global_type"] == "NO_LIMIT"
    assert frame.loc[0, "balance_settings_allow_negative"] is False or not bool(
        frame.loc[0, "balance_settings_allow_negative"]
    )


def test_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="rewards"):
        empty_frame("vouchers")


def test_markdown_lists_every_column() -> None:
    text = frames.schemas_markdown()
    for schema in SCHEMAS.values():
        assert f"### `{schema.kind}`" in text
        for name in schema.names:
            assert f"| `{name}` |" in text


MONEY_WORDS = ("balance", "amount", "price")


@pytest.mark.parametrize("kind", ["rewards", "benefits"])
def test_gift_voucher_balances_say_they_are_in_minor_units(kind: str) -> None:
    described = describe_schema(kind).set_index("column")["description"]
    assert "minor currency units (e.g. cents" in described["digital_gift_voucher_balance"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_amount_of_money_says_its_unit(kind: str) -> None:
    for column in SCHEMAS[kind].columns:
        money = any(w in column.name for w in MONEY_WORDS) and "points" not in column.name
        if money and column.dtype_name in ("Int64", "Float64"):
            assert "minor currency units" in column.doc, f"{kind}.{column.name}"


def test_conform_orders_and_casts_columns_and_leaves_the_input_alone() -> None:
    schema = SCHEMAS["card_definitions"]
    typed = empty_frame("card_definitions")
    shuffled = typed[list(reversed(schema.names))].astype("object").assign(extra=[])
    out = schema.conform(shuffled)
    assert list(out.columns) == schema.names
    assert out.dtypes.to_dict() == schema.dtypes
    assert (shuffled[schema.names].dtypes == "object").all()  # not cast in place


def test_conform_names_missing_and_repeated_columns() -> None:
    schema = SCHEMAS["card_definitions"]
    typed = empty_frame("card_definitions")
    with pytest.raises(ValueError, match=r"card_definitions: frame lacks columns \['id'\]"):
        schema.conform(typed.drop(columns="id"))
    twice = pd.concat([typed, typed[["name"]]], axis=1)
    with pytest.raises(ValueError, match=r"columns more than once: \['name'\]"):
        schema.conform(twice)
