"""Odd values in the service's answers: building a frame keeps going, NA or kept, with a warning."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit.errors import OddValueWarning
from lyt_toolkit.frames import SCHEMAS, benefits_frame
from lyt_toolkit.frames.schema import Schema, enum, integer, text, timestamp
from lyt_toolkit.models import Benefit
from lyt_toolkit.models.enums import BenefitStatus

from .odd_pages import benefit


def points_benefit(value: int, benefit_id: str = "lben_0dd1") -> Benefit:
    """A POINTS benefit model carrying ``value`` as its points (the models may refuse it)."""
    model = Benefit.model_validate(benefit(id=benefit_id))
    assert model.points is not None
    points = model.points.model_copy(update={"value": value})
    return model.model_copy(update={"points": points})


ROWS = Schema(
    "things",
    "test rows",
    (
        text("id", "ID"),
        integer("count", "a count"),
        enum("status", BenefitStatus, "a status"),
        timestamp("at", "an instant"),
    ),
)


def row(**changes: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"id": "t1", "count": 1, "status": "ACTIVE", "at": None}
    item.update(changes)
    return item


def test_an_integer_beyond_64_bits_becomes_na() -> None:
    with pytest.warns(OddValueWarning):
        frame = benefits_frame([points_benefit(2**63)])
    assert frame["points_value"].isna().all()
    assert frame["points_value"].dtype == SCHEMAS["benefits"].dtypes["points_value"]


def test_the_warning_names_kind_id_and_field() -> None:
    with pytest.warns(OddValueWarning) as caught:
        benefits_frame([points_benefit(2**64)])
    message = str(caught[0].message)
    assert "benefits" in message
    assert "lben_0dd1" in message
    assert "points_value" in message


def test_other_rows_keep_their_values() -> None:
    good = points_benefit(10, "lben_9009d")
    bad = points_benefit(-(2**63) - 1)
    with pytest.warns(OddValueWarning):
        frame = benefits_frame([good, bad])
    assert frame["points_value"].tolist() == [10, pd.NA]


@pytest.mark.parametrize("year", [1, 9999])
def test_an_instant_beyond_the_frame_range_becomes_na(year: int) -> None:
    with pytest.warns(OddValueWarning, match="created_at"):
        frame = benefits_frame([benefit(created_at=f"{year:04d}-01-01T00:00:00Z")])
    assert frame["created_at"].isna().all()
    assert str(frame["created_at"].dtype) == "datetime64[ns, UTC]"


def test_an_unknown_enum_value_is_kept_as_a_category_with_a_warning() -> None:
    with pytest.warns(OddValueWarning, match="t1.*status"):
        frame = ROWS.build([row(status="RETIRED")])
    assert frame["status"].tolist() == ["RETIRED"]


def test_a_value_of_an_unexpected_type_becomes_na() -> None:
    with pytest.warns(OddValueWarning, match="t1.*count"):
        frame = ROWS.build([row(count="lots"), row(id="t2", count=3)])
    assert frame["count"].tolist() == [pd.NA, 3]


def test_an_unparsable_instant_becomes_na() -> None:
    with pytest.warns(OddValueWarning, match="'at'"):
        frame = ROWS.build([row(at="yesterday")])
    assert frame["at"].isna().all()


def test_many_odd_values_give_a_bounded_number_of_warnings() -> None:
    with pytest.warns(OddValueWarning) as caught:
        ROWS.build([row(id=f"t{i}", count=2**70) for i in range(100)])
    assert len(caught) == 21
    assert "80 more" in str(caught[-1].message)


def test_normal_data_gives_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = benefits_frame([benefit()])
    assert frame["points_value"].tolist() == [10]
