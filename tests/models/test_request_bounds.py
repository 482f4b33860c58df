"""Request models refuse numbers the interface cannot carry; timestamps keep 4-digit years."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

import lyt_toolkit.models as m
from lyt_toolkit.models.common import format_timestamp

CARD = "lcdef_c0ffee0001"


def benefit(value: object) -> dict[str, object]:
    return {"name": "Big", "type": "POINTS", "points": {"value": value, "card_definition_id": CARD}}


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1])
def test_benefit_points_beyond_64_bits_are_refused_naming_the_field(value: int) -> None:
    with pytest.raises(ValidationError, match=r"points\.value: integer outside"):
        m.BenefitCreate.model_validate(benefit(value))


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_numbers_are_refused_naming_the_field(value: float) -> None:
    with pytest.raises(ValidationError, match=r"order\.metadata\.w: number is not finite"):
        m.TierValidationRequest.model_validate({"order": {"amount": 1, "metadata": {"w": value}}})


def test_the_64_bit_bounds_themselves_are_accepted() -> None:
    assert m.BenefitCreate.model_validate(benefit(2**63 - 1)).body()["points"]["value"] == 2**63 - 1


def test_a_timestamp_beyond_year_one_in_utc_is_a_validation_error() -> None:
    with pytest.raises(ValidationError, match=r"order\.created_at"):
        m.TierValidationRequest.model_validate({"order": {"created_at": "0001-01-01T00:00+01:00"}})


def test_early_years_are_written_with_four_digits() -> None:
    assert format_timestamp(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01T00:00:00.000Z"
