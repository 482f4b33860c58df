"""The bulk validation spells relative times and collects references as the plain way does."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic_core import to_json

from lyt_toolkit.sandbox import loader
from lyt_toolkit.sandbox.bulk import section_schema
from lyt_toolkit.sandbox.bulkkeys import KeyedLoad
from lyt_toolkit.sandbox.config import DEMO_PROGRAM
from lyt_toolkit.sandbox.loader import KINDS, checked_documents
from lyt_toolkit.sandbox.programcheck import collect_references
from lyt_toolkit.sandbox.timeexpr import RelativeFormatter
from lyt_toolkit.synthetic import generate_program

NOW = datetime(2026, 1, 15, 12, 0, 0, 250_000, tzinfo=UTC)
MODEL_KINDS = [kind for kind in KINDS if kind.model]


def _keyed(kind: loader.Kind) -> bool:
    schema = section_schema(kind.model) if kind.model else None
    return schema is not None and schema.keyed


KEYED_KINDS = [kind for kind in MODEL_KINDS if _keyed(kind)]


def test_only_sections_with_before_validators_or_extra_keys_go_the_plain_way() -> None:
    assert {kind.key for kind in MODEL_KINDS} - {kind.key for kind in KEYED_KINDS} == {
        "benefits",  # mode="before" model validators
        "cards",  # undeclared keys a card may carry (member_role, ...)
    }


def _both_ways(model: str, records: list[Any]) -> tuple[Any, Any]:
    """The documents of ``records`` with their times spelled in bulk, and spelled first
    (``ValueError``'s type when the section is refused)."""
    schema = section_schema(model)
    assert schema is not None and schema.keyed
    results: list[list[bytes] | type[ValueError]] = []
    for spell_in_bulk in (True, False):
        try:
            if spell_in_bulk:
                docs = schema.documents(copy.deepcopy(records), KeyedLoad(RelativeFormatter(NOW)))
            else:
                docs = schema.documents(loader.resolve_times(records, NOW))
            results.append([to_json(doc) for doc in docs])
        except ValueError as exc:
            results.append(type(exc))
    return results[0], results[1]


def _programs() -> list[dict[str, Any]]:
    demo = json.loads(DEMO_PROGRAM.read_text(encoding="utf-8"))
    large = generate_program(rewards=300, benefits=50, card_definitions=20, members=40, seed=5)
    return [demo, large]


@pytest.mark.parametrize("program", _programs(), ids=["demo", "generated"])
@pytest.mark.parametrize("kind", KEYED_KINDS, ids=lambda kind: kind.key)
def test_a_section_keyed_in_bulk_is_the_section_spelled_and_walked(
    program: dict[str, Any], kind: loader.Kind
) -> None:
    assert kind.model is not None
    records = program.get(kind.key, [])
    in_bulk, first = _both_ways(kind.model, records)
    assert in_bulk == first
    if isinstance(in_bulk, list):  # not the demo's rewards, which go to the models
        assert _references_in_bulk(kind.model, records) == _references_walked(records)


def _references_in_bulk(model: str, records: list[Any]) -> dict[str, set[str]]:
    schema = section_schema(model)
    assert schema is not None
    load = KeyedLoad(RelativeFormatter(NOW))
    schema.documents(records, load)
    return {target: ids for target, ids in load.references.items() if ids}


def _references_walked(records: list[Any]) -> dict[str, set[str]]:
    wanted: dict[str, set[str]] = {}
    collect_references(records, wanted)
    return wanted


def test_a_reward_s_references_are_collected_wherever_they_are() -> None:
    reward = generate_program(rewards=1, benefits=1, members=1, seed=2)["rewards"][0]
    reward["material"] = {"type": "SKU", "sku": {"id": "sku_1", "product_id": "prod_1"}}
    reward["metadata"] = {"card_id": "lcrd_in_metadata"}
    reward["purchase_limits"] = {"card_id": "lcrd_1", "x": [{"product": {"id": "prod_2"}}]}
    found = _references_in_bulk("Reward", [reward])
    assert found == _references_walked([reward])
    assert found["products"] == {"prod_1", "prod_2"} and found["cards"] == {"lcrd_1"}


def test_a_dangling_reference_of_a_record_validated_in_bulk_is_named() -> None:
    program = generate_program(rewards=3, benefits=1, members=1, seed=4)
    spending = program["rewards"][1]["costs"][0]["spending"][0]
    spending["card_definition_id"] = "lcdef_0000000000000999"
    match = r"rewards\[1\] \S+: costs\[0\]\.spending\[0\]\.card_definition_id: lcdef_0+999 "
    with pytest.raises(loader.ProgramFileError, match=match):
        checked_documents(program, NOW)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"created_at": " now-1d "}, {"created_at": "2026-01-14T12:00:00.250Z"}),
        ({"created_at": "now+1d-2h"}, {"created_at": "2026-01-16T10:00:00.250Z"}),
        ({"start_date": "now", "end_date": None}, {"start_date": "2026-01-15T12:00:00.250Z"}),
        ({"created_at": "2025-03-01T09:30:00+01:00"}, {"created_at": "2025-03-01T08:30:00.000Z"}),
        ({"name": "now-1d"}, {"name": "now-1d"}),  # not a time key: a name
        ({"metadata": {"created_at": "now"}}, {"metadata": {"created_at": "now"}}),
        (
            {"purchase_limits": {"reset_at": "now-1h", "metadata": {"x_at": "now"}, "n": [1]}},
            {
                "purchase_limits": {
                    "reset_at": "2026-01-15T11:00:00.250Z",
                    "metadata": {"x_at": "now"},
                    "n": [1],
                }
            },
        ),
    ],
)
def test_a_reward_s_times_are_spelled_where_the_walk_spells_them(
    change: dict[str, Any], expected: dict[str, Any]
) -> None:
    reward = {**generate_program(rewards=1, benefits=1, members=1, seed=2)["rewards"][0], **change}
    in_bulk, first = _both_ways("Reward", [reward])
    assert in_bulk == first
    doc = json.loads(in_bulk[0])
    assert {key: doc[key] for key in expected} == expected


@pytest.mark.parametrize("value", ["now-1x", "now+", "yesterday", 3, ["now"]])
def test_a_time_no_expression_spells_is_refused_alike(value: Any) -> None:
    reward = {**generate_program(rewards=1, benefits=1, members=1, seed=2)["rewards"][0]}
    reward["created_at"] = value
    in_bulk, first = _both_ways("Reward", [reward])
    assert in_bulk == first


def test_a_pending_bucket_s_date_is_a_date() -> None:
    program = generate_program(rewards=1, benefits=1, members=2, seed=4)
    buckets = program["pending_buckets"]
    buckets[0]["date"] = "now+1d"
    in_bulk, first = _both_ways("PendingBucket", buckets)
    assert in_bulk == first
    assert json.loads(in_bulk[0])["date"] == "2026-01-16"


def test_a_time_out_of_the_calendar_fails_the_load_as_before() -> None:
    program = generate_program(rewards=3, benefits=1, members=1, seed=4)
    program["rewards"][1]["created_at"] = "now+9999999d"
    with pytest.raises(OverflowError):
        checked_documents(program, NOW)
    del program["rewards"][1]["id"]  # a record the bulk pass is not given
    with pytest.raises(OverflowError):
        checked_documents(program, NOW)


def test_a_refused_record_is_named_by_its_model() -> None:
    program = generate_program(rewards=3, benefits=1, members=1, seed=4)
    program["rewards"][2]["created_at"] = "now-1d"
    program["rewards"][2]["status"] = 7
    with pytest.raises(loader.ProgramFileError, match=r"^rewards\[2\] \S+: status: [^\n]*$"):
        checked_documents(program, NOW)


def test_records_the_models_take_have_their_times_spelled() -> None:
    """The demo's rewards (numbered cost rules) go to the models: spelled first."""
    demo = json.loads(DEMO_PROGRAM.read_text(encoding="utf-8"))
    rewards = [doc for doc, _, _ in checked_documents(demo, NOW)["rewards"]]
    assert all("now" not in doc["created_at"] for doc in rewards)


def test_the_program_keeps_its_expressions() -> None:
    program = generate_program(rewards=2, benefits=1, members=1, seed=4)
    written = copy.deepcopy(program)
    checked_documents(program, NOW)
    assert program == written
