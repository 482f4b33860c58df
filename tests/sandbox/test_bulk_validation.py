"""A section validated in bulk, without models, stores exactly what the models would."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import pytest
from pydantic_core import to_json

from lyt_toolkit import models
from lyt_toolkit.models.common import OMIT_IF_NONE, ApiModel
from lyt_toolkit.models.enums import DiscountType, RewardStatus
from lyt_toolkit.sandbox import loader
from lyt_toolkit.sandbox.bulk import SectionSchema, section_schema
from lyt_toolkit.sandbox.config import DEMO_PROGRAM
from lyt_toolkit.sandbox.loader import KIND_BY_KEY, KINDS, ProgramFileError, checked_documents
from lyt_toolkit.synthetic import generate_program

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
MODEL_KINDS = [kind for kind in KINDS if kind.model]


def _by_models(kind: loader.Kind, records: list[Any]) -> list[dict[str, Any]]:
    assert kind.model is not None
    parsed = [getattr(models, kind.model).model_validate(r) for r in records]
    return [model.wire() for model in parsed]


def _bulk(model: str, records: list[Any]) -> list[dict[str, Any]]:
    schema = section_schema(model)
    assert schema is not None
    return schema.documents(records)


def _programs() -> list[tuple[dict[str, Any], list[str]]]:
    """Programs, and the sections of each that go to the models (the demo's rewards have
    numbered cost rules, which only the model allows)."""
    demo = json.loads(DEMO_PROGRAM.read_text(encoding="utf-8"))
    large = generate_program(rewards=400, benefits=300, card_definitions=20, members=60, seed=3)
    return [(demo, ["rewards"]), (large, [])]


@pytest.mark.parametrize("kind", MODEL_KINDS, ids=lambda kind: kind.key)
def test_every_model_of_a_program_section_validates_in_bulk(kind: loader.Kind) -> None:
    assert kind.model is not None and section_schema(kind.model) is not None


@pytest.mark.parametrize(("program", "to_models"), _programs(), ids=["demo", "generated"])
def test_bulk_documents_are_the_models_dumps(program: dict[str, Any], to_models: list[str]) -> None:
    """Same values, types, key order and JSON text, record by record, wherever the bulk
    pass takes a section."""
    by_models: list[str] = []
    for kind in MODEL_KINDS:
        assert kind.model is not None
        records = loader.resolve_times(program.get(kind.key, []), NOW)
        if not records:
            continue
        schema = section_schema(kind.model)
        assert schema is not None
        try:
            docs = schema.documents(records)
        except ValueError:
            by_models.append(kind.key)
            continue
        expected = _by_models(kind, records)
        assert docs == expected
        assert [to_json(d) for d in docs] == [to_json(d) for d in expected]
        assert [list(d) for d in docs] == [list(d) for d in expected]
    assert by_models == to_models


def test_the_demo_rewards_with_numbered_rules_go_to_the_models() -> None:
    demo = json.loads(DEMO_PROGRAM.read_text(encoding="utf-8"))
    rewards = loader.resolve_times(demo["rewards"], NOW)
    schema = section_schema("Reward")
    assert schema is not None
    with pytest.raises(ValueError):
        schema.documents(rewards)
    docs = checked_documents(demo, NOW)["rewards"]
    assert [doc for doc, _, _ in docs] == _by_models(KIND_BY_KEY["rewards"], rewards)


def test_values_the_model_spells_differently_are_stored_as_it_spells_them() -> None:
    """Aliases (either spelling read), StrEnums, defaults made by a model class, a
    ``None`` of an ``OMIT_IF_NONE`` field left out, timestamps in the wire form."""
    program = generate_program(rewards=2, benefits=1, members=1, seed=8)
    definition = program["card_definitions"][0]
    definition["earning_limits"] = {"global_": {"type": "NO_LIMIT"}}
    definition["spending_limits"] = {"global": {"type": "NO_LIMIT"}}
    reward = program["rewards"][0]
    reward["costs"][0]["spending"][0]["name"] = None
    reward["created_at"] = "2025-03-01T09:30:00+01:00"
    reward.pop("refunds")
    docs = checked_documents(program, NOW)
    stored_definition = docs["card_definitions"][0][0]
    definitions = loader.resolve_times([definition], NOW)
    [expected] = _by_models(KIND_BY_KEY["card_definitions"], definitions)
    assert stored_definition == expected == _bulk("CardDefinition", definitions)[0]
    assert "global" in stored_definition["earning_limits"]
    stored = docs["rewards"][0][0]
    rewards = loader.resolve_times([reward], NOW)
    assert stored == _by_models(KIND_BY_KEY["rewards"], rewards)[0] == _bulk("Reward", rewards)[0]
    assert "name" not in stored["costs"][0]["spending"][0]
    assert stored["created_at"] == "2025-03-01T08:30:00.000Z"
    assert stored["refunds"] == {"type": "NONE"} and type(stored["status"]) is str


@pytest.mark.parametrize(
    ("section", "change", "problem"),
    [
        ("cards", {"member_rank": 1}, r"cards\[0\] \S+: unknown key 'member_rank'"),
        ("rewards", {"material": "a mug"}, r"rewards\[0\] \S+: material: "),
        ("rewards", {"digital": {"type": "X", "typo": 1}}, r"unknown key 'digital.typo'"),
        ("benefits", {"stock": {"limited": {"quantity": -1}}}, r"stock.limited.quantity: "),
    ],
)
def test_a_record_the_bulk_pass_refuses_is_named_by_its_model(
    section: str, change: dict[str, Any], problem: str
) -> None:
    program = generate_program(rewards=3, benefits=2, members=1, seed=9)
    program[section][0].update(change)
    with pytest.raises(ProgramFileError, match=problem):
        checked_documents(program, NOW)


class _Omitting(ApiModel):
    required: Annotated[str | None, OMIT_IF_NONE]
    optional: Annotated[int | None, OMIT_IF_NONE] = None
    kind: Literal[DiscountType.AMOUNT] = DiscountType.AMOUNT
    status: RewardStatus = RewardStatus.DRAFT


@pytest.mark.parametrize(
    "record",
    [
        {"required": None},
        {"required": "a", "optional": 1, "kind": "AMOUNT", "status": "ACTIVE"},
        {"required": "b", "optional": None},
    ],
)
def test_a_model_s_omissions_literals_and_enum_defaults_dump_alike(record: dict[str, Any]) -> None:
    [doc] = SectionSchema(_Omitting).documents([record])
    assert doc == _Omitting.model_validate(record).wire()
    assert {type(value) for value in doc.values()} <= {str, int}


def test_a_required_omit_if_none_field_stays_required() -> None:
    with pytest.raises(ValueError):
        SectionSchema(_Omitting).documents([{"optional": 1}])


@pytest.mark.parametrize(
    "created_at",
    [
        "2025-03-01T09:30:00",  # naive: taken as UTC
        "2025-03-01T09:30:00.123456Z",  # cut to milliseconds
        "2025-03-01T09:30:00-08:00",
        "0001-01-01T00:30:00+01:00",  # UTC form in year 0: keeps its own offset
        "9999-12-31T23:30:00-01:00",  # UTC form in year 10000: likewise
    ],
)
def test_a_timestamp_is_spelled_in_one_call_as_the_model_dumps_it(created_at: str) -> None:
    program = generate_program(rewards=1, benefits=1, members=1, seed=8)
    program["rewards"][0]["created_at"] = created_at
    rewards = loader.resolve_times(program["rewards"], NOW)
    expected = _by_models(KIND_BY_KEY["rewards"], rewards)
    assert _bulk("Reward", rewards) == expected
    assert checked_documents(program, NOW)["rewards"][0][0] == expected[0]
