"""Benefit input rows checked locally: the flat form, its numbers, names repeated in a batch."""

from __future__ import annotations

from pathlib import Path

import pytest

from lyt_toolkit.inputs import (
    FLAT_COLUMNS,
    benefits_from_csv,
    check_benefit_rows,
    column_for,
    flat_row_to_body,
)
from lyt_toolkit.models.benefits import BENEFIT_TYPE_FIELDS, DIGITAL_TYPE_FIELDS

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "benefits_import_example.csv"
CARD = "lcdef_c0ffee0001"


def test_flat_points_row_becomes_a_points_body() -> None:
    row = {"name": "A", "type": "POINTS", "card_definition_id": CARD, "points_value": "5"}
    body = flat_row_to_body(row)
    assert body["points"] == {"value": 5, "card_definition_id": CARD}


def test_flat_column_of_another_type_names_that_column() -> None:
    row = {"name": "A", "type": "POINTS", "card_definition_id": CARD, "product_id": "prod_1"}
    with pytest.raises(ValueError, match="product_id does not apply to a POINTS benefit"):
        flat_row_to_body(row)


def test_fractional_whole_number_names_the_column() -> None:
    row = {"name": "A", "type": "POINTS", "card_definition_id": CARD, "points_value": "2.5"}
    with pytest.raises(ValueError, match=r"^points_value: '2\.5' is not a whole number$"):
        flat_row_to_body(row)


def test_repeated_name_is_an_error_of_the_later_row() -> None:
    row = {"name": "A", "type": "POINTS", "points": {"value": 1, "card_definition_id": CARD}}
    first, second = check_benefit_rows([(1, row), (2, row)])
    assert first.error is None
    assert second.field == "name"


def test_api_path_maps_to_its_flat_column() -> None:
    assert column_for("digital.gift_vouchers.balance") == "balance"


def test_every_type_field_is_a_flat_column() -> None:
    fields = {f for t in BENEFIT_TYPE_FIELDS.values() for f in t.fields}
    digital = {f for fs in DIGITAL_TYPE_FIELDS.values() for f in fs}
    assert fields | digital <= set(FLAT_COLUMNS)


def test_csv_import_keeps_every_row_checked() -> None:
    imported = benefits_from_csv(EXAMPLE)
    assert len(imported.checked) == len(imported.rows) + len(imported.errors)
